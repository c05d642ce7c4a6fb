"""Reading the metric from a page's evaluation context, with the sentence as evidence.

Only two kinds of text may name the metric:

1. a sentence that defines how submissions are scored ("Submissions are evaluated on ...",
   "The evaluation metric is ...", "Evaluation metric: ..."), wherever it stands;
2. any sentence or title under an Evaluation / Metric / Scoring heading (or on an evaluation
   page), e.g. a bare "AUC" line.

Overview prose never does ("improve the accuracy of ship detection" names no metric). Defining
sentences in the evaluation part come first, then defining sentences elsewhere, then the rest
of the evaluation part; the first sentence naming a known family decides. When the defining
sentences name something no family covers, the metric is reported by that name and left
empty: it is a metric tambench does not know.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tambench.schema.mapping.headers import HeaderFind
from tambench.schema.mapping.markdown import Section, is_injection, plain, section_sentences
from tambench.schema.mapping.metric_rules import (
    TASK_TYPE_BY_FAMILY,
    TASK_TYPE_BY_METRIC,
    Decision,
    MetricContext,
    decide,
    is_registered,
)
from tambench.schema.mapping.metric_terms import (
    DEFINING_CUE_RE,
    find_family,
    fold,
    named_after_cue,
)

#: Characters of the sentence read on each side of the metric's name for modifiers.
NEAR_CHARS = 60


@dataclass
class MetricFinding:
    """The metric a page states, and which id (if any) computes it."""

    name: str
    """The page's own words for the metric (markup removed)."""

    sentence: str
    """The raw sentence (or title) the metric was read from: the evidence."""

    family: str | None
    """The metric family ("auc", "rmsle"); None for a metric no family covers."""

    decision: Decision
    """The id that computes the page's metric exactly, or why none does."""

    notes: list[str] = field(default_factory=list)

    @property
    def registered(self) -> bool:
        """Whether the decided id is registered in this installation."""
        return self.decision.metric_id is not None and is_registered(self.decision.metric_id)

    @property
    def task_type(self) -> str:
        """The task type the metric implies ("" when unknown)."""
        if self.decision.metric_id and self.decision.metric_id in TASK_TYPE_BY_METRIC:
            return TASK_TYPE_BY_METRIC[self.decision.metric_id]
        return TASK_TYPE_BY_FAMILY.get(self.family or "", "")

    @property
    def gap(self) -> str:
        """Why ``grading.metric`` stays empty ("" when the id is registered)."""
        d = self.decision
        if d.metric_id is None:
            return d.reason
        if not is_registered(d.metric_id):
            return f"metric {d.metric_id} is not registered"
        return ""


def _sentences(sections: Sequence[Section]) -> Iterator[tuple[str, Section, bool]]:
    """(raw sentence, its section, whether it defines the score), in reading priority."""
    clean = [(s, sent) for s in sections for sent in section_sentences(s)
             if not is_injection(sent)]
    defining = [(s, t) for s, t in clean if DEFINING_CUE_RE.search(plain(t))]
    for s, t in defining:
        if s.is_evaluation:
            yield t, s, True
    for s, t in defining:
        if not s.is_evaluation:
            yield t, s, True
    for s, t in clean:
        if s.is_evaluation_titled and not DEFINING_CUE_RE.search(plain(t)):
            yield t, s, False


def _window(sections: Sequence[Section], section: Section) -> str:
    parts = [s.title + "\n" + s.text for s in sections if s.is_evaluation]
    if not section.is_evaluation:
        parts.append(section.title + "\n" + section.text)
    return fold(plain("\n".join(parts)))


def _example_columns(example: HeaderFind | None, targets: Sequence[str]) -> tuple[str, ...]:
    if example is None or example.header is None:
        return ()
    cols = [example.header.index(t) for t in targets if t in example.header]
    return tuple(row[i] for row in example.rows for i in cols if i < len(row))


def find_metric(sections: Sequence[Section], example: HeaderFind | None,
                targets: Sequence[str]) -> MetricFinding | None:
    """The metric the pages state (see the module docstring); None when they state none."""
    unknown: MetricFinding | None = None
    for raw, section, defining in _sentences(sections):
        text = fold(plain(raw))
        found = find_family(text)
        if found is None:
            name = named_after_cue(plain(raw)) if defining else ""
            if name and unknown is None:
                unknown = MetricFinding(name, raw, None, Decision(
                    None, reason=f"the page's metric {name!r} is not one the mapper knows; no "
                                 "metric id is known to compute it"))
            continue
        family, m = found
        ctx = MetricContext(
            sentence=text,
            near=text[max(0, m.start() - NEAR_CHARS): m.end() + NEAR_CHARS],
            window=_window(sections, section),
            targets=tuple(targets),
            values=_example_columns(example, targets),
        )
        name = plain(raw)[m.start():m.end()].strip()
        finding = MetricFinding(name, raw, family, decide(family, ctx, m))
        if not section.is_evaluation:
            finding.notes.append(f"the metric was read from a sentence defining the score "
                                 f"outside an evaluation section ({section.title or 'page top'!r})")
        return finding
    return unknown
