"""Names of the files and folders a task is made of, and the one safe way to join paths.

A task in the catalogue and its prepared data on disk::

    <catalogue>/<platform>/<slug>/task.json, leaderboard.csv, pages/*.md
    <data dir>/<platform>/<slug>/raw/, public/, private/, checksums.json, split_report.json
      (+ quarantine.json while a failed leakage audit keeps the task from being graded)

Grading and validation also read MLE-bench's prepared data as ``mlebench prepare`` leaves it,
``<data dir>/<competition id>/prepared/public/`` and ``.../prepared/private/`` (the competition
id is the task's slug), when the data folder holds no ``<platform>/<slug>/`` of the task
(:func:`task_data_root`).

Every path built from something a user, a page or an agent wrote (task ids, file names in a
spec, archive members, run folders) goes through :func:`safe_join`, which refuses absolute
parts, ``..``, NUL bytes and anything that resolves (through links) outside its root.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tambench.errors import UnsafePathError

TASK_FILE = "task.json"
LEADERBOARD_FILE = "leaderboard.csv"
PAGES_DIR = "pages"
SUBSETS_DIR = "_subsets"
COLLECTIONS_DIR = "_collections"
RAW_DIR = "raw"
PUBLIC_DIR = "public"
PRIVATE_DIR = "private"
CHECKSUMS_FILE = "checksums.json"
SPLIT_REPORT_FILE = "split_report.json"
DEFAULT_ANSWERS_FILE = "answers.csv"
SUBMISSION_FILE = "submission.csv"
#: Inside public/ of a prepared task.
PUBLIC_TRAIN_FILE = "train.csv"
PUBLIC_TEST_FILE = "test.csv"
SAMPLE_SUBMISSION_FILE = "sample_submission.csv"
FILES_MANIFEST_FILE = "files_manifest.csv"
TRAIN_FILES_DIR = "train"
TEST_FILES_DIR = "test"
#: Written beside checksums.json when a prepared task failed its leakage audit.
QUARANTINE_FILE = "quarantine.json"
#: MLE-bench's prepared data of one competition: ``<data dir>/<competition id>/prepared/``.
MLE_BENCH_PREPARED_DIR = "prepared"


def safe_relpath(rel: str, what: str = "path") -> PurePosixPath:
    """A relative POSIX path with no absolute part, no ``..``, no NUL and no backslash.

    >>> safe_relpath("images/./a.png", "file").as_posix()
    'images/a.png'
    >>> safe_relpath("../answers.csv", "file")
    Traceback (most recent call last):
    ...
    tambench.errors.UnsafePathError: file '../answers.csv' must not contain '..'
    """
    if not rel or "\x00" in rel or "\\" in rel or rel.startswith("/") or ":" in rel[:2]:
        raise UnsafePathError(f"{what} {rel!r} must be a non-empty relative path")
    parts = PurePosixPath(rel).parts
    if ".." in parts:
        raise UnsafePathError(f"{what} {rel!r} must not contain '..'")
    return PurePosixPath(*[p for p in parts if p != "."])


def safe_join(root: Path, *parts: str, what: str = "path") -> Path:
    """``root / parts``, refusing unsafe parts and results (links included) outside ``root``.

    Each part may hold ``/`` (``"kaggle/titanic"``). The result is not resolved, so messages
    show the path the user gave; the check resolves it.

    >>> safe_join(Path("/cat"), "kaggle", "titanic/task.json").as_posix()
    '/cat/kaggle/titanic/task.json'
    """
    pieces: list[str] = []
    for part in parts:
        pieces.extend(safe_relpath(part, what).parts)
    out = Path(root).joinpath(*pieces)
    root_resolved = Path(root).resolve()
    resolved = out.resolve()
    if resolved != root_resolved and not resolved.is_relative_to(root_resolved):
        raise UnsafePathError(f"{what} {'/'.join(parts)!r} resolves outside {root}; refused")
    return out


def data_dir_problem(data_dir: Path, defaulted: bool) -> str | None:
    """Why the data folder cannot hold prepared tasks (it does not exist), or None.

    >>> data_dir_problem(Path("/no/such/tambench-data"), defaulted=True)  # doctest: +ELLIPSIS
    'data folder /no/such/tambench-data does not exist (the default ./tambench-data: no ...'
    """
    if data_dir.is_dir():
        return None
    why = (" (the default ./tambench-data: no --data-dir, TAMBENCH_DATA_DIR or config data_dir "
           "was given)" if defaulted else "")
    return (f"data folder {data_dir} does not exist{why}; `tambench prepare TASK --data-dir DIR` "
            "makes it, then give the same --data-dir here")


def task_data_root(data_dir: Path, platform: str, slug: str) -> Path:
    """The folder holding a prepared task's ``public/`` and ``private/``:
    ``<data_dir>/<platform>/<slug>``, or MLE-bench's ``<data_dir>/<slug>/prepared`` when only
    that one is there (it holds ``public/`` or ``private/``). Both parts are checked by
    :func:`safe_join`: a link leading out of ``data_dir`` is refused.

    >>> task_data_root(Path("/no/such/data"), "kaggle", "titanic").as_posix()
    '/no/such/data/kaggle/titanic'
    """
    ours = safe_join(data_dir, platform, slug)
    if ours.is_dir():
        return ours
    theirs = safe_join(data_dir, slug, MLE_BENCH_PREPARED_DIR)
    if (theirs / PRIVATE_DIR).is_dir() or (theirs / PUBLIC_DIR).is_dir():
        return theirs
    return ours


def task_data_problem(data_dir: Path, platform: str, slug: str) -> str | None:
    """Why neither ``<data_dir>/<platform>/<slug>/`` nor MLE-bench's
    ``<data_dir>/<slug>/prepared/`` is there, with a "did you mean" when the folder given is
    one level too high or too low; None when one is there."""
    if task_data_root(data_dir, platform, slug).is_dir():
        return None
    message = (f"task {platform}/{slug} is not prepared in {data_dir} (no {platform}/{slug}/ "
               f"there, nor MLE-bench's {slug}/{MLE_BENCH_PREPARED_DIR}/)")
    guess = _data_dir_guess(data_dir, platform, slug)
    if guess is not None:
        return f"{message}; did you mean --data-dir {guess}?"
    return f"{message}; run `tambench prepare {platform}/{slug} --data-dir {data_dir}`"


def _data_dir_guess(data_dir: Path, platform: str, slug: str) -> Path | None:
    """The folder that does hold the task: a child of ``data_dir`` (given one level too high)
    or its parent (given one level too low, at ``<data>/<platform>``)."""
    if data_dir.name == platform and (data_dir / slug / PRIVATE_DIR).is_dir():
        return data_dir.parent
    try:
        children = sorted(p for p in data_dir.iterdir() if p.is_dir())[:1000]
    except OSError:
        return None
    # prepared data, not a catalogue beside it: the task's folder holds private/
    return next((c for c in children if (c / platform / slug / PRIVATE_DIR).is_dir()), None)
