"""Importer for MLE-Dojo's layout (github:MLE-Dojo/MLE-Dojo).

Layout read; the path given may be the repository root, its ``mledojo/`` package folder or
``mledojo/competitions/`` itself::

    <repo>/mledojo/competitions/<slug>/
        info/description.txt          the competition's pages as plain text
        info/private_leaderboard.csv  Kaggle's final board (rank,score)
        info/public_leaderboard.csv   Kaggle's public board (rank,score)
        utils/metric.py               the grader: parsed with ast, never run
        utils/prepare.py              the data preparation: parsed with ast, never run
    <repo>/prepare/mle.json, prepare/dsbench.json
                                      Kaggle's page metadata per slug: title and tags,
                                      among them Kaggle's own name of the scoring metric

Each competition becomes ``kaggle/<slug>`` (lower-cased). Its metric is decided by
:func:`~tambench.tasks.importers.witnesses.decide_metric` from three witnesses: the
description read by the offline mapper, ``metric.py`` read by :mod:`.grader_reading`, and
Kaggle's metric name through the alias table. A disagreement leaves the grading unset with
every reading named; where ``metric.py`` departs from the published rule (the description
and Kaggle's name agree), the published rule is taken and the departure is a note and a
warning of the task. The submission's columns come from the description's example, else from
the sample submission ``prepare.py`` writes; ``metric.py``'s default target and literal
column lists are checked against them. Both leaderboards are kept in the compact form with
their provenance (the private one is the task's board, the public one is written beside it
as ``leaderboard_public.csv``).

A folder that cannot be read (a text file that is not UTF-8, no ``info/`` folder) is one
failure, named; the other folders are imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tambench.core.leaderboard import Leaderboard
from tambench.core.metrics.aliases import resolve_alias
from tambench.errors import ImportLayoutError
from tambench.schema.taskspec import LeaderboardSource, Modality, Provenance, TaskSpec
from tambench.tasks.importers import ImportedPage, ImportedTask, ImportFailure, TreeRead
from tambench.tasks.importers._common import (
    FOLDER_ERRORS,
    LINKED_FOLDER,
    board_record,
    failure_reason,
    incomplete_reasons,
    read_descriptions,
    read_optional_leaderboard,
    read_text,
    tree_root,
    with_suggested_split,
)
from tambench.tasks.importers.dojo_grading import decide_dojo_grading, with_conventions
from tambench.tasks.importers.grader_reading import GraderReading, read_grader_source
from tambench.tasks.importers.tree_files import PrepareFacts, git_commit, read_json, read_prepare
from tambench.tasks.importers.witnesses import Reading, from_alias
from tambench.tasks.names import default_url

SOURCE = "github:MLE-Dojo/MLE-Dojo"
DESCRIPTION = "info/description.txt"
PRIVATE_BOARD = "info/private_leaderboard.csv"
PUBLIC_BOARD = "info/public_leaderboard.csv"
GRADER = "utils/metric.py"
PREPARE = "utils/prepare.py"
TAG_FILES = ("prepare/mle.json", "prepare/dsbench.json")
PUBLIC_BOARD_FILE = "leaderboard_public.csv"
#: Kaggle's tag for a metric the host wrote: it names no metric.
CUSTOM_METRIC_TAG = "Custom Metric"
#: Kaggle's data-type tags -> modality (a task takes one only when its tags give exactly one).
MODALITY_TAGS = {"Tabular": Modality.TABULAR, "Image": Modality.IMAGE, "Text": Modality.TEXT,
                 "Audio": Modality.AUDIO, "Image Segmentation": Modality.IMAGE,
                 "Text Conversation": Modality.TEXT, "NLP": Modality.TEXT}
MAX_GRADER_BYTES = 400_000


@dataclass(frozen=True)
class DojoTree:
    """Where a tree's parts are."""

    competitions: Path
    repo: Path | None
    commit: str = ""
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Slug -> Kaggle page metadata (title, tags) from the tag files."""


def locate_tree(path: Path) -> tuple[Path, Path | None]:
    """The competitions folder and the repository root (None when not found)."""
    root = tree_root(path)
    for comps, repo in ((root / "mledojo" / "competitions", root),
                        (root / "competitions", root.parent),
                        (root, root.parent.parent)):
        if comps.is_dir() and any((d / DESCRIPTION).is_file() or (d / GRADER).is_file()
                                  for d in comps.iterdir() if d.is_dir()):
            return comps, repo if (repo / "prepare").is_dir() else None
    raise ImportLayoutError(f"{root}: expected MLE-Dojo's repository root, its mledojo/ folder "
                            "or mledojo/competitions/ (folders holding info/description.txt "
                            "and utils/metric.py)")


def read_meta(repo: Path | None, notes: list[str]) -> dict[str, dict[str, Any]]:
    """Slug -> Kaggle metadata from the tag files present (a bad file is a note)."""
    out: dict[str, dict[str, Any]] = {}
    if repo is None:
        notes.append("no prepare/ folder beside the competitions: Kaggle's metric names and "
                     "titles are not read (point at the repository root to get them)")
        return out
    for rel in TAG_FILES:
        path = repo / rel
        if not path.is_file():
            notes.append(f"no {rel}")
            continue
        try:
            data = read_json(path)
        except ImportLayoutError as exc:
            notes.append(f"{rel} not read: {exc}")
            continue
        if not isinstance(data, dict):
            notes.append(f"{rel} not read: expected an object of slugs")
            continue
        for slug, meta in data.items():
            if isinstance(meta, dict):
                out.setdefault(str(slug), meta)
    return out


def _tags(meta: dict[str, Any]) -> list[str]:
    tags = meta.get("tags")
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def kaggle_name_reading(tags: list[str]) -> Reading:
    """Kaggle's metric name among a competition's tags, as a witness."""
    named = [(t, m) for t in tags if (m := resolve_alias(t, "kaggle")) is not None]
    if len(named) == 1:
        return from_alias("Kaggle's name", *named[0])
    if len(named) > 1:
        return Reading("Kaggle's name", None,
                       detail=f"several metric tags {[t for t, _ in named]}")
    if CUSTOM_METRIC_TAG in tags:
        return Reading("Kaggle's name", None, detail=f"{CUSTOM_METRIC_TAG!r} (a host-written "
                       "metric)")
    return Reading("Kaggle's name", None, detail="no metric tag")


def tag_modality(tags: list[str]) -> Modality | None:
    """The modality Kaggle's data-type tags give, when they give exactly one."""
    found = {MODALITY_TAGS[t] for t in tags if t in MODALITY_TAGS}
    return found.pop() if len(found) == 1 else None


@dataclass
class _Folder:
    """What was read from one competition folder."""

    slug: str
    texts: dict[str, str] = field(default_factory=dict)
    grader: GraderReading | None = None
    prepare: PrepareFacts = field(default_factory=PrepareFacts)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _read_folder(folder: Path) -> _Folder:
    if not (folder / "info").is_dir() and not (folder / "utils").is_dir():
        raise ImportLayoutError(f"{folder}: no info/ or utils/ folder")
    f = _Folder(folder.name)
    if (folder / DESCRIPTION).exists():
        f.texts[DESCRIPTION] = read_text(folder / DESCRIPTION)
    else:
        f.warnings.append(f"no {DESCRIPTION}")
    for rel, reader in ((GRADER, "grader"), (PREPARE, "prepare")):
        path = folder / rel
        if not path.exists():
            f.warnings.append(f"no {rel}")
            continue
        if path.stat().st_size > MAX_GRADER_BYTES:
            f.warnings.append(f"{rel} is larger than {MAX_GRADER_BYTES} bytes; not read")
            continue
        source = read_text(path)
        if reader == "grader":
            f.grader = read_grader_source(source)
        else:
            f.prepare = read_prepare(source)
    code = [rel for rel in (GRADER, PREPARE) if (folder / rel).exists()]
    if code:
        f.notes.append(f"MLE-Dojo code read as data, not run: {', '.join(code)}")
    f.notes += _prepare_notes(f.prepare)
    return f


def _prepare_notes(p: PrepareFacts) -> list[str]:
    """What MLE-Dojo's preparation shows literally: a recipe's facts, with their source."""
    facts = [f"reads {', '.join(p.raw_files)} from the raw data" if p.raw_files else "",
             f"splits with train_test_split({', '.join(f'{k}={v}' for k, v in p.split.items())})"
             if p.split else "",
             f"writes answers with columns {p.answers_columns}" if p.answers_columns else ""]
    said = "; ".join(f for f in facts if f)
    return [f"MLE-Dojo's {PREPARE} {said}"] if said else []


def _board_record(tree: DojoTree, slug: str, rel: str, kind: str, lb: Leaderboard,
                  data: bytes, metric: str | None, notes: list[str]) -> LeaderboardSource:
    return board_record(source=SOURCE, commit=tree.commit,
                        path=f"mledojo/competitions/{slug}/{rel}", kind=kind, lb=lb, data=data,
                        metric=metric, notes=notes)


def _boards(tree: DojoTree, folder: Path, metric: str | None, warnings: list[str]
            ) -> tuple[LeaderboardSource | None, Leaderboard | None,
                       tuple[tuple[str, Leaderboard], ...]]:
    """The task's board (private preferred) and the public one written beside it."""
    read = {}
    for rel, kind in ((PRIVATE_BOARD, "private"), (PUBLIC_BOARD, "public")):
        lb, data, why_not = read_optional_leaderboard(folder / rel)
        if lb is None:
            warnings.append(f"{rel}: {why_not}")
        else:
            read[kind] = (rel, lb, data)
    if not read:
        return None, None, ()
    kind = "private" if "private" in read else "public"
    rel, lb, data = read[kind]
    notes = ["MLE-Dojo's copy of the competition's Kaggle leaderboard"]
    extra: tuple[tuple[str, Leaderboard], ...] = ()
    if kind == "private" and "public" in read:
        prel, plb, pdata = read["public"]
        public = _board_record(tree, folder.name, prel, "public", plb, pdata, metric, [])
        notes.append(f"the public board is shipped beside it as {PUBLIC_BOARD_FILE}: "
                     f"{public.source}@{public.commit or 'unknown commit'} {public.path}, "
                     f"{public.rows} rows, sha256 {public.sha256}")
        extra = ((PUBLIC_BOARD_FILE, plb),)
    elif kind == "public":
        notes.append("no private board in the tree: this is Kaggle's public board")
    return _board_record(tree, folder.name, rel, kind, lb, data, metric, notes), lb, extra


def read_competition(tree: DojoTree, folder: Path) -> ImportedTask:
    """One competition folder (see the module docstring)."""
    f = _read_folder(folder)
    slug = folder.name.lower()
    task_id, url = f"kaggle/{slug}", default_url("kaggle", slug)
    meta = tree.meta.get(folder.name, {})
    tags = _tags(meta)
    described = read_descriptions(list(f.texts.items()), task_id, url)
    g = with_conventions(slug, decide_dojo_grading(described, f.grader,
                                                   kaggle_name_reading(tags), f.prepare))
    f.warnings += described.refused.values()
    board, lb, extra = _boards(tree, folder, g.metric, f.warnings)
    notes = [f"imported from MLE-Dojo competition folder {folder.name}", *f.notes]
    if folder.name != slug:
        notes.append(f"id lower-cased from MLE-Dojo's {folder.name!r}")
    if tags:
        notes.append(f"Kaggle's tags: {', '.join(tags)}")
    tagged = tag_modality(tags)
    modality = described.modality or tagged
    if described.modality is None and modality is not None:
        notes.append(f"modality {modality.value} from Kaggle's data-type tag")
    elif tagged is not None and tagged != described.modality:
        notes.append(f"Kaggle's data-type tag says {tagged.value}; the description reads as "
                     f"{modality.value if modality else None}, which is kept")
    title = meta.get("title") if isinstance(meta.get("title"), str) else described.title
    spec = TaskSpec(
        id=task_id, platform="kaggle", url=url, status="incomplete", title=str(title or ""),
        modality=modality, grading=g.grading, leaderboard=board,
        provenance=Provenance(mapper="importer:mle-dojo", notes=notes + g.notes,
                              unfilled=g.unfilled, pending_grading=g.pending))
    spec = with_suggested_split(spec)
    f.warnings += incomplete_reasons(spec)
    pages = tuple(ImportedPage("overview", "description.md", text,
                               f"{folder.name}/{rel}", url) for rel, text in f.texts.items()
                  if text and rel not in described.refused)
    return ImportedTask(spec=spec, leaderboard=lb, pages=pages,
                        warnings=tuple(f.warnings + g.warnings), extra_boards=extra)


def read_mle_dojo(root: Path) -> TreeRead:
    """Every competition of an MLE-Dojo tree, sorted by folder name."""
    comps, repo = locate_tree(Path(root))
    out = TreeRead()
    tree = DojoTree(comps, repo, git_commit(comps), read_meta(repo, out.notes))
    if not tree.commit:
        out.notes.append("the tree is not a git checkout: leaderboard provenance names no "
                         "commit")
    folders = sorted(p for p in comps.iterdir() if p.is_dir() and not p.name.startswith(
        ("_", ".")))
    for folder in folders:
        if folder.is_symlink():
            out.failures.append(ImportFailure(str(folder), LINKED_FOLDER))
            continue
        try:
            out.tasks.append(read_competition(tree, folder))
        except FOLDER_ERRORS as exc:
            out.failures.append(ImportFailure(str(folder), failure_reason(exc)))
    known = {f.name for f in folders}
    orphans = sorted(set(tree.meta) - known)
    if orphans and len(orphans) < len(tree.meta):
        out.notes.append(f"Kaggle metadata for slugs without a folder: {orphans}")
    return out
