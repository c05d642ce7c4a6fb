"""The generic path's second opinion: trafilatura beside the rules, the better output kept.

On a page no adapter knows, the rule-based converter and trafilatura both convert the page.
When their words differ by more than :data:`MARGIN` (:func:`similarity` below
``1 - MARGIN``), each output is scored on what a reader needs (:func:`page_signals`): the
share of the page's headings it keeps and the share of its content phrases (sentences of six
words or more, table rows), counted outside navigation, headers, footers, asides, forms and
dialogs. trafilatura's output is kept only when it scores clearly higher (by
:data:`CLEAR_LEAD`), since the rules keep tables, code and headings more faithfully; the
disagreement is logged either way (logger ``tambench.acquisition.second_opinion``, INFO).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tambench.acquisition.pruning import HEADINGS, chrome_tags, role_of, text_of

log = logging.getLogger(__name__)

#: Outputs whose word similarity is below ``1 - MARGIN`` disagree.
MARGIN = 0.3
#: trafilatura wins a disagreement only with a score this much higher (score in 0..2).
CLEAR_LEAD = 0.1
_PHRASE_WORDS = 6
_PHRASE_BLOCKS = ("p", "li", "dd", "dt", "blockquote", "td", "th", "pre", "figcaption")
_NON_WORD = re.compile(r"[^\w]+")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def normalize(text: str) -> str:
    """Lower-case words separated by single spaces (Markdown link targets left out)."""
    return " ".join(_NON_WORD.sub(" ", _LINK_TARGET.sub("]", text).replace("_", " ")).lower()
                    .split())


def _phrases_of(el: Any) -> list[str]:
    if el.name in ("td", "th"):
        return []
    out = []
    for sentence in _SENTENCE_END.split(text_of(el)):
        words = normalize(sentence).split()
        if len(words) >= _PHRASE_WORDS:
            out.append(" ".join(words[:10]))
    return out


def _row_phrase(tr: Any) -> str:
    cells = [normalize(text_of(c)) for c in tr.find_all(["td", "th"], recursive=False)]
    cells = [c for c in cells if c]
    return " ".join(cells) if len(cells) >= 2 else ""


@dataclass(frozen=True)
class Signals:
    """What a reader needs from a page: its headings and its content phrases (normalized)."""

    headings: tuple[str, ...]
    phrases: tuple[str, ...]


def page_signals(soup: Any) -> Signals:
    """Headings and content phrases of a cleaned page (hidden text already removed)."""
    headings: list[str] = []
    phrases: list[str] = []
    chrome = chrome_tags(soup, titled_headers=True)
    for el in soup.find_all([*HEADINGS, *_PHRASE_BLOCKS, "tr"]):
        if el.name == "tr":
            found = [_row_phrase(el)]
        elif el.name in HEADINGS or role_of(el) == "heading":
            found = [normalize(text_of(el))]
        else:
            # a block's own sentences; nested blocks are visited on their own
            if el.find(_PHRASE_BLOCKS) is not None:
                continue
            found = _phrases_of(el)
        found = [f for f in found if f]
        if not found or id(el) in chrome or any(id(p) in chrome for p in el.parents):
            continue
        (headings if el.name in HEADINGS else phrases).extend(found)
    return Signals(tuple(dict.fromkeys(headings)), tuple(dict.fromkeys(phrases)))


def similarity(a: str, b: str) -> float:
    """Shared words over the longer output's words (multisets), 1.0 for two empty outputs."""
    wa, wb = Counter(normalize(a).split()), Counter(normalize(b).split())
    longest = max(sum(wa.values()), sum(wb.values()))
    return 1.0 if longest == 0 else sum((wa & wb).values()) / longest


def _kept(markdown: str, items: tuple[str, ...]) -> int:
    text = f" {normalize(markdown)} "
    return sum(1 for item in items if f" {item} " in text)


@dataclass(frozen=True)
class Verdict:
    """Which output the generic path keeps, and why."""

    markdown: str
    chosen: str
    similarity: float
    rules: tuple[int, int]
    trafilatura: tuple[int, int]
    totals: tuple[int, int]

    @property
    def disagreed(self) -> bool:
        """Whether the two outputs differed by more than the margin."""
        return self.similarity < 1 - MARGIN


def score(kept: tuple[int, int], totals: tuple[int, int]) -> float:
    """Share of headings kept plus share of content phrases kept (0 to 2)."""
    return sum(k / t if t else 1.0 for k, t in zip(kept, totals, strict=True))


def judge(rules_md: str, trafilatura_md: str, signals: Signals) -> Verdict:
    """Keep the rules' output unless it disagrees with trafilatura's and scores clearly lower."""
    totals = (len(signals.headings), len(signals.phrases))
    ours = (_kept(rules_md, signals.headings), _kept(rules_md, signals.phrases))
    theirs = (_kept(trafilatura_md, signals.headings), _kept(trafilatura_md, signals.phrases))
    sim = similarity(rules_md, trafilatura_md)
    chosen = "rules"
    if sim < 1 - MARGIN and trafilatura_md.strip() and (
            score(theirs, totals) > score(ours, totals) + CLEAR_LEAD):
        chosen = "trafilatura"
    verdict = Verdict(trafilatura_md if chosen == "trafilatura" else rules_md, chosen,
                      round(sim, 3), ours, theirs, totals)
    if verdict.disagreed:
        log.info("rules and trafilatura disagree (word similarity %.2f): kept %s; headings "
                 "kept %d vs %d of %d, content phrases %d vs %d of %d", sim, chosen, ours[0],
                 theirs[0], totals[0], ours[1], theirs[1], totals[1])
    return verdict
