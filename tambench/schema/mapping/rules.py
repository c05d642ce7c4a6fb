"""The offline, rule-based mapper: competition pages' Markdown -> TaskSpec, no model needed.

It reads what competition pages state in predictable places: the metric in the evaluation
context (:mod:`~tambench.schema.mapping.metric_find`), the submission example under a
submission heading or after words like "the following format"
(:mod:`~tambench.schema.mapping.headers`), the files in the data section's lists, the title in
the citation line, constraints in the code requirements (:mod:`~tambench.schema.mapping.fields`).
Every value it fills carries the raw sentence or line it came from as evidence.

It knows what it does not know: a metric that no registered id computes exactly leaves
``grading.metric`` empty with the page's name for it and the reason; an elided header leaves
the columns empty. Nothing is replaced by a near neighbour, and nothing is guessed from
overview prose. Sentences that read like instructions to a model (prompt injection) are
skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tambench.core.metrics.base import get_metric
from tambench.schema.mapping.draft import Draft, MetricGap
from tambench.schema.mapping.fields import (
    clean_sentences,
    find_constraints,
    find_files,
    find_formula,
    find_goal,
    find_modality,
    find_target_field,
    find_title,
)
from tambench.schema.mapping.headers import HeaderFind, find_submission_example
from tambench.schema.mapping.markdown import (
    Section,
    is_injection,
    normalize_ws,
    parse_pages,
    plain,
)
from tambench.schema.mapping.metric_find import MetricFinding, find_metric

_FOR_EACH_RE = re.compile(r"\bfor (?:each|every)\s+`?(\w+)`?\s+and\s+`?(\w+)`?", re.I)
_ONLY_SCORED_RE = re.compile(r"only the following (?:columns )?are scored:\s{0,5}([^.]{1,500})",
                             re.I)
#: Instruction-like sentences quoted one by one in the warnings; the rest are counted.
MAX_INJECTION_WARNINGS = 5


def id_columns(header: list[str], rows: list[list[str]], text: str) -> list[str]:
    """Id columns: named in "For each `a` and `b`" when both are columns; otherwise the
    fewest leading columns whose values are unique over the example rows."""
    for m in _FOR_EACH_RE.finditer(text):
        a, b = m.group(1), m.group(2)
        if a in header and b in header and header.index(a) < header.index(b) < len(header) - 1:
            return header[: header.index(b) + 1]
    rows = [r for r in rows if len(r) == len(header)]
    n = 1
    while n < len(header) - 1 and len(rows) >= 2 and len({tuple(r[:n]) for r in rows}) < len(rows):
        n += 1
    return header[:n]


def _scored_subset(targets: list[str], sections: Sequence[Section]) -> tuple[list[str], str] | None:
    """The targets an evaluation sentence restricts scoring to ("only the following are
    scored: a, b"), with that sentence."""
    for s in sections:
        if not s.is_evaluation:
            continue
        for sent in clean_sentences(s):
            m = _ONLY_SCORED_RE.search(plain(sent))
            if not m:
                continue
            names = [n.strip(" `*") for n in re.split(r",|\band\b", m.group(1)) if n.strip(" `*")]
            if names and all(n in targets for n in names):
                return [t for t in targets if t in names], sent
    return None


# --- steps of map_rules -------------------------------------------------------------------------


def _note_injections(draft: Draft, sections: Sequence[Section]) -> None:
    found = [(s, sent) for s in sections for sent in s.sentence_list if is_injection(sent)]
    for s, sent in found[:MAX_INJECTION_WARNINGS]:
        draft.warnings.append(f"ignored an instruction-like sentence in the {s.page} page: "
                              f"{normalize_ws(sent)[:160]!r}")
    if len(found) > MAX_INJECTION_WARNINGS:
        draft.warnings.append(f"ignored {len(found) - MAX_INJECTION_WARNINGS} more "
                              "instruction-like sentences")


def _fill_description(draft: Draft, sections: Sequence[Section]) -> None:
    title = find_title(sections)
    if title:
        draft.put("title", title[0], title[1])
    goal = find_goal(sections)
    if goal:
        draft.put("goal_description", normalize_ws(plain(goal)), goal)


def _fill_submission(draft: Draft, sections: Sequence[Section],
                     example: HeaderFind | None) -> list[str]:
    """Output format, header, id and target columns; returns the scored columns."""
    if example is None:
        return []
    draft.put("output_format", "\n".join(ln.rstrip().rstrip("\\").rstrip()
                                         for ln in example.block), example.raw_line)
    if example.header is None:
        draft.notes.append("the submission example elides columns ('...'); the exact header "
                           "must come from the sample submission file")
        return []
    header = example.header
    ids = id_columns(header, example.rows, example.section.text)
    targets = [c for c in header if c not in ids]
    draft.put("grading.submission_header", header, example.raw_line)
    draft.put("grading.id_columns", ids, example.raw_line)
    subset = _scored_subset(targets, sections)
    if subset is not None:
        targets = subset[0]
    draft.put("grading.target_columns", targets,
              subset[1] if subset is not None else example.raw_line)
    draft.put("target_col", ", ".join(targets), example.raw_line)
    return targets


def _metric_params(metric_id: str, params: Mapping[str, object]) -> dict[str, object]:
    """Parameters the registered metric takes; a parameter it does not take is dropped."""
    metric = get_metric(metric_id)
    return {k: v for k, v in params.items() if k in metric.defaults}


def _fill_metric(draft: Draft, finding: MetricFinding | None) -> None:
    if finding is None:
        return
    draft.put("metric.metric_name", finding.name, finding.sentence)
    draft.notes.extend(finding.notes)
    if finding.task_type:
        draft.put("task_type", finding.task_type, finding.sentence)
    decision = finding.decision
    if finding.registered and decision.metric_id is not None:
        params = _metric_params(decision.metric_id, decision.params)
        draft.put("grading.metric", {"id": decision.metric_id, "params": params},
                  finding.sentence)
        return
    draft.metric_gap = MetricGap(finding.gap, finding.name, decision.metric_id or "",
                                 dict(decision.params), finding.family or "", finding.conflict)
    if finding.conflict:
        draft.warnings.append(f"conflicting scoring sentences: {finding.gap}")
    draft.notes.append(f"metric: the page names {finding.name!r}; {finding.gap}; "
                       "grading.metric is left empty")


def _fill_data(draft: Draft, sections: Sequence[Section]) -> None:
    if "target_col" not in draft.fields:
        tf = find_target_field(sections)
        if tf:
            draft.put("target_col", tf[0], tf[1])
    formula = find_formula(sections)
    if formula:
        draft.put("metric.metric_formula", formula.strip("$").strip(), formula)
    modality = find_modality(sections)
    if modality:
        draft.put("modality", modality[0].value, modality[1])
        draft.put("data_information.data_type", modality[0].value, modality[1])
    for kind, (loc, quote) in find_files(sections).items():
        draft.put(f"data_information.{kind}", loc, quote)
    constraints = find_constraints(sections)
    if constraints:
        numbered = "\n".join(f"{i}. {normalize_ws(plain(c))}" for i, c in enumerate(constraints, 1))
        draft.put("special_instructions", numbered, constraints[0])


def map_rules(pages: Mapping[str, str]) -> Draft:
    """Fill a draft from the pages with the offline rules (see the module docstring)."""
    sections = parse_pages(pages)
    draft = Draft()
    _note_injections(draft, sections)
    _fill_description(draft, sections)
    example = find_submission_example(sections)
    targets = _fill_submission(draft, sections, example)
    _fill_metric(draft, find_metric(sections, example, targets,
                                    draft.get("grading.id_columns", [])))
    _fill_data(draft, sections)
    return draft
