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

Two scoring sentences of the evaluation part that name different metrics ("Submissions are
evaluated on accuracy." then "Submissions are scored on RMSE.") leave the metric empty, naming
both: the page contradicts itself, and the first sentence may have been planted to steer the
metric. A scoring sentence here is a firm statement ("are evaluated on", "The evaluation
metric is", "Metric:") with the metric's name right after it; sentences that only describe
parts of the score ("The leaderboard score is the mean of the Dice coefficients") do not
count.

Each sentence is read once (its plain, folded text and cue), and the evaluation text a
decision reads is built once, so the cost is linear in the pages' length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tambench.schema.mapping.fields import data_fields, page_text
from tambench.schema.mapping.headers import HeaderFind
from tambench.schema.mapping.markdown import Section, normalize_ws, plain
from tambench.schema.mapping.metric_rules import (
    TASK_TYPE_BY_FAMILY,
    TASK_TYPE_BY_METRIC,
    Decision,
    MetricContext,
    decide,
    is_registered,
)
from tambench.schema.mapping.metric_terms import (
    GENERIC_FAMILIES,
    defining_cue,
    each_of,
    find_family,
    fold,
    named_after_cue,
    scan_sentences,
)
from tambench.schema.mapping.wordre import WordPattern, lower

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

    conflict: tuple[str, ...] = ()
    """The evaluation text's scoring sentences that name different metrics (then no id)."""

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


#: A firm statement of the score: the metric named right after it is what the page scores.
_FIRM_CUE = WordPattern("|".join([
    each_of(["submissions?", "entries", "predictions?", "solutions?", "results?",
              "this competition", "the competition", "the challenge", "leaderboard"],
             r"\b[^.]{0,60}?\b(?:is|are|will be|be|gets?|get) (?:evaluated|scored|judged|ranked"
             r"|graded)\b"),
    r"\bevaluation (?:metric|criteri(?:on|a)|measure)s?\b[^.]{0,40}?(?:\bis\b|\bare\b|:"
    r"|\bwill be\b|\buses?\b)",
    each_of(["scored", "evaluated"], r" (?:on|using|by|with|based on|according to|in terms "
                                      r"of)\b")]))
#: Words allowed between a firm cue and the metric's name ("evaluated on the mean column-wise
#: ..."); a generic word such as "accuracy" must follow closer.
FIRM_GAP_WORDS = 6
GENERIC_GAP_WORDS = 2


#: Scoring sentences of the evaluation part compared for a conflict; a page stating its score
#: more often than this is not trusted to state one metric.
MAX_SCORING_SENTENCES = 24


@dataclass
class _Sentence:
    raw: str
    section: Section
    text: str
    """Folded plain text."""
    defining: bool
    families: frozenset[str]
    """Families whose words may occur in it."""


@dataclass(frozen=True)
class Submission:
    """What the pages show of the submission: its example, scored and id columns."""

    example: HeaderFind | None = None
    targets: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    @property
    def header(self) -> tuple[str, ...]:
        ex = self.example
        return tuple(ex.header) if ex is not None and ex.header is not None else ()

    @property
    def values(self) -> tuple[str, ...]:
        """Example cells of the scored columns."""
        ex = self.example
        if ex is None or ex.header is None:
            return ()
        cols = [ex.header.index(t) for t in self.targets if t in ex.header]
        return tuple(row[i] for row in ex.rows for i in cols if i < len(row))


class _Reader:
    """The pages' sentences, each read once (scanned together), and the evaluation text
    decisions read."""

    def __init__(self, sections: Sequence[Section], submission: Submission) -> None:
        self.sections = sections
        self.submission = submission
        self.fields = data_fields(sections)
        self.data = fold(page_text(sections, data_only=True))
        self.page = fold(page_text(sections))
        pairs = [(s, raw) for s in sections for raw in s.clean_sentence_list]
        texts = [fold(plain(raw)) for _, raw in pairs]
        scanned = scan_sentences(texts)
        self.all = [_Sentence(raw, s, text, defining, families)
                    for (s, raw), text, defining, families
                    in zip(pairs, texts, scanned.defining, scanned.families, strict=True)]
        self._eval_window: str | None = None

    def ordered(self) -> Iterator[_Sentence]:
        """Sentences in reading priority: defining ones of the evaluation part, defining ones
        elsewhere, the rest of the evaluation part."""
        yield from (t for t in self.all if t.defining and t.section.is_evaluation)
        yield from (t for t in self.all if t.defining and not t.section.is_evaluation)
        yield from (t for t in self.all if not t.defining and t.section.is_evaluation_titled)

    def window(self, section: Section) -> str:
        """The evaluation text a decision reads (folded plain): the evaluation sections in page
        order, each up to WINDOW_SECTION_CHARS, in all up to WINDOW_CHARS; the sentence's own
        section is added when it is not among them."""
        if self._eval_window is None:
            parts: list[str] = []
            used = 0
            self._in_window: set[int] = set()
            for s in self.sections:
                if s.is_evaluation and used < WINDOW_CHARS:
                    parts.append(_window_part(s))
                    used += len(parts[-1])
                    self._in_window.add(id(s))
            self._eval_window = "\n".join(parts)
        if id(section) in self._in_window:
            return self._eval_window
        return self._eval_window + "\n" + _window_part(section)


#: What a decision reads of one section, and of the evaluation part in all: real evaluation
#: sections are a few kilobytes; a hostile page does not make every decision read megabytes.
WINDOW_SECTION_CHARS = 100_000
WINDOW_CHARS = 200_000


def _window_part(section: Section) -> str:
    text = section.title + "\n" + "\n".join(section.lines)[:WINDOW_SECTION_CHARS]
    return fold(plain(text))


def _finding(reader: _Reader, sent: _Sentence, family: str, m: re.Match[str]) -> MetricFinding:
    text = sent.text
    sub = reader.submission
    ctx = MetricContext(
        sentence=text,
        near=text[max(0, m.start() - NEAR_CHARS): m.end() + NEAR_CHARS],
        window=reader.window(sent.section),
        targets=sub.targets, values=sub.values, header=sub.header, ids=sub.ids,
        fields=reader.fields, data=reader.data, page=reader.page,
    )
    name = plain(sent.raw)[m.start():m.end()].strip()
    decision = decide(family, ctx, m)
    finding = MetricFinding(name, sent.raw, family, decision, list(decision.notes))
    if not sent.section.is_evaluation:
        finding.notes.append(f"the metric was read from a sentence defining the score outside "
                             f"an evaluation section ({sent.section.title or 'page top'!r})")
    return finding


def _firmly_named(sent: _Sentence, family: str, m: re.Match[str]) -> bool:
    """Whether the sentence states the score firmly and names this metric right after."""
    cue = defining_cue(sent.text, lower(sent.text), words_pattern=_FIRM_CUE)
    end = cue.end() if cue is not None else None
    if end is None or m.start() < end:
        return False
    gap = len(sent.text[end:m.start()].split())
    return gap <= (GENERIC_GAP_WORDS if family in GENERIC_FAMILIES else FIRM_GAP_WORDS)


def _conflict(first: MetricFinding, other: MetricFinding, other_raw: str) -> MetricFinding:
    a, b = normalize_ws(first.sentence)[:160], normalize_ws(other_raw)[:160]
    reason = (f"the evaluation text names two different metrics in its scoring sentences: "
              f"{first.name!r} in {a!r} and {other.name!r} in {b!r}; no metric is chosen "
              "between them")
    return MetricFinding(f"{first.name} or {other.name}", first.sentence, None,
                         Decision(None, reason=reason), conflict=(first.sentence, other_raw))


def _from_scoring_sentences(reader: _Reader, named: list[tuple[_Sentence, str, re.Match[str]]]
                            ) -> MetricFinding:
    """The metric of the evaluation part's defining sentences: the first firm statement, unless
    another firm statement names a different metric (then empty, naming both); without a firm
    statement, the first defining sentence."""
    firm = [(sent, fam, m) for sent, fam, m in named if _firmly_named(sent, fam, m)]
    if not firm:
        return _finding(reader, *named[0])
    chosen = _finding(reader, *firm[0])
    if len(firm) > MAX_SCORING_SENTENCES:
        return MetricFinding(chosen.name, chosen.sentence, None, Decision(None, reason=(
            f"the evaluation text states its score in more than {MAX_SCORING_SENTENCES} "
            "sentences naming a metric; no metric is chosen among them")),
            conflict=tuple(sent.raw for sent, _, _ in firm[:2]))
    for sent, fam, m in firm[1:]:
        other = _finding(reader, sent, fam, m)
        if (other.family, other.decision.metric_id) != (chosen.family, chosen.decision.metric_id):
            return _conflict(chosen, other, sent.raw)
    return chosen


def find_metric(sections: Sequence[Section], example: HeaderFind | None,
                targets: Sequence[str], ids: Sequence[str] = ()) -> MetricFinding | None:
    """The metric the pages state (see the module docstring); None when they state none."""
    reader = _Reader(sections, Submission(example, tuple(targets), tuple(ids)))
    unknown: MetricFinding | None = None
    named: list[tuple[_Sentence, str, re.Match[str]]] = []
    for sent in reader.ordered():
        scoring = sent.defining and sent.section.is_evaluation
        if named and not scoring or len(named) > MAX_SCORING_SENTENCES:
            break
        found = find_family(sent.text, sent.families)
        if found is None:
            name = named_after_cue(plain(sent.raw)) if sent.defining else ""
            if name and unknown is None:
                unknown = MetricFinding(name, sent.raw, None, Decision(
                    None, reason=f"the page's metric {name!r} is not one the mapper knows; no "
                                 "metric id is known to compute it"))
            continue
        if not scoring:
            return _finding(reader, sent, found[0], found[1])
        named.append((sent, found[0], found[1]))
    if named:
        return _from_scoring_sentences(reader, named)
    return unknown
