"""Importer for the paper's public release (TAM-Bench Lite), in either of its two layouts.

The release repository::

    <root>/<Modality>/<difficulty>/
        input/<competition name>.json | .txt   the paper's schema (JSON text in both cases)
        evaluation/leaderboard.csv              the private leaderboard (any known format)
        evaluation/*.py                         never read, never run

``<Modality>`` is one of Tabular, Text, Image, Audio, Graph, MultiModal (case and punctuation
ignored); ``<difficulty>`` is easy, medium or hard and becomes the reference tier
``tam-bench``. Top-level folders that are not modalities (``picture/``, ``.git``) and files
are ignored.

The flat copy (one folder per task, as ``../shared/data/tam-lite`` holds it)::

    <root>/<slug>/schema.json, leaderboard.csv

Here the modality is the schema's ``data_information.data_type`` and no tier is known.

Each task's grading: the schema's ``metric.metric_name`` through the alias table (source
``tam-bench``), cross-checked against the schema's own text read by the offline mapper, which
also gives the submission's columns from ``output_format``. The submission's file format is
JSON when the output format says so, a line file for ``.txt``, CSV otherwise. A cell or folder
that cannot be read is one failure, named; the others are imported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from tambench.core.bounded import parse_json
from tambench.core.layout import LEADERBOARD_FILE
from tambench.core.leaderboard import Leaderboard
from tambench.errors import ImportLayoutError, TaskSpecError
from tambench.schema.complete import status_for
from tambench.schema.io import from_paper
from tambench.schema.suggest import suggest_split_spec
from tambench.schema.taskspec import (
    LeaderboardSource,
    Modality,
    Provenance,
    SubmissionFormat,
)
from tambench.tasks.importers import ImportedTask, ImportFailure, TreeRead
from tambench.tasks.importers._common import (
    FOLDER_ERRORS,
    board_record,
    decide_grading,
    failure_reason,
    read_descriptions,
    read_optional_leaderboard,
    read_text,
    tree_root,
)
from tambench.tasks.names import default_url, resolve_name

REFERENCE_NAME = "tam-bench"
TIERS = ("easy", "medium", "hard")
FLAT_SCHEMA_FILE = "schema.json"
_MODALITIES = {re.sub(r"[^a-z]", "", m.value.lower()): m for m in Modality}


def parse_modality(text: str) -> Modality | None:
    """The modality a release folder (or a schema's data_type) stands for, or None.

    >>> parse_modality("MultiModal"), parse_modality("Multi-Modal"), parse_modality("picture")
    (<Modality.MULTIMODAL: 'Multimodal'>, <Modality.MULTIMODAL: 'Multimodal'>, None)
    """
    return _MODALITIES.get(re.sub(r"[^a-z]", "", text.lower()))


def submission_format_of(output_format: str) -> SubmissionFormat:
    """The file format an ``output_format`` text describes.

    >>> submission_format_of("A JSON object where each key is a paper ID").value
    'json'
    >>> submission_format_of("A .txt file where each line contains 20 paper IDs").value
    'txt'
    """
    text = output_format.lower()
    if re.search(r"\bjson\b", text):
        return SubmissionFormat.JSON
    if ".txt" in text or "each line" in text:
        return SubmissionFormat.TXT
    return SubmissionFormat.CSV


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _schema_markdown(data: dict[str, Any], title: str) -> str:
    """The schema's text as one Markdown page, in the sections the mapper reads.

    The release writes line breaks inside ``output_format`` as the two characters ``\\n``
    (``"id,value\\n1_1_1,1"``); they are read as the line breaks they stand for.
    """
    metric, info = _section(data, "metric"), _section(data, "data_information")
    parts = [f"# {title}", "## Overview", str(data.get("goal_description", "")),
             "## Evaluation", f"{metric.get('metric_name', '')}. {metric.get('metric_formula', '')}",
             "## Submission File",
             "The file should contain a header and have the following format:",
             "```\n" + str(data.get("output_format", "")).replace("\\n", "\n") + "\n```",
             "## Data", f"Data type: {info.get('data_type', '')}"]
    for part in ("train", "test", "inference"):
        loc = _section(info, part)
        if loc.get("data_location"):
            parts.append(f"- {loc['data_location']} - {loc.get('data_description', '')}")
    return "\n\n".join(parts) + "\n"


def _read_schema(src: Path) -> dict[str, Any]:
    data = parse_json(read_text(src), str(src), error=ImportLayoutError)
    if not isinstance(data, dict):
        raise ImportLayoutError(f"{src}: expected a JSON object, got {type(data).__name__}")
    return data


def _board_record(where: str, lb: Leaderboard, data: bytes, metric: str | None
                  ) -> LeaderboardSource:
    return board_record(source="tam-bench", path=where, lb=lb, data=data, metric=metric,
                        notes=["the TAM-Bench release's copy of the competition's leaderboard"])


def build_task(data: dict[str, Any], name: str, *, modality: Modality | None, tier: str | None,
               board: Path, where: str, board_where: str, code: list[str]) -> ImportedTask:
    """One task from its paper schema (see the module docstring)."""
    named = resolve_name(name)
    url = named.url or default_url(named.platform, named.slug)
    metric = _section(data, "metric")
    output_format = str(data.get("output_format", ""))
    described = read_descriptions([(where, _schema_markdown(data, name))], named.task_id, url)
    decision = decide_grading(str(metric.get("metric_name", "")) or None, "tam-bench", described,
                              submission_format=submission_format_of(output_format))
    lb, raw, why_not = read_optional_leaderboard(board)
    notes = [f"imported from the paper's release ({where})", *decision.notes]
    if named.note:
        notes.append(f"id mapping: {named.note}")
    if code:
        notes.append(f"release scripts not run: {', '.join(code)}")
    try:
        spec = from_paper(
            data, named.task_id, title=name, url=url, status="incomplete",
            modality=modality or described.modality, n_teams=len(lb) if lb is not None else None,
            grading=decision.grading,
            leaderboard=_board_record(board_where, lb, raw,
                                      decision.grading.metric if decision.grading else None)
            if lb is not None else None,
            reference_tiers={REFERENCE_NAME: tier} if tier else {},
            provenance=Provenance(mapper="importer:tam-lite", notes=notes,
                                  unfilled=decision.unfilled))
    except TaskSpecError as exc:
        raise ImportLayoutError(f"{where}: {exc}") from exc
    split = suggest_split_spec(spec)
    if split is not None:
        spec = spec.model_copy(update={"split": split})
    spec = spec.model_copy(update={"status": status_for(spec)})
    warnings = [*decision.warnings, *([why_not] if why_not else [])]
    if tier is None:
        warnings.append("this layout gives no tier")
    return ImportedTask(spec=spec, leaderboard=lb, warnings=tuple(warnings))


def read_cell(cell: Path, modality: Modality) -> ImportedTask:
    """The task of one ``<Modality>/<difficulty>`` folder of the release."""
    if cell.name.lower() not in TIERS:
        raise ImportLayoutError(f"{cell}: expected a difficulty folder (easy, medium, hard), "
                                f"got {cell.name!r}")
    input_dir = cell / "input"
    if not input_dir.is_dir():
        raise ImportLayoutError(f"{cell} has no input/ folder")
    inputs = sorted(p for p in input_dir.iterdir() if p.suffix in {".json", ".txt"})
    if len(inputs) != 1:
        raise ImportLayoutError(f"{input_dir}: expected exactly one .json or .txt task file, "
                                f"got {[p.name for p in inputs]}")
    src = inputs[0]
    if src.stem.lower() == "input":
        raise ImportLayoutError(f"{src}: the file is not named after its competition, so the "
                                "task cannot be identified; rename it to the competition's name")
    code = sorted(p.name for p in (cell / "evaluation").glob("*.py"))
    return build_task(_read_schema(src), src.stem, modality=modality, tier=cell.name.lower(),
                      board=cell / "evaluation" / LEADERBOARD_FILE,
                      where=f"{cell.parent.name}/{cell.name}/input/{src.name}",
                      board_where=f"{cell.parent.name}/{cell.name}/evaluation/{LEADERBOARD_FILE}",
                      code=code)


def read_flat(folder: Path) -> ImportedTask:
    """The task of one ``<slug>/`` folder of the flat copy."""
    data = _read_schema(folder / FLAT_SCHEMA_FILE)
    info = _section(data, "data_information")
    modality = parse_modality(str(info.get("data_type", "")))
    return build_task(data, folder.name, modality=modality, tier=None,
                      board=folder / LEADERBOARD_FILE, where=f"{folder.name}/{FLAT_SCHEMA_FILE}",
                      board_where=f"{folder.name}/{LEADERBOARD_FILE}", code=[])


def _cells(root: Path) -> list[tuple[Path, Modality]]:
    return [(cell, modality)
            for mod_dir in sorted(p for p in root.iterdir() if p.is_dir())
            if (modality := parse_modality(mod_dir.name)) is not None
            for cell in sorted(p for p in mod_dir.iterdir() if p.is_dir())]


def read_tam_lite(root: Path) -> TreeRead:
    """Every task of a release tree (or of its flat copy), in folder order."""
    root = tree_root(root)
    cells = _cells(root)
    flats = sorted(p for p in root.iterdir() if p.is_dir() and (p / FLAT_SCHEMA_FILE).is_file())
    if not cells and not flats:
        raise ImportLayoutError(
            f"{root} holds neither <Modality>/<difficulty>/input/ folders (the release layout, "
            "e.g. Tabular/easy/input/<name>.json) nor <slug>/schema.json folders (its flat copy)")
    out = TreeRead()
    jobs: list[tuple[str, Callable[[], ImportedTask]]] = [
        (str(c), partial(read_cell, c, m)) for c, m in cells]
    jobs += [(str(f), partial(read_flat, f)) for f in flats]
    for where, job in jobs:
        try:
            out.tasks.append(job())
        except FOLDER_ERRORS as exc:
            out.failures.append(ImportFailure(where, failure_reason(exc)))
    return out
