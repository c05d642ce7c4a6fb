"""Importer for MLE-bench's layout.

Layout read (``<root>`` is a checkout of the MLE-bench repository, or its competitions folder's
parent)::

    <root>/mlebench/competitions/<id>/   (or <root>/competitions/<id>/)
        config.yaml        id, name, awards_medals, dataset.answers, grader.name, ...
        description.md     the competition's pages as Markdown -> pages/description.md
        leaderboard.csv    the Kaggle leaderboard (any known format; LFS pointers reported)
        grade.py, prepare.py, ...   never imported, never run
    <root>/experiments/splits/{low,medium,high}.txt   complexity labels, one id per line

The YAML is read with ``yaml.safe_load`` only. The labels become ``reference_tiers["mle-bench"]``
(``low``/``medium``/``high`` as written). The grader name is mapped to a registered metric when
one matches (:data:`GRADER_METRICS`, or the name itself with ``-`` as ``_``); otherwise grading
stays unset and the task says why. Imported tasks are ``incomplete``: id and target columns are
only known from the grader's code, which is not read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tambench.errors import ImportLayoutError
from tambench.schema.taskspec import GradingSpec, Provenance, TaskSpec
from tambench.tasks.importers import ImportedPage, ImportedTask
from tambench.tasks.importers._common import read_optional_leaderboard, read_text
from tambench.tasks.names import default_url

REFERENCE_NAME = "mle-bench"
COMPLEXITY_FILES = ("low", "medium", "high")

#: MLE-bench grader names whose tambench metric id differs from the name itself.
GRADER_METRICS: dict[str, str] = {
    "auc-roc": "roc_auc",
    "root_mean_squared_error": "rmse",
    "multi-class-log-loss": "multiclass_log_loss",
    "log-loss": "log_loss",
    "mean_absolute_error": "mae",
}


def find_competitions_dir(root: Path) -> Path:
    """The folder holding one sub-folder per competition."""
    for cand in (root / "mlebench" / "competitions", root / "competitions"):
        if cand.is_dir():
            return cand
    raise ImportLayoutError(f"{root}: expected mlebench/competitions/ or competitions/ with one "
                            "folder per competition")


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


def metric_for_grader(grader: str) -> str | None:
    """The registered metric id of an MLE-bench grader name, or None."""
    from tambench.core.metrics import METRICS

    for cand in (GRADER_METRICS.get(grader), grader.replace("-", "_").lower()):
        if cand and cand in METRICS:
            return cand
    return None


def _config(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        raise ImportLayoutError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ImportLayoutError(f"{path}: expected a mapping, got {type(data).__name__}")
    return data


def read_competition(folder: Path, tier: str | None) -> ImportedTask:
    """One competition folder."""
    cfg_path = folder / "config.yaml"
    cfg = _config(cfg_path)
    cid = cfg.get("id")
    if not isinstance(cid, str) or not cid:
        raise ImportLayoutError(f"{cfg_path}: expected a string 'id', got {cid!r}")
    if cid != folder.name:
        raise ImportLayoutError(f"{cfg_path}: id {cid!r} differs from its folder {folder.name!r}")
    name = cfg.get("name") if isinstance(cfg.get("name"), str) else ""
    warnings: list[str] = []
    notes = [f"imported from MLE-bench competition folder {folder.name}"]
    unfilled = ["split"]
    grader = (cfg.get("grader") or {}).get("name") if isinstance(cfg.get("grader"), dict) else None
    grading = None
    if isinstance(grader, str) and grader:
        metric = metric_for_grader(grader)
        if metric:
            grading = GradingSpec(metric=metric)
            notes.append(f"MLE-bench grader {grader!r} -> metric {metric}")
        else:
            warnings.append(f"grader {grader!r} has no registered tambench metric")
            notes.append(f"MLE-bench grader {grader!r}: no registered equivalent")
            unfilled.append("grading")
    else:
        warnings.append("config.yaml names no grader")
        unfilled.append("grading")
    raw_dataset = cfg.get("dataset")
    dataset: dict[str, Any] = raw_dataset if isinstance(raw_dataset, dict) else {}
    if dataset.get("answers"):
        notes.append(f"MLE-bench answers file: {dataset['answers']}")
    if cfg.get("awards_medals") is False:
        notes.append("MLE-bench: awards_medals is false for this competition")
    code = sorted(p.name for p in folder.glob("*.py"))
    if code:
        notes.append(f"MLE-bench code not run: {', '.join(code)}")
    pages: list[ImportedPage] = []
    desc = folder / "description.md"
    url = default_url("kaggle", cid)
    if desc.exists():
        pages.append(ImportedPage("overview", "description.md", read_text(desc),
                                  f"{folder.name}/description.md", url))
    else:
        warnings.append("no description.md")
    lb, why_not = read_optional_leaderboard(folder / "leaderboard.csv")
    if why_not:
        warnings.append(why_not)
    if tier is None:
        warnings.append("no complexity label in experiments/splits")
    spec = TaskSpec(
        id=f"kaggle/{cid}",
        platform="kaggle",
        url=url,
        title=name,
        status="incomplete",
        n_teams=len(lb) if lb is not None else None,
        grading=grading,
        reference_tiers={REFERENCE_NAME: tier} if tier else {},
        provenance=Provenance(mapper="importer:mle-bench", notes=notes, unfilled=unfilled),
    )
    return ImportedTask(spec=spec, leaderboard=lb, pages=tuple(pages), warnings=tuple(warnings))


def read_mle_bench(root: Path) -> list[ImportedTask]:
    """Every competition of an MLE-bench tree, sorted by id."""
    comps = find_competitions_dir(Path(root))
    splits = Path(root) / "experiments" / "splits"
    labels = read_complexity(splits) if splits.is_dir() else {}
    folders = sorted(p for p in comps.iterdir() if p.is_dir() and (p / "config.yaml").is_file())
    if not folders:
        raise ImportLayoutError(f"{comps} has no competition folder with a config.yaml")
    tasks = [read_competition(f, labels.get(f.name)) for f in folders]
    known = {f.name for f in folders}
    orphans = sorted(set(labels) - known)
    if orphans and tasks:
        first = tasks[0]
        extra = (f"complexity labels for competitions without a folder: {orphans}",)
        tasks[0] = ImportedTask(first.spec, first.leaderboard, first.pages,
                                first.warnings + extra)
    if not splits.is_dir():
        first = tasks[0]
        tasks[0] = ImportedTask(first.spec, first.leaderboard, first.pages, first.warnings
                                + (f"no {splits} folder: no complexity labels imported",))
    return tasks
