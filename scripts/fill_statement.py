"""Fill every complete entry's statement (the paper's schema fields) so that it agrees with its
grading, in the project's own words (helper of fill_catalogue).

* An entry without a statement gets the templates' fields
  (:func:`tambench.schema.mapping.templates.template_fields`), written from its grading.
* A statement from the paper's release (the Lite tasks) keeps its goal and data fields; its
  special_instructions lose the items that give advice rather than state the page's
  constraints; a field that disagrees with the grading (output_format without the submission
  header, a metric_name naming another metric, a target_col that is no target column) is
  replaced by the template's.

Each field left empty, and each change, is named in the entry's notes ("statement: ...").

Usage: python scripts/fill_statement.py [--catalogue DIR] [--check]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from fill_pages import rewrite_entries

from tambench.schema.mapping.templates import (
    names_metric,
    statement_problems,
    strip_advice,
    template_fields,
)
from tambench.schema.taskspec import TaskSpec

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "tambench" / "tasks" / "catalogue"
NOTE = "statement: "


def _paper_update(spec: TaskSpec, tpl: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The paper's statement, advice removed and disagreements replaced by the templates."""
    update: dict[str, Any] = {}
    notes: list[str] = []
    kept, removed = strip_advice(spec.special_instructions)
    if removed:
        update["special_instructions"] = kept
        notes.append(f"{len(removed)} item(s) of the paper's special_instructions removed as "
                     "advice rather than the page's constraints")
        if not kept:
            notes.append("special_instructions left empty: every item of the paper's list "
                         "was advice")
    problems = statement_problems(spec)
    if any(p.startswith("output_format") for p in problems):
        update["output_format"] = tpl["output_format"]
        notes.append("output_format written from the grading (the paper's omits the header)")
    if not names_metric(spec.metric.metric_name, spec.grading.metric):  # type: ignore[union-attr]
        update["metric"] = {**spec.metric.model_dump(),
                            "metric_name": tpl["metric"]["metric_name"]}
        notes.append(f"metric_name {spec.metric.metric_name!r} of the paper replaced by the "
                     "graded metric's name")
    if any(p.startswith("target_col") for p in problems):
        update["target_col"] = tpl["target_col"]
        notes.append(f"target_col {spec.target_col!r} of the paper replaced by the grading's "
                     "target columns")
    if not spec.task_type:
        update["task_type"] = tpl["task_type"]
    return update, notes


def statement_update(spec: TaskSpec) -> TaskSpec:
    """The entry with its statement filled (unchanged without a grading)."""
    if spec.grading is None or spec.status != "complete":
        return spec
    tpl, reasons = template_fields(spec)
    if spec.provenance.mapper == "paper-release" and spec.goal_description.strip():
        update, notes = _paper_update(spec, tpl)
    else:
        update = {k: v for k, v in tpl.items()}
        notes = [f"{field} left empty: {why}" for field, why in sorted(reasons.items())]
    merged = spec.model_validate({**spec.model_dump(mode="json"), **update})
    others = [n for n in spec.provenance.notes if not n.startswith(NOTE)]
    earlier = [n for n in spec.provenance.notes if n.startswith(NOTE)] if spec.provenance.mapper \
        == "paper-release" else []  # a second run finds the paper's advice already removed
    ours = list(dict.fromkeys([*earlier, *(NOTE + n for n in notes)]))
    provenance = merged.provenance.model_copy(update={"notes": [*others, *ours]})
    return merged.model_copy(update={"provenance": provenance})


def fill_statements(catalogue: Path, *, check: bool = False) -> int:
    """Fill every entry; the number changed (or stale with ``check``)."""
    return rewrite_entries(catalogue, statement_update, check=check)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--catalogue", type=Path, default=CATALOGUE)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = ap.parse_args(argv)
    stale = fill_statements(args.catalogue, check=args.check)
    print(f"{stale} entries {'stale' if args.check else 'updated'}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
