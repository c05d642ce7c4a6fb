"""Importer for the paper's public release layout (TAM-Bench Lite).

Layout read::

    <root>/<Modality>/<difficulty>/
        input/<competition name>.json | .txt   the paper's schema (JSON text in both cases)
        evaluation/leaderboard.csv              the private leaderboard (any known format)
        evaluation/*.py                         never read, never run

``<Modality>`` is one of Tabular, Text, Image, Audio, Graph, MultiModal (case and punctuation
ignored); ``<difficulty>`` is easy, medium or hard and becomes the task's reference tier
``tam-bench``. Each cell holds one task, named by its input file (mapped to a task id by
:mod:`tambench.tasks.names`). Top-level folders that are not modalities (``picture/``, ``.git``)
and top-level files are ignored. Imported tasks are ``incomplete``: the release carries no
grading specification we can trust without review.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tambench.difficulty.compare import parse_tier
from tambench.errors import DifficultyError, ImportLayoutError, TaskSpecError
from tambench.schema.io import from_paper
from tambench.schema.taskspec import Modality, Provenance
from tambench.tasks.importers import ImportedTask
from tambench.tasks.importers._common import read_optional_leaderboard, read_text
from tambench.tasks.names import default_url, resolve_name

REFERENCE_NAME = "tam-bench"
_MODALITIES = {re.sub(r"[^a-z]", "", m.value.lower()): m for m in Modality}


def parse_modality(folder: str) -> Modality | None:
    """The modality a release folder stands for, or None.

    >>> parse_modality("MultiModal"), parse_modality("picture")
    (<Modality.MULTIMODAL: 'Multimodal'>, None)
    """
    return _MODALITIES.get(re.sub(r"[^a-z]", "", folder.lower()))


def read_cell(cell: Path, modality: Modality) -> ImportedTask:
    """The task of one ``<Modality>/<difficulty>`` folder."""
    try:
        tier = parse_tier(cell.name)
    except DifficultyError:
        raise ImportLayoutError(f"{cell}: expected a difficulty folder (easy, medium, hard), "
                                f"got {cell.name!r}") from None
    input_dir = cell / "input"
    if not input_dir.is_dir():
        raise ImportLayoutError(f"{cell} has no input/ folder")
    inputs = sorted(p for p in input_dir.iterdir() if p.suffix in {".json", ".txt"})
    if len(inputs) != 1:
        raise ImportLayoutError(f"{input_dir}: expected exactly one .json or .txt task file, "
                                f"got {[p.name for p in inputs]}")
    src = inputs[0]
    name = src.stem
    if name.lower() == "input":
        raise ImportLayoutError(f"{src}: the file is not named after its competition, so the "
                                "task cannot be identified; rename it to the competition's name")
    try:
        data = json.loads(read_text(src))
    except json.JSONDecodeError as exc:
        raise ImportLayoutError(f"{src} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ImportLayoutError(f"{src}: expected a JSON object, got {type(data).__name__}")
    named = resolve_name(name)
    lb, why_not = read_optional_leaderboard(cell / "evaluation" / "leaderboard.csv")
    warnings = [why_not] if why_not else []
    code = sorted(p.name for p in (cell / "evaluation").glob("*.py"))
    rel = f"{cell.parent.name}/{cell.name}"
    notes = [f"imported from the paper's release cell {rel} (input file {src.name!r})"]
    if named.note:
        notes.append(f"id mapping: {named.note}")
    if code:
        notes.append(f"release scripts not run: {', '.join(code)}")
    try:
        spec = from_paper(
            data,
            named.task_id,
            title=name,
            url=named.url or default_url(named.platform, named.slug),
            status="incomplete",
            modality=modality,
            n_teams=len(lb) if lb is not None else None,
            reference_tiers={REFERENCE_NAME: tier.value},
            provenance=Provenance(mapper="importer:tam-lite", notes=notes,
                                  unfilled=["grading", "split"]),
        )
    except TaskSpecError as exc:
        raise ImportLayoutError(f"{src}: {exc}") from exc
    return ImportedTask(spec=spec, leaderboard=lb, warnings=tuple(warnings))


def read_tam_lite(root: Path) -> list[ImportedTask]:
    """Every task of a release tree, in modality then difficulty folder order."""
    tasks: list[ImportedTask] = []
    for mod_dir in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        modality = parse_modality(mod_dir.name)
        if modality is None:
            continue
        for cell in sorted(p for p in mod_dir.iterdir() if p.is_dir()):
            tasks.append(read_cell(cell, modality))
    if not tasks:
        raise ImportLayoutError(
            f"{root} holds no <Modality>/<difficulty>/input/ folder; expected the paper's "
            "release layout (e.g. Tabular/easy/input/<name>.json)"
        )
    seen: dict[str, str] = {}
    for t in tasks:
        if t.spec.id in seen:
            raise ImportLayoutError(f"{t.spec.id} appears twice ({seen[t.spec.id]} and "
                                    f"{t.spec.provenance.notes[0]})")
        seen[t.spec.id] = t.spec.provenance.notes[0]
    return tasks
