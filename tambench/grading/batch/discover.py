"""Find the runs to grade: one :class:`RunItem` per run, whatever state its folder is in.

Three layouts are read:

* ``<agent>/<task>/<run>/submission.<fmt>`` (``<task>``: a slug, or ``<platform>__<slug>``);
  where each agent made one run of a task, ``<agent>/<task>/submission.<fmt>`` and (one agent,
  named after the runs folder) ``<task>/submission.<fmt>`` are read too, as run ``run``;
* MLE-bench's run groups, ``<run group>/<competition>_<uuid>/submission/submission.csv``: the
  run group is the agent (the runs folder may be one run group or hold several);
* MLE-bench's ``submissions.jsonl``: one ``{"competition_id", "submission_path"}`` object per
  line (blank lines and lines starting with ``#`` or ``//`` are skipped, as MLE-bench does);
  a null ``submission_path`` (MLE-bench's ``experiments/make_submission.py`` writes one for a
  run without a submission) is a missing submission of its competition. A relative path is
  read from the current folder, as ``mlebench grade`` reads it, when the file is there, else
  from the JSONL file's folder; a warning names each line whose two readings differ.

A source that yields no run at all is a mistake (a wrong layout, the wrong folder): it raises
:class:`~tambench.errors.InputError` naming the expected layout and what was there.

Discovery never aborts on one run: a folder that cannot be listed, a symbolic link, an unknown or
ambiguous task folder, or a bad JSONL line becomes that run's row with a status and an error.
Names are made printable and bounded here, once (:mod:`tambench.grading.sanitize`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tambench.core.bounded import LINE_BOUNDS, parse_json
from tambench.errors import InputError, MalformedInputError
from tambench.grading.batch.models import RunStatus
from tambench.grading.sanitize import report_name, report_text
from tambench.validation.reading.files import COMPRESSED_SUFFIXES

#: A run's solution code: in the run folder, or in its code/ folder (``tambench run``'s layout).
SOLUTION_FILES = ("best_solution.py", "solution.py", "code/best_solution.py", "code/solution.py")
#: MLE-bench names a run folder ``<competition id>_<uuid4>``.
MLE_BENCH_RUN = re.compile(r"^(?P<task>.+)_(?P<run>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
                           r"[0-9a-f]{4}-[0-9a-f]{12})$")
MLE_BENCH_SUBMISSION_DIR = "submission"
#: The run name of a task folder that holds its submission itself (one run per agent and task).
SINGLE_RUN = "run"
#: Submission formats looked for when the task (and so its format) is unknown.
ANY_FORMAT = ("csv", "json", "txt")


def submission_names(formats: tuple[str, ...]) -> list[str]:
    """The file names a run's submission may have, most preferred first: the plain file, then
    the same compressed (``submission.csv.gz``, ``submission.csv.zip``), then
    ``submission.zip``.

    >>> submission_names(("csv",))
    ['submission.csv', 'submission.csv.gz', 'submission.csv.zip', 'submission.zip']
    """
    plain = [f"submission.{ext}" for ext in formats]
    packed = [f"{name}{suffix}" for name in plain for suffix in COMPRESSED_SUFFIXES]
    return [*plain, *packed, "submission.zip"]


@dataclass(frozen=True)
class TaskRef:
    """Where one task's files are."""

    task_id: str
    task_file: str
    answers: str
    leaderboard: str | None
    formats: tuple[str, ...] = ("csv",)


@dataclass(frozen=True)
class TaskProblem:
    """Why a task folder name does not resolve to one task."""

    status: RunStatus
    message: str


@dataclass(frozen=True)
class JudgeConfig:
    """Where the constraint judge's model is (picklable; the API key stays in the environment)."""

    model: str
    base_url: str | None = None
    cache_dir: str | None = None
    max_code_bytes: int = 2_000_000
    """Solution files larger than this are not sent to the model (recorded as a note)."""


@dataclass(frozen=True)
class RunSettings:
    """What every item of one batch shares (picklable)."""

    created_at: datetime
    fixed_time: bool = False
    """Every row's created_at is ``created_at`` (else each row's is when it was graded)."""
    max_bytes: int | None = None
    max_columns: int = 10_000
    time_limit: float | None = None
    judge: JudgeConfig | None = None
    extra_columns: str | None = None
    """``value_policy.extra_columns`` for every task (None: each task's own rule)."""


@dataclass(frozen=True)
class RunItem:
    """One run to grade: small and picklable, sent to a worker."""

    agent: str
    task: str
    run: str
    settings: RunSettings
    task_ref: TaskRef | None = None
    submission: str | None = None
    """The path to open (may hold undecodable bytes as surrogates); None: no file found."""
    submission_shown: str | None = None
    """The submission path as reports show it."""
    solution: str | None = None
    solution_shown: str | None = None
    status: RunStatus | None = None
    """Set when discovery already knows the outcome (unreadable, link, unknown task)."""
    problem: str | None = None
    """What discovery found wrong (with no status: why the submission is missing)."""
    warning: str | None = None
    """What the batch report's warnings say about this run (a path read two ways)."""


Resolver = Callable[[str], "TaskRef | TaskProblem"]


def _listing(folder: str) -> tuple[list[os.DirEntry[str]], str | None]:
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name), None
    except OSError as exc:
        return [], f"cannot list {report_text(folder, 300)}: {exc.strerror or exc}"


def _kind(entry: os.DirEntry[str]) -> str:
    """"link", "dir", "other", or "error: ..." (never raises)."""
    try:
        if entry.is_symlink():
            return "link"
        return "dir" if entry.is_dir(follow_symlinks=False) else "other"
    except OSError as exc:
        return f"error: {exc.strerror or exc}"


class _Walker:
    """Walks one runs folder, turning every problem into an item."""

    def __init__(self, root: Path, resolve: Resolver, settings: RunSettings) -> None:
        self.root = root
        self.resolve = resolve
        self.settings = settings

    def item(self, agent: str, task: str, run: str, **kw: object) -> RunItem:
        ref = kw.pop("task_ref", None)
        if ref is None and task != "*":
            resolved = self.resolve(task)
            ref = resolved if isinstance(resolved, TaskRef) else None
            if isinstance(resolved, TaskProblem) and "status" not in kw:
                kw.update(status=resolved.status, problem=resolved.message)
        return RunItem(report_name(agent), report_name(task), report_name(run), self.settings,
                       task_ref=ref, **kw)  # type: ignore[arg-type]

    def refused(self, agent: str, task: str, run: str, entry: os.DirEntry[str], kind: str) -> RunItem:
        rel = report_text(os.path.relpath(entry.path, self.root), 300)
        if kind == "link":
            return self.item(agent, task, run, status=RunStatus.INVALID_SUBMISSION,
                             problem=f"{rel} is a symbolic link; run folders must be real folders")
        return self.item(agent, task, run, status=RunStatus.UNREADABLE,
                         problem=f"cannot read {rel}: {kind.removeprefix('error: ')}")

    def unreadable(self, agent: str, task: str, run: str, message: str) -> RunItem:
        return self.item(agent, task, run, status=RunStatus.UNREADABLE, problem=message)

    def walk(self) -> Iterator[RunItem]:
        top, problem = _listing(str(self.root))
        if problem:
            yield self.unreadable("*", "*", "*", problem)
            return
        if any(_is_mle_bench_run(e) for e in top):
            yield from self.group(self.root.name, top)
            return
        for a in top:
            kind = _kind(a)
            if kind == "dir" and _holds_submission(a.path, ANY_FORMAT):
                # <task>/submission.csv: one run of one agent, named after the runs folder
                yield from self.task(self.root.resolve().name or "agent", a)
            elif kind == "dir":
                yield from self.agent(a)
            elif kind != "other":
                yield self.refused(a.name, "*", "*", a, kind)

    def agent(self, a: os.DirEntry[str]) -> Iterator[RunItem]:
        entries, problem = _listing(a.path)
        if problem:
            yield self.unreadable(a.name, "*", "*", problem)
            return
        yield from self.group(a.name, entries)

    def group(self, agent: str, entries: list[os.DirEntry[str]]) -> Iterator[RunItem]:
        for t in entries:
            kind = _kind(t)
            if kind == "other":
                continue
            if kind != "dir":
                yield self.refused(agent, t.name, "*", t, kind)
            elif _is_mle_bench_run(t):
                m = MLE_BENCH_RUN.match(t.name)
                if m is not None:
                    sub_dir = os.path.join(t.path, MLE_BENCH_SUBMISSION_DIR)
                    yield self.run(agent, m["task"], m["run"], t.path, sub_dir)
            else:
                yield from self.task(agent, t)

    def task(self, agent: str, t: os.DirEntry[str]) -> Iterator[RunItem]:
        entries, problem = _listing(t.path)
        if problem:
            yield self.unreadable(agent, t.name, "*", problem)
            return
        if _holds_submission(t.path, self.formats(t.name)):
            # <agent>/<task>/submission.csv: the agent's one run of the task
            yield self.run(agent, t.name, SINGLE_RUN, t.path, t.path)
        for r in entries:
            kind = _kind(r)
            if kind == "dir":
                yield self.run(agent, t.name, r.name, r.path, r.path)
            elif kind != "other":
                yield self.refused(agent, t.name, r.name, r, kind)

    def formats(self, task: str) -> tuple[str, ...]:
        resolved = self.resolve(task)
        return resolved.formats if isinstance(resolved, TaskRef) else ANY_FORMAT

    def run(self, agent: str, task: str, run: str, run_dir: str, sub_dir: str) -> RunItem:
        resolved = self.resolve(task)
        ref = resolved if isinstance(resolved, TaskRef) else None
        try:
            sub = _first_existing(sub_dir, submission_names(self.formats(task)))
            sol = _first_regular(run_dir, SOLUTION_FILES)
        except OSError as exc:
            rel = report_text(os.path.relpath(run_dir, self.root), 300)
            return self.unreadable(agent, task, run, f"cannot read {rel}: {exc.strerror or exc}")
        return self.item(
            agent, task, run, task_ref=ref,
            submission=sub, submission_shown=self.shown(sub),
            solution=sol, solution_shown=self.shown(sol),
        )

    def shown(self, path: str | None) -> str | None:
        return None if path is None else report_text(os.path.relpath(path, self.root), 500)


def _is_mle_bench_run(entry: os.DirEntry[str]) -> bool:
    if MLE_BENCH_RUN.match(entry.name) is None or _kind(entry) != "dir":
        return False
    try:
        return os.path.lexists(os.path.join(entry.path, MLE_BENCH_SUBMISSION_DIR))
    except OSError:
        return False


def _holds_submission(folder: str, formats: tuple[str, ...]) -> bool:
    """Whether a folder holds a submission file itself (not in a run subfolder)."""
    try:
        return _first_existing(folder, submission_names(formats)) is not None
    except OSError:
        return False


def _first_existing(folder: str, names: list[str]) -> str | None:
    """The first name present in ``folder`` (links and FIFOs included: validation refuses
    them with a message); None when none is; OSError when the folder cannot be read."""
    for name in names:
        path = os.path.join(folder, name)
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        return path
    return None


def _first_regular(folder: str, names: tuple[str, ...]) -> str | None:
    import stat

    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.path.islink(os.path.dirname(path)):  # a linked code/ folder is not followed
                continue
            if stat.S_ISREG(os.lstat(path).st_mode):
                return path
        except (FileNotFoundError, NotADirectoryError):
            continue
    return None


def discover_runs(source: Path, resolve: Resolver, settings: RunSettings,
                  *, agent: str | None = None) -> list[RunItem]:
    """Every run under a runs folder, or every line of an MLE-bench ``submissions.jsonl``.

    Raises:
        InputError: no run at all was found; the message says what the source holds.
    """
    if source.is_file():
        items = list(_jsonl_items(source, resolve, settings, agent))
        if not items:
            raise InputError(f"0 runs found: {source} has no submission line (one JSON object "
                             'per line: {"competition_id": ..., "submission_path": ...})')
        return items
    items = list(_Walker(source, resolve, settings).walk())
    if not items:
        raise InputError(f"0 runs found in {source}; expected {EXPECTED_LAYOUT}; "
                         f"{_what_is_there(source)}")
    return items


EXPECTED_LAYOUT = ("<agent>/<task>/<run>/submission.csv (or MLE-bench's "
                   "<group>/<competition>_<uuid>/submission/submission.csv)")


def _what_is_there(root: Path, depth: int = 4, shown: int = 5) -> str:
    """A short account of a folder in which no run was found: a few of its files, or that it
    is empty or holds only folders."""
    files: list[str] = []
    folders = 0
    level = [root]
    for _ in range(depth):
        nxt = []
        for folder in level:
            entries, _problem = _listing(str(folder))
            for e in entries:
                kind = _kind(e)
                if kind == "dir":
                    folders += 1
                    nxt.append(Path(e.path))
                else:
                    files.append(os.path.relpath(e.path, root))
            if len(files) > 100 or len(nxt) > 1000:
                break
        level = nxt
    if not files and not folders:
        return "the folder is empty"
    if not files:
        return f"saw {folders} folder(s) and no file"
    some = ", ".join(report_text(f, 120) for f in files[:shown])
    more = f" and {len(files) - shown} more" if len(files) > shown else ""
    return f"saw {some}{more}"


def _jsonl_items(path: Path, resolve: Resolver, settings: RunSettings,
                 agent: str | None) -> Iterator[RunItem]:
    walker = _Walker(path.parent, resolve, settings)
    default_agent = agent or path.parent.resolve().name or path.stem
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        for lineno, line in enumerate(fh, 1):
            text = line.strip()
            if not text or text.startswith(("#", "//")):
                continue
            run = f"line{lineno}"
            try:  # bounded: a deep or huge-number line is this line's row, not a crash
                entry = parse_json(text, f"{path.name} line {lineno}", bounds=LINE_BOUNDS)
            except MalformedInputError as exc:
                yield walker.unreadable(default_agent, "*", run, str(exc))
                continue
            where = f"{path.name} line {lineno}"
            task = entry.get("competition_id") if isinstance(entry, dict) else None
            given = entry.get("submission_path") if isinstance(entry, dict) else None
            if not isinstance(task, str) or not isinstance(given, str | None) \
                    or "submission_path" not in entry:
                yield walker.unreadable(
                    default_agent, task if isinstance(task, str) else "*", run,
                    f"{where} needs a string competition_id and a string (or null) "
                    "submission_path")
                continue
            who = entry.get("agent_id") or entry.get("agent") or default_agent
            if given is None:  # MLE-bench's make_submission.py: the run made no submission
                yield walker.item(str(who), task, run,
                                  problem=f"{where} gives no submission_path (null)")
                continue
            yield _jsonl_run(walker, str(who), task, run, given, where)


def _jsonl_run(walker: _Walker, agent: str, task: str, run: str, given: str,
               where: str) -> RunItem:
    """One JSONL line's run: the submission as :func:`jsonl_submission` finds it; reports
    show the path as the line gave it."""
    if "\x00" in given:  # no file name holds one (the file system calls refuse it)
        return walker.unreadable(agent, task, run, f"submission_path {report_text(given, 300)} "
                                 "holds a NUL byte; no file has such a name")
    try:
        sub, warning = jsonl_submission(given, walker.root, where)
    except OSError as exc:
        return walker.unreadable(agent, task, run,
                                 f"cannot read {report_text(given, 300)}: {exc.strerror}")
    return walker.item(agent, task, run, submission=sub, warning=warning,
                       submission_shown=report_text(given, 500))


def _present(path: str) -> bool:
    """Whether anything is at ``path`` (a link too: validation refuses it with a message);
    OSError other than a missing file propagates."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def jsonl_submission(given: str, jsonl_dir: Path, where: str) -> tuple[str | None, str | None]:
    """Where a JSONL line's ``submission_path`` is, and a warning when reading it from the
    current folder (as ``mlebench grade`` does) and from the JSONL file's folder differ.

    An absolute path is itself. A relative one is read from the current folder when a file is
    there, else from the JSONL file's folder; the warning says when the other folder holds
    another file of that name, or when only the JSONL's folder holds it (``mlebench grade``
    would find no submission).

    Raises:
        OSError: a path cannot be examined (permissions), other than not existing.
    """
    if os.path.isabs(given):
        return (given if _present(given) else None), None
    here, beside = os.path.abspath(given), os.path.join(os.path.abspath(jsonl_dir), given)
    if here == beside:
        return (here if _present(here) else None), None
    shown = report_text(given, 300)
    if _present(here):
        if _present(beside) and not _same_file(here, beside):
            return here, (f"{where}: {shown} read from the current folder ({os.getcwd()}), as "
                          "mlebench grade reads it; the JSONL file's folder holds another file "
                          "of that name")
        return here, None
    if _present(beside):
        return beside, (f"{where}: {shown} is not in the current folder ({os.getcwd()}), "
                        "where mlebench grade reads it; read from the JSONL file's folder")
    return None, None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
