"""Prepared-task layouts for the corpus cases: the public files a prepared task has beside its
answers (a sample submission), so that validation without the answers can be compared with
grading case by case.

A corpus case writes ``<folder>/private/<answers>`` and ``<folder>/run/<submission>``; with
``<folder>`` = ``<data>/<platform>/<slug>`` that is a prepared task's layout, and
:func:`write_public` adds ``public/sample_submission.<fmt>`` the way ``tambench prepare``
writes it: the submission header, the answers' ids in the answers' order, a placeholder in
every other column (the sample of a JSON or line-file task mirrors the answers' shape).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tambench.schema.taskspec import SubmissionFormat, TaskSpec
from tambench.validation.policies import expected_header
from tests.grading.corpus import CASES as TABLE_CASES
from tests.grading.corpus import TASKS, Case, build_case
from tests.grading.corpus.families import CASES as FAMILY_CASES
from tests.grading.corpus.families import FAMILIES, STRUCTURED_TASKS, FamilyCase, build


def _placeholders(doc: Any) -> Any:
    """The same JSON shape with every number 0 and every string "x"."""
    if isinstance(doc, dict):
        return {k: _placeholders(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_placeholders(v) for v in doc]
    if isinstance(doc, bool | int | float):
        return 0
    return "x" if isinstance(doc, str) else doc


def sample_text(spec: TaskSpec, answers_text: str) -> str:
    """The public sample submission of a task whose answers file holds ``answers_text``."""
    g = spec.grading
    assert g is not None
    if g.submission_format == SubmissionFormat.JSON:
        return json.dumps(_placeholders(json.loads(answers_text)))
    if g.submission_format == SubmissionFormat.TXT:
        n = len([line for line in answers_text.splitlines() if line.strip()])
        return "x\n" * n
    rows = list(csv.reader(io.StringIO(answers_text)))
    header, body = rows[0], rows[1:]
    ids = [header.index(c) for c in g.id_columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = expected_header(g)
    writer.writerow(columns)
    for row in body:
        cells = dict(zip(g.id_columns, (row[i] for i in ids), strict=True))
        writer.writerow([cells.get(c, "0") for c in columns])
    return out.getvalue()


def write_public(spec: TaskSpec, task_dir: Path) -> Path:
    """Write the task's public folder from its answers in ``task_dir/private``; return it."""
    g = spec.grading
    assert g is not None
    answers = (task_dir / "private" / g.answers_file).read_text(encoding="utf-8")
    public = task_dir / "public"
    public.mkdir(parents=True, exist_ok=True)
    (public / f"sample_submission.{g.submission_format.value}").write_text(
        sample_text(spec, answers), encoding="utf-8")
    return public


def task_dir(root: Path, spec: TaskSpec) -> Path:
    """``<root>/data/<platform>/<slug>``."""
    return root / "data" / spec.platform / spec.slug


# --- the corpus, enumerated ----------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusCase:
    """One case of the malformed-submission corpus (either list), with its task."""

    id: str
    spec: TaskSpec
    make: Callable[[Path], tuple[Path, Path]]
    """Writes the case into a task folder: (answers, submission)."""


def _table_case(case: Case) -> CorpusCase:
    def make(folder: Path) -> tuple[Path, Path]:
        _, answers, sub = build_case(case, folder)
        return answers, sub
    return CorpusCase(f"table-{case.num}-{case.name}", TASKS[case.task].spec(), make)


def _family_spec(family: str) -> TaskSpec:
    if family in STRUCTURED_TASKS:
        return TaskSpec(id=f"corpus/{family}", platform="corpus",
                        grading=STRUCTURED_TASKS[family][0])
    return FAMILIES[family].spec()


def _family_case(case: FamilyCase) -> CorpusCase:
    def make(folder: Path) -> tuple[Path, Path]:
        _, answers, sub, _ = build(case, folder)
        return answers, sub
    return CorpusCase(f"family-{case.id}", _family_spec(case.family), make)


def corpus_cases() -> list[CorpusCase]:
    """Every case of the reliability corpus: the table's (tests/grading/corpus) and every
    family's (tests/grading/corpus/families.py), pending ones included."""
    return [*(_table_case(c) for c in TABLE_CASES), *(_family_case(c) for c in FAMILY_CASES)]


def build_prepared(case: CorpusCase, root: Path) -> tuple[Path, Path, Path]:
    """The case as a prepared task under ``root/data``: (task folder, answers, submission)."""
    folder = task_dir(root, case.spec)
    answers, sub = case.make(folder)
    write_public(case.spec, folder)
    return folder, answers, sub
