"""Importer for MLE-bench's layout.

Layout read; the path given may be the repository root, its ``mlebench/`` package folder or
``mlebench/competitions/`` itself::

    <repo>/mlebench/competitions/<id>/
        config.yaml        id, name, awards_medals, dataset.answers, grader.name, ...
        description.md     the competition's pages as Markdown -> pages/description.md
        description_obfuscated.md   MLE-bench's rewrite of them, read for what the first lacks
        leaderboard.csv    the Kaggle leaderboard (any known format; LFS pointers reported)
        grade.py, prepare.py, ...   never imported, never run; a module-level list of
                           class names (dogs.py, classes.py) is read as data to complete a
                           header the description elides
    <repo>/experiments/splits/{low,medium,high}.txt   complexity labels, one id per line

dslighting's registry (github:usail-hkust/dslighting) uses the same layout under
``<repo>/dslighting/registry/<id>/`` (the repository root, ``dslighting/`` or the registry
folder may be given), with these differences: no complexity labels; grader names of its own
beside MLE-bench's (alias source ``dslighting``, falling back to MLE-bench's names); tasks that
are not Kaggle competitions (DABench's ``dabench-*`` and ScienceAgentBench's
``sciencebench-*`` take those platforms; other tasks without a real Kaggle board take the
platform ``dslighting``); package helper folders without a ``config.yaml`` or a description
(``instant_gratification/``), listed and skipped; and invented leaderboards: boards whose every
row is dated at exactly midnight (a handful of rows on consecutive days) are reported and not
shipped.

The YAML is read with the safe loader only, its aliases bounded (an alias bomb is that folder's
failure). Each competition becomes ``kaggle/<id>`` with
the id lower-cased (catalogue ids are lower-case slugs: ``AI4Code`` is ``kaggle/ai4code``).
What each task gets:

* its grading, decided by :func:`~tambench.tasks.importers._common.decide_grading`: the grader
  name through the alias table, cross-checked against ``description.md`` read by the offline
  mapper, which also gives the id and target columns and the exact header;
* its modality and title from the description; a suggested split
  (:func:`tambench.schema.suggest.suggest_split_spec`, recorded as a suggestion);
* its leaderboard, normalised, with its provenance; the complexity label as
  ``reference_tiers["mle-bench"]`` (``low``/``medium``/``high`` as written);
* ``complete`` status when all of that is there (:mod:`tambench.schema.complete`).

A folder that cannot be read (bad YAML, no config, a non-UTF-8 file) is one failure of the
import, named with its reason; the other folders are imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tambench.core.layout import LEADERBOARD_FILE
from tambench.core.leaderboard import Leaderboard
from tambench.core.metrics.aliases import Source
from tambench.errors import ImportLayoutError
from tambench.schema.taskspec import GradingSpec, LeaderboardSource, Provenance, TaskSpec
from tambench.tasks.importers import ImportedPage, ImportedTask, ImportFailure, TreeRead
from tambench.tasks.importers._common import (
    FOLDER_ERRORS,
    LINKED_FOLDER,
    Description,
    GradingDecision,
    board_record,
    decide_grading,
    failure_reason,
    incomplete_reasons,
    placeholder_board,
    read_descriptions,
    read_optional_leaderboard,
    read_text,
    tree_root,
    with_suggested_split,
)
from tambench.tasks.importers.class_lists import complete_header
from tambench.tasks.importers.conventions import apply_conventions, settled_by_table
from tambench.tasks.importers.tree_files import git_commit, read_yaml
from tambench.tasks.names import default_url

REFERENCE_NAME = "mle-bench"
COMPLEXITY_FILES = ("low", "medium", "high")
CONFIG_FILE = "config.yaml"
DESCRIPTION_FILE = "description.md"
#: MLE-bench's rewrite of the same pages; read after description.md, for what it lacks.
REWRITTEN_DESCRIPTION_FILE = "description_obfuscated.md"
#: Largest Python file read for a class list.
MAX_CLASS_LIST_BYTES = 2_000_000


@dataclass(frozen=True)
class Layout:
    """Which benchmark's tree this is: MLE-bench's or dslighting's registry."""

    name: str
    """The importer's name for it (``importer:<name>`` in provenance)."""
    title: str
    """How notes name it."""
    repository: str
    """The public repository, as leaderboard provenance names it."""
    prefix: str
    """The competitions folder inside that repository."""
    alias_source: Source


MLE_BENCH = Layout("mle-bench", "MLE-bench", "github:openai/mle-bench", "mlebench/competitions",
                   "mle-bench")
DSLIGHTING = Layout("dslighting", "dslighting", "github:usail-hkust/dslighting",
                    "dslighting/registry", "dslighting")
#: dslighting task ids of other benchmarks than Kaggle -> their platform.
OTHER_PLATFORMS = {"dabench-": "dabench", "sciencebench-": "sciencebench"}
#: dslighting's registry README lists the ids of its time-series datasets in a table under a
#: heading naming this benchmark; those tasks take its name as their platform.
README_BENCHMARKS = {"DSAgentBench": "dsagentbench"}
#: ``competition_type`` values of tasks dslighting defines itself (not Kaggle's).
OWN_TASK_TYPES = frozenset({"generic", "open_ended"})
_KAGGLE_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def locate_tree(path: Path) -> tuple[Path, Path | None, Layout]:
    """The competitions folder, the complexity-labels folder (None when absent) and the layout.

    Accepts MLE-bench's repository root, ``mlebench/`` and ``mlebench/competitions/``, and
    dslighting's repository root, ``dslighting/`` and ``dslighting/registry/``.
    """
    root = tree_root(path)
    candidates = [(root / "mlebench" / "competitions", root, MLE_BENCH),
                  (root / "dslighting" / "registry", root, DSLIGHTING),
                  (root / "registry", root.parent, DSLIGHTING),
                  (root / "competitions", root.parent, MLE_BENCH),
                  (root, root.parent.parent,
                   DSLIGHTING if root.name == "registry" else MLE_BENCH)]
    for comps, repo, layout in candidates:
        if comps.is_dir() and any((d / CONFIG_FILE).is_file() for d in comps.iterdir()
                                  if d.is_dir()):
            splits = repo / "experiments" / "splits"
            return comps, splits if splits.is_dir() else None, layout
    raise ImportLayoutError(f"{root}: expected MLE-bench's repository root, its mlebench/ "
                            "folder or mlebench/competitions/, or dslighting's repository "
                            "root, dslighting/ or dslighting/registry/ (folders holding "
                            "config.yaml)")


def read_complexity(splits_dir: Path) -> dict[str, str]:
    """Competition id -> low/medium/high from the split files present."""
    out: dict[str, str] = {}
    for label in COMPLEXITY_FILES:
        path = splits_dir / f"{label}.txt"
        if not path.exists():
            continue
        for lineno, line in enumerate(read_text(path).splitlines(), start=1):
            cid = line.strip()
            if not cid or cid.startswith("#"):
                continue
            if cid in out:
                raise ImportLayoutError(f"{path} line {lineno}: {cid} is already labelled "
                                        f"{out[cid]!r}")
            out[cid] = label
    return out


def read_config(folder: Path) -> dict[str, Any]:
    """A competition's config.yaml, checked: a mapping whose ``id`` is the folder's name."""
    path = folder / CONFIG_FILE
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ImportLayoutError(f"{path}: expected a mapping, got {type(data).__name__}")
    cid = data.get("id")
    if not isinstance(cid, str) or not cid:
        raise ImportLayoutError(f"{path}: expected a string 'id', got {cid!r}")
    if cid != folder.name:
        raise ImportLayoutError(f"{path}: id {cid!r} differs from its folder {folder.name!r}")
    return data


def grader_name(cfg: dict[str, Any]) -> str | None:
    """The config's ``grader.name``, when it is a non-empty string."""
    grader = cfg.get("grader")
    name = grader.get("name") if isinstance(grader, dict) else None
    return name if isinstance(name, str) and name.strip() else None


def _config_notes(folder: Path, cfg: dict[str, Any], layout: Layout) -> list[str]:
    notes = [f"imported from {layout.title} competition folder {folder.name}"]
    dataset = cfg.get("dataset") if isinstance(cfg.get("dataset"), dict) else {}
    if isinstance(dataset, dict) and dataset.get("answers"):
        notes.append(f"{layout.title} answers file: {dataset['answers']}")
    if cfg.get("awards_medals") is False:
        notes.append(f"{layout.title}: awards_medals is false for this competition")
    code = sorted(p.name for p in folder.glob("*.py"))
    if code:
        notes.append(f"{layout.title} code not run: {', '.join(code)}")
    return notes


def _board_record(folder: Path, lb: Leaderboard, data: bytes, decision: GradingDecision,
                  where: tuple[Layout, str]) -> LeaderboardSource:
    layout, commit = where
    return board_record(
        source=layout.repository, commit=commit,
        path=f"{layout.prefix}/{folder.name}/{LEADERBOARD_FILE}", lb=lb, data=data,
        metric=decision.grading.metric if decision.grading is not None else None,
        notes=[f"{layout.title}'s copy of the competition's leaderboard, read from a local "
               "checkout"])


def readme_platforms(comps: Path) -> dict[str, str]:
    """Task id -> platform, from the registry README's tables under a heading naming one of
    :data:`README_BENCHMARKS` (first column of each table row)."""
    path = comps / "README.md"
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    current: str | None = None
    for line in read_text(path).splitlines():
        if line.startswith("#"):
            current = next((p for name, p in README_BENCHMARKS.items() if name in line), None)
        elif current and line.startswith("|"):
            first = line.strip("|").split("|")[0].strip()
            if _KAGGLE_SLUG.match(first):
                out[first] = current
    return out


def _platform(cfg: dict[str, Any], layout: Layout, listed: dict[str, str]) -> tuple[str, str]:
    """(platform, why) of a task: Kaggle for MLE-bench; for dslighting, the benchmark a
    prefixed or README-listed id comes from, ``dslighting`` for a task it defines itself
    (its competition_type or task_type says so, or the id is no Kaggle slug), else Kaggle."""
    cid = str(cfg["id"])
    if layout is MLE_BENCH:
        return "kaggle", ""
    for prefix, platform in OTHER_PLATFORMS.items():
        if cid.startswith(prefix):
            return platform, f"a {platform} task (its id starts with {prefix!r})"
    if cid in listed:
        return listed[cid], f"listed as a {listed[cid]} dataset in dslighting's registry README"
    kind, task_type = cfg.get("competition_type"), cfg.get("task_type")
    if kind in OWN_TASK_TYPES or (task_type is not None and task_type != "kaggle") or \
            not _KAGGLE_SLUG.match(cid.lower()) or grader_name(cfg) is None:
        return "dslighting", (f"a task dslighting defines itself (competition_type {kind!r}, "
                              f"task_type {task_type!r}, grader {grader_name(cfg)!r})")
    return "kaggle", "" if task_type == "kaggle" else ("taken for the Kaggle competition of "
                                                       "this slug")


def read_competition(folder: Path, tier: str | None, layout: Layout = MLE_BENCH,
                     commit: str = "", listed: dict[str, str] | None = None) -> ImportedTask:
    """One competition folder (see the module docstring)."""
    cfg = read_config(folder)
    cid = str(cfg["id"])
    notes = _config_notes(folder, cfg, layout)
    warnings: list[str] = []
    lb, data, why_not = read_optional_leaderboard(folder / LEADERBOARD_FILE)
    invented = placeholder_board(lb) if lb is not None else None
    if invented:
        lb, why_not = None, f"{LEADERBOARD_FILE} not shipped: {invented}"
    platform, why = _platform(cfg, layout, listed or {})
    slug = cid.lower()
    task_id, url = f"{platform}/{slug}", default_url(platform, slug)
    notes += [why] if why else []
    if cid != slug:
        notes.append(f"id lower-cased from {layout.title}'s {cid!r}")
    texts = {n: read_text(folder / n) for n in (DESCRIPTION_FILE, REWRITTEN_DESCRIPTION_FILE)
             if (folder / n).exists()}
    if DESCRIPTION_FILE not in texts:
        warnings.append(f"no {DESCRIPTION_FILE}")
    described = _with_class_list(read_descriptions(list(texts.items()), task_id, url),
                                 folder, texts)
    warnings += described.refused.values()
    decision = decide_grading(grader_name(cfg), layout.alias_source, described)
    if platform == "kaggle":
        decision = _with_conventions(cid, decision, cfg)
    warnings += decision.warnings + ([why_not] if why_not else [])
    if tier is None and layout is MLE_BENCH:
        warnings.append("no complexity label in experiments/splits")
    name = cfg.get("name") if isinstance(cfg.get("name"), str) else ""
    board = _board_record(folder, lb, data, decision, (layout, commit)) if lb else None
    spec = TaskSpec(
        id=task_id, platform=platform, url=url, status="incomplete",
        title=str(name or described.title), modality=described.modality,
        grading=decision.grading, leaderboard=board,
        reference_tiers={REFERENCE_NAME: tier} if tier else {},
        provenance=Provenance(mapper=f"importer:{layout.name}", notes=notes + decision.notes,
                              unfilled=decision.unfilled),
    )
    spec = with_suggested_split(spec)
    warnings += incomplete_reasons(spec)
    pages = tuple(ImportedPage("overview" if n == DESCRIPTION_FILE else "other", n, text,
                               f"{folder.name}/{n}", url) for n, text in texts.items()
                  if text and n not in described.refused)
    return ImportedTask(spec=spec, leaderboard=lb, pages=pages, warnings=tuple(warnings))


def _with_conventions(cid: str, decision: GradingDecision, cfg: dict[str, Any]
                      ) -> GradingDecision:
    """The decision with the competition's conventions (:mod:`.conventions`) and MLE-bench's
    answers file name; a grading the conventions build is no longer left for review."""
    grading, notes = apply_conventions(cid, decision.grading)
    warnings, unfilled = list(decision.warnings), list(decision.unfilled)
    if decision.grading is None and grading is not None:
        warnings, unfilled = settled_by_table(warnings, unfilled, "grading left unset for review")
    return replace(decision, grading=_answers_file(grading, cfg),
                   notes=[*decision.notes, *notes], warnings=warnings, unfilled=unfilled)


def _answers_file(grading: GradingSpec | None, cfg: dict[str, Any]) -> GradingSpec | None:
    """The grading with MLE-bench's answers file name (config ``dataset.answers``), so the
    task reads MLE-bench's prepared answers as they are."""
    dataset = cfg.get("dataset")
    name = dataset.get("answers") if isinstance(dataset, dict) else None
    if grading is None or not isinstance(name, str) or not name.strip():
        return grading
    return grading.model_copy(update={"answers_file": Path(name).name})


def _with_class_list(described: Description, folder: Path, texts: dict[str, str]
                     ) -> Description:
    """The description with its elided header completed from a class list in the folder's
    Python files (read as data, see :mod:`.class_lists`), when exactly one fits."""
    if described.header:
        return described
    sources = {p.name: read_text(p) for p in sorted(folder.glob("*.py"))
               if p.is_file() and p.stat().st_size <= MAX_CLASS_LIST_BYTES}
    lines = [line for text in texts.values() for line in text.splitlines()]
    found = complete_header(lines, sources)
    if found is None:
        return described
    return replace(described, id_columns=found.id_columns, target_columns=found.classes,
                   header=found.header,
                   columns_from=f"the description's elided header, completed with the "
                                f"{len(found.classes)} names of {found.source}")


def read_mle_bench(root: Path) -> TreeRead:
    """Every competition of an MLE-bench (or dslighting) tree, sorted by folder name."""
    comps, splits, layout = locate_tree(Path(root))
    out = TreeRead()
    labels: dict[str, str] = {}
    if splits is not None:
        labels = read_complexity(splits)
    elif layout is MLE_BENCH:
        out.notes.append("no experiments/splits folder beside the competitions: no complexity "
                         "labels imported (point at the repository root to get them)")
    commit = git_commit(comps)
    listed = readme_platforms(comps) if layout is DSLIGHTING else {}
    folders = sorted(p for p in comps.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    helpers = [f.name for f in folders if not (f / CONFIG_FILE).is_file()
               and not (f / DESCRIPTION_FILE).is_file()]
    if helpers:
        out.notes.append(f"folders without {CONFIG_FILE} or {DESCRIPTION_FILE}, skipped as not "
                         f"competitions: {helpers}")
    for folder in folders:
        if folder.name in helpers:
            continue
        if folder.is_symlink():
            out.failures.append(ImportFailure(str(folder), LINKED_FOLDER))
            continue
        if not (folder / CONFIG_FILE).is_file():
            out.failures.append(ImportFailure(str(folder), f"no {CONFIG_FILE}"))
            continue
        try:
            out.tasks.append(read_competition(folder, labels.get(folder.name), layout, commit,
                                              listed))
        except FOLDER_ERRORS as exc:
            out.failures.append(ImportFailure(str(folder), failure_reason(exc)))
    orphans = sorted(set(labels) - {f.name for f in folders})
    if orphans:
        out.notes.append(f"complexity labels for competitions without a folder: {orphans}")
    return out
