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

The YAML is read with ``yaml.safe_load`` only. Each competition becomes ``kaggle/<id>`` with
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

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from tambench.core.layout import LEADERBOARD_FILE
from tambench.core.leaderboard import Leaderboard
from tambench.errors import ImportLayoutError, TaskSpecError
from tambench.schema.complete import status_for
from tambench.schema.suggest import suggest_split_spec
from tambench.schema.taskspec import GradingSpec, LeaderboardSource, Provenance, TaskSpec
from tambench.tasks.importers import ImportedPage, ImportedTask, ImportFailure, TreeRead
from tambench.tasks.importers._common import (
    Description,
    GradingDecision,
    decide_grading,
    read_descriptions,
    read_optional_leaderboard,
    read_text,
)
from tambench.tasks.importers.class_lists import complete_header
from tambench.tasks.importers.conventions import apply_conventions
from tambench.tasks.leaderboards import record_scale, source_sha256
from tambench.tasks.names import default_url

REFERENCE_NAME = "mle-bench"
COMPLEXITY_FILES = ("low", "medium", "high")
CONFIG_FILE = "config.yaml"
DESCRIPTION_FILE = "description.md"
#: MLE-bench's rewrite of the same pages; read after description.md, for what it lacks.
REWRITTEN_DESCRIPTION_FILE = "description_obfuscated.md"
#: Largest Python file read for a class list.
MAX_CLASS_LIST_BYTES = 2_000_000


def locate_tree(path: Path) -> tuple[Path, Path | None]:
    """The competitions folder and the complexity-labels folder (None when absent).

    Accepts the repository root, ``mlebench/`` and ``mlebench/competitions/``.
    """
    root = Path(path)
    candidates = [(root / "mlebench" / "competitions", root),
                  (root / "competitions", root.parent),
                  (root, root.parent.parent)]
    for comps, repo in candidates:
        if comps.is_dir() and any((d / CONFIG_FILE).is_file() for d in comps.iterdir()
                                  if d.is_dir()):
            splits = repo / "experiments" / "splits"
            return comps, splits if splits.is_dir() else None
    raise ImportLayoutError(f"{root}: expected MLE-bench's repository root, its mlebench/ "
                            "folder or mlebench/competitions/ (folders holding config.yaml)")


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
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        raise ImportLayoutError(f"{path} is not valid YAML: {exc}") from exc
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


def _config_notes(folder: Path, cfg: dict[str, Any]) -> list[str]:
    notes = [f"imported from MLE-bench competition folder {folder.name}"]
    dataset = cfg.get("dataset") if isinstance(cfg.get("dataset"), dict) else {}
    if isinstance(dataset, dict) and dataset.get("answers"):
        notes.append(f"MLE-bench answers file: {dataset['answers']}")
    if cfg.get("awards_medals") is False:
        notes.append("MLE-bench: awards_medals is false for this competition")
    code = sorted(p.name for p in folder.glob("*.py"))
    if code:
        notes.append(f"MLE-bench code not run: {', '.join(code)}")
    return notes


def _board_record(folder: Path, lb: Leaderboard, data: bytes,
                  decision: GradingDecision) -> LeaderboardSource:
    scale = record_scale(decision.grading.metric) if decision.grading is not None else {}
    return LeaderboardSource.model_validate({
        "source": "mle-bench",
        "path": f"mlebench/competitions/{folder.name}/{LEADERBOARD_FILE}",
        "kind": "unknown", "rows": len(lb), "sha256": source_sha256(data),
        "notes": ["MLE-bench's copy of the competition's Kaggle leaderboard, read from a local "
                  "checkout"], **scale})


def read_competition(folder: Path, tier: str | None) -> ImportedTask:
    """One competition folder (see the module docstring)."""
    cfg = read_config(folder)
    cid = str(cfg["id"])
    task_id = f"kaggle/{cid.lower()}"
    url = default_url("kaggle", cid.lower())
    notes = _config_notes(folder, cfg)
    warnings: list[str] = []
    if cid != cid.lower():
        notes.append(f"id lower-cased from MLE-bench's {cid!r}")
    texts = {n: read_text(folder / n) for n in (DESCRIPTION_FILE, REWRITTEN_DESCRIPTION_FILE)
             if (folder / n).exists()}
    if DESCRIPTION_FILE not in texts:
        warnings.append(f"no {DESCRIPTION_FILE}")
    described = _with_class_list(read_descriptions(list(texts.items()), task_id, url),
                                 folder, texts)
    decision = decide_grading(grader_name(cfg), "mle-bench", described)
    decision = _with_conventions(cid, decision, cfg)
    lb, data, why_not = read_optional_leaderboard(folder / LEADERBOARD_FILE)
    warnings += decision.warnings + ([why_not] if why_not else [])
    if tier is None:
        warnings.append("no complexity label in experiments/splits")
    name = cfg.get("name") if isinstance(cfg.get("name"), str) else ""
    spec = TaskSpec(
        id=task_id, platform="kaggle", url=url, status="incomplete",
        title=str(name or described.title),
        modality=described.modality,
        grading=decision.grading,
        leaderboard=_board_record(folder, lb, data, decision) if lb is not None else None,
        reference_tiers={REFERENCE_NAME: tier} if tier else {},
        provenance=Provenance(mapper="importer:mle-bench", notes=notes + decision.notes,
                              unfilled=decision.unfilled),
    )
    spec = _with_suggested_split(spec)
    pages = tuple(ImportedPage("overview" if n == DESCRIPTION_FILE else "other", n, text,
                               f"{folder.name}/{n}", url) for n, text in texts.items() if text)
    return ImportedTask(spec=spec, leaderboard=lb, pages=pages, warnings=tuple(warnings))


def _with_conventions(cid: str, decision: GradingDecision, cfg: dict[str, Any]
                      ) -> GradingDecision:
    """The decision with the competition's conventions (:mod:`.conventions`) and MLE-bench's
    answers file name; a grading the conventions build is no longer left for review."""
    grading, notes = apply_conventions(cid, decision.grading)
    built = decision.grading is None and grading is not None
    settled = "grading settled by tambench's conventions table (see the notes)"
    return replace(
        decision, grading=_answers_file(grading, cfg), notes=[*decision.notes, *notes],
        warnings=[w.replace("grading left unset for review", settled) if built else w
                  for w in decision.warnings],
        unfilled=[u for u in decision.unfilled if not (built and u.startswith("grading"))])


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


def _with_suggested_split(spec: TaskSpec) -> TaskSpec:
    """The spec with a suggested split (when it can be split by rows) and its final status."""
    split = suggest_split_spec(spec)
    update: dict[str, Any] = {}
    if split is not None:
        update["split"] = split
        update["provenance"] = spec.provenance.model_copy(update={"notes": [
            *spec.provenance.notes, f"split suggested ({split.strategy}, test size "
            f"{split.test_size}, seed {split.seed}) from the grading spec; review it"]})
    spec = spec.model_copy(update=update)
    return spec.model_copy(update={"status": status_for(spec)})


def read_mle_bench(root: Path) -> TreeRead:
    """Every competition of an MLE-bench tree, sorted by folder name."""
    comps, splits = locate_tree(Path(root))
    out = TreeRead()
    labels: dict[str, str] = {}
    if splits is None:
        out.notes.append("no experiments/splits folder beside the competitions: no complexity "
                         "labels imported (point at the repository root to get them)")
    else:
        labels = read_complexity(splits)
    folders = sorted(p for p in comps.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    for folder in folders:
        if not (folder / CONFIG_FILE).is_file():
            out.failures.append(ImportFailure(str(folder), f"no {CONFIG_FILE}"))
            continue
        try:
            out.tasks.append(read_competition(folder, labels.get(folder.name)))
        except (ImportLayoutError, TaskSpecError, OSError) as exc:
            out.failures.append(ImportFailure(str(folder), str(exc)))
    orphans = sorted(set(labels) - {f.name for f in folders})
    if orphans:
        out.notes.append(f"complexity labels for competitions without a folder: {orphans}")
    return out
