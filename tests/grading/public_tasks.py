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
from pathlib import Path
from typing import Any

from tambench.grading.validation.answers import expected_header
from tambench.schema.taskspec import SubmissionFormat, TaskSpec


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
