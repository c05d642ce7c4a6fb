"""A competition's start and end dates, read from the facts its sources hold, cross-checked.

Two kinds of source hold a date:

* the timeline of a competition's description: lines such as ``- **May 10, 2023** - Start
  Date.`` or ``November 12, 2019 - Final submission deadline.``
  (:func:`timeline_statements`). Only a line naming exactly one full date (day, month and
  year) and saying what the date is counts; entry and team-merger deadlines are read but are
  neither start nor end;
* a final leaderboard whose rows carry submission dates (Kaggle's exports:
  ``submissionDate``, ``LastSubmissionDate``): the last of them is the day the last team
  submitted (:func:`last_submission`), which can only be on or before the end.

:func:`decide_dates` combines them. The end date is the final submission deadline that every
timeline states (a deadline extension wins; beside a later "competition end date", such as a
code competition's rerun on new data, the final submission deadline counts); a leaderboard's last submission agrees with it when it falls in the last
:data:`BOARD_TOLERANCE_DAYS` days before it (or on the day after: deadlines are 11:59 PM UTC),
and stands for the end date when no timeline gives one. Sources that disagree leave the date
unset, each recorded with its value, and the decision says why.

A competition that never ends (Kaggle's Getting Started competitions: "This competition runs
indefinitely", "on a rolling timeline"; :func:`rolling_statements`) has no end date: when a
source says so and none states an end, the decision records it as ``rolling`` (the fact
:data:`TIMELINE_FACT` = :data:`ROLLING`, with the line), and its board's last submission is no
end (a rolling board is a snapshot). :func:`ended_within` decides a rolling competition by its
launch: its data has been public since then, and it has not ended.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal

from tambench.core.leaderboard import Leaderboard
from tambench.schema.taskspec import FactSource

Kind = Literal["start", "end", "other"]

#: A leaderboard's last submission agrees with a deadline when it is at most this many days
#: before it: a finished competition's board holds submissions of its final days.
BOARD_TOLERANCE_DAYS = 14

_MONTHS = {m: i for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"), start=1)}
_MONTH = r"(?P<month>" + "|".join(_MONTHS) + r"|" + "|".join(m[:3] for m in _MONTHS) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE_RES = (
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I),   # November 12, 2019
    re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+{_YEAR}\b", re.I),   # 12 November 2019
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b"),  # 2019-11-12
)
_END_RE = re.compile(
    r"final submission deadline|submission deadline|competition (?:will )?(?:end|ends|close|"
    r"closes|conclude|concludes)\b|\bend date\b|\bcompetition end\b", re.I)
_START_RE = re.compile(
    r"\bstart date\b|competition (?:start|starts|launch|launches|begin|begins|open|opens)\b|"
    r"\blaunch(?:es|ed)?\b", re.I)
_NOT_END_RE = re.compile(r"entry deadline|team merger|merge deadline|team merge|"
                         r"winners?'? requirements|code submission|paper|fact sheet|post-competition|"
                         r"^\W*update\b", re.I)
_EXTENDED_RE = re.compile(r"\bextended\b.*\bto\b", re.I)
_ROLLING_RE = re.compile(r"\bruns indefinitely\b|\bon a rolling timeline\b|"
                         r"\bno (?:end|deadline) date\b", re.I)
#: The fact (under ``provenance.facts``) saying how a competition's timeline runs, and its value
#: for one that never ends.
TIMELINE_FACT = "timeline"
ROLLING = "rolling"
_FINAL_RE = re.compile(r"final submission deadline", re.I)
#: A timeline copied from a Kaggle page as one run of text ("...Start Date- May 1, 2024Entry
#: Deadline- ...Final Submission Deadline- May 31, 2024All deadlines..."): each label glued to
#: the text before it starts a line of its own.
_GLUED_LABEL_RE = re.compile(
    r"(?<=[0-9a-z])(?=(?:Start Date|Entry Deadline|Team Merger Deadline|"
    r"Final Submission Deadline|All deadlines)\b)")


@dataclass(frozen=True)
class DateStatement:
    """One line of a timeline that states a date, and what the date is."""

    kind: Kind
    day: date
    line: str


def _dates_in(line: str) -> list[tuple[int, date]]:
    """(position, date) of every full date in a line, in order."""
    found: dict[int, date] = {}
    for rx in _DATE_RES:
        for m in rx.finditer(line):
            month = m.group("month").lower().rstrip(".")
            number = int(month) if month.isdigit() else \
                next(v for k, v in _MONTHS.items() if k.startswith(month))
            try:
                found[m.start()] = date(int(m.group("year")), number, int(m.group("day")))
            except ValueError:
                continue
    return sorted(found.items())


def _classify(line: str) -> Kind:
    if _NOT_END_RE.search(line):
        return "other"
    if _END_RE.search(line):
        return "end"
    if _START_RE.search(line):
        return "start"
    return "other"


def timeline_statements(text: str) -> list[DateStatement]:
    """Every dated timeline line of a description (see the module docstring).

    >>> [(s.kind, s.day.isoformat()) for s in timeline_statements(
    ...     "- **March 2, 2021** - Start Date\\n- May 26, 2021 - Entry deadline.\\n"
    ...     "- June 3, 2021 - Final submission deadline.")]
    [('start', '2021-03-02'), ('other', '2021-05-26'), ('end', '2021-06-03')]
    >>> [(s.kind, s.day.isoformat()) for s in timeline_statements(
    ...     "Start Date- May 1, 2024Final Submission Deadline- May 31, 2024All deadlines")]
    [('start', '2024-05-01'), ('end', '2024-05-31')]
    """
    out: list[DateStatement] = []
    for raw in _GLUED_LABEL_RE.sub("\n", text).splitlines():
        line = " ".join(raw.replace("*", " ").split())
        found = _dates_in(line)
        if not found:
            continue
        if len(found) >= 2 and _EXTENDED_RE.search(line) and "deadline" in line.lower():
            out.append(DateStatement("end", found[-1][1], line))
            continue
        if len(found) != 1 or len(line) > 300:
            continue
        out.append(DateStatement(_classify(line), found[0][1], line))
    return out


def rolling_statements(text: str) -> list[str]:
    """The sentences of a description saying the competition never ends (see the module
    docstring).

    >>> rolling_statements("No cash prize. **Timeline**: This competition runs indefinitely "
    ...                    "with a rolling leaderboard.\\nA two month rolling window on entries.")
    ['Timeline : This competition runs indefinitely with a rolling leaderboard.']
    """
    out = []
    for raw in text.splitlines():
        line = " ".join(raw.replace("*", " ").split())
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            if _ROLLING_RE.search(sentence) and len(sentence) <= 300:
                out.append(sentence)
    return out


def last_submission(lb: Leaderboard) -> date | None:
    """The day of the last submission on a board whose rows carry dates (None otherwise)."""
    days = []
    for row in lb.rows:
        if not row.submitted_at:
            continue
        try:
            days.append(datetime.fromisoformat(row.submitted_at).date())
        except ValueError:
            continue
    return max(days) if days else None


@dataclass(frozen=True)
class DatedSource:
    """A source's reading of a task's dates: its statements, or a board's last submission."""

    source: FactSource
    """Where it was read (``value`` and ``detail`` are filled by the decision)."""

    statements: tuple[DateStatement, ...] = ()
    board_last: date | None = None
    rolling: tuple[str, ...] = ()
    """Lines saying the competition never ends (:func:`rolling_statements`)."""


def dated_text(source: FactSource, text: str) -> DatedSource:
    """A description's timeline statements and rolling lines, as one dated source."""
    return DatedSource(source, statements=tuple(timeline_statements(text)),
                       rolling=tuple(rolling_statements(text)))


@dataclass
class DateDecision:
    """The dates a task gets, every source behind each, and why a date stays unset."""

    start: date | None = None
    end: date | None = None
    rolling: bool = False
    """A source says the competition never ends and none states an end."""
    facts: dict[str, list[FactSource]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _one_day(kind: str, statements: Sequence[DateStatement]) -> tuple[date | None, str]:
    """The one date a description gives for ``kind`` (an extension wins), or a conflict."""
    days = [s for s in statements if s.kind == kind]
    extended = [s for s in days if _EXTENDED_RE.search(s.line)]
    final = [s for s in days if _FINAL_RE.search(s.line)]
    if extended:
        days = extended[-1:]
    elif final:  # beside a later "end date" (a code competition's rerun), the deadline counts
        days = final
    distinct = sorted({s.day for s in days})
    if len(distinct) > 1:
        return None, (f"the description states {len(distinct)} {kind} dates: "
                      + ", ".join(d.isoformat() for d in distinct))
    return (distinct[0] if distinct else None), ""


def _fact(src: DatedSource, day: date, detail: str) -> FactSource:
    return src.source.model_copy(update={"value": day.isoformat(), "detail": detail})


def _read_timelines(sources: Sequence[DatedSource], out: DateDecision
                    ) -> dict[str, set[date] | None]:
    """kind -> the dates the descriptions give (None: a description contradicts itself)."""
    read: dict[str, set[date] | None] = {"start": set(), "end": set()}
    for src in sources:
        for kind in ("start", "end"):
            day, problem = _one_day(kind, src.statements)
            if problem:
                out.problems.append(f"{kind}_date: {src.source.path or src.source.source}: "
                                    f"{problem}")
                read[kind] = None
            elif day is not None:
                line = next(s.line for s in src.statements if s.kind == kind and s.day == day)
                out.facts.setdefault(f"{kind}_date", []).append(
                    _fact(src, day, f"timeline: {line[:160]}"))
                found = read[kind]
                if found is not None:
                    found.add(day)
    return read


def _single(kind: str, days: set[date] | None, out: DateDecision) -> date | None:
    """The one date every description gives, or None (with the reason when they disagree)."""
    if days is not None and len(days) <= 1:
        return next(iter(days), None)
    if days is not None:
        out.problems.append(f"{kind}_date left unset: the descriptions disagree: "
                            + ", ".join(d.isoformat() for d in sorted(days)))
    else:
        out.problems.append(f"{kind}_date left unset: a description states several")
    return None


def decide_dates(sources: Sequence[DatedSource]) -> DateDecision:
    """Start and end dates from every source (see the module docstring)."""
    out = DateDecision()
    read = _read_timelines(sources, out)
    out.start = _single("start", read["start"], out)
    deadline = _single("end", read["end"], out)
    if _rolling(sources, bool(read["end"]) or read["end"] is None, out):
        return out
    boards = [s for s in sources if s.board_last is not None]
    for src in boards:
        if (last := src.board_last) is not None:
            out.facts.setdefault("end_date", []).append(
                _fact(src, last, "last submission on the final leaderboard"))
    stated = read["end"] is None or bool(read["end"])
    reruns = {s.day for src in sources for s in src.statements
              if s.kind == "end" and deadline is not None and s.day > deadline}
    out.end = _end_from(deadline, stated, boards, out, reruns)
    if out.start and out.end and out.start > out.end:
        out.problems.append(f"start_date {out.start} is after end_date {out.end}: both unset")
        out.start = out.end = None
    return out


def _rolling(sources: Sequence[DatedSource], stated: bool, out: DateDecision) -> bool:
    """Record a rolling timeline (True: the decision is made, no end date), or the conflict
    with a stated end."""
    said = [(src, src.rolling[0]) for src in sources if src.rolling]
    if not said:
        return False
    if stated:
        out.problems.append("end_date: a source says the competition runs indefinitely "
                            f"({said[0][1][:120]!r}) and another states an end")
        return False
    out.rolling = True
    out.facts[TIMELINE_FACT] = [src.source.model_copy(update={
        "value": ROLLING, "detail": f"rolling: {line[:160]}"}) for src, line in said]
    return True


def is_rolling(facts: dict[str, list[FactSource]]) -> bool:
    """Whether a task's facts record a rolling timeline (no end date)."""
    return any(f.value == ROLLING for f in facts.get(TIMELINE_FACT, []))


def _agrees(day: date, deadline: date) -> bool:
    """A board's last submission agrees with a deadline: in its last days, or the day after."""
    return deadline - timedelta(days=BOARD_TOLERANCE_DAYS) <= day <= deadline + timedelta(days=1)


def _end_from(deadline: date | None, stated: bool, boards: Sequence[DatedSource],
              out: DateDecision, reruns: set[date] | frozenset[date] = frozenset()
              ) -> date | None:
    """The end date: the deadline when every board agrees with it (or with a later end the
    descriptions state, a code competition's rerun on new data, whose board is dated by the
    reruns), else the boards' common last day when no description states one."""
    lasts = sorted({b.board_last for b in boards if b.board_last is not None})
    if deadline is not None:
        late = [d for d in lasts if d > deadline + timedelta(days=1)
                and not any(_agrees(d, r) for r in reruns)]
        early = [d for d in lasts if d < deadline - timedelta(days=BOARD_TOLERANCE_DAYS)]
        if late or early:
            worst = (late or early)[0]
            how = "after" if late else f"more than {BOARD_TOLERANCE_DAYS} days before"
            out.problems.append(f"end_date left unset: the final leaderboard's last submission "
                                f"({worst}) is {how} the description's final deadline "
                                f"({deadline})")
            return None
        return deadline
    if stated or not lasts:
        return None
    if len(lasts) > 1:
        out.problems.append("end_date left unset: the leaderboards' last submissions differ: "
                            + ", ".join(d.isoformat() for d in lasts))
        return None
    return lasts[0]


def timeline_label(start: date | None, rolling: bool) -> str:
    """How a rolling competition's dates read ("" for one that is not rolling)."""
    if not rolling:
        return ""
    launched = f"launched {start.isoformat()}" if start else "launch date unknown"
    return f"rolling, no end date; {launched}"


def ended_within(start: date | None, end: date | None, since: date | None,
                 until: date | None, rolling: bool = False) -> tuple[bool | None, str]:
    """Whether a competition ended on or after ``since`` and on or before ``until``.

    True or False with the date that decides, or None when the recorded dates cannot tell (no
    end date, and a start date that does not settle it either; or a start date after the end
    date, which contradict each other: an entry edited by hand), with the reason.

    A rolling competition (no end date) never ended on or before ``until``; against ``since``
    its launch decides: launched on or after it, its data was not public before it (kept);
    launched before, its data and public solutions were (left out); launch unknown, None.

    >>> ended_within(None, date(2023, 5, 1), date(2023, 1, 1), None)
    (True, 'ended 2023-05-01')
    >>> ended_within(date(2023, 2, 1), None, date(2023, 1, 1), None)
    (True, 'started 2023-02-01, so ended after 2023-01-01')
    >>> ended_within(None, None, date(2023, 1, 1), None)[0] is None
    True
    >>> ended_within(date(2023, 6, 1), date(2023, 5, 1), None, date(2024, 1, 1))
    (None, 'start date 2023-06-01 is after end date 2023-05-01')
    """
    if start is not None and end is not None and start > end:
        return None, f"start date {start.isoformat()} is after end date {end.isoformat()}"
    if rolling and end is None:
        return _rolling_within(start, since, until)
    if end is not None:
        inside = (since is None or end >= since) and (until is None or end <= until)
        return inside, f"ended {end.isoformat()}"
    if start is not None and until is not None and start > until:
        return False, f"started {start.isoformat()}, after {until.isoformat()}"
    if until is None and since is not None and start is not None and start >= since:
        return True, f"started {start.isoformat()}, so ended after {since.isoformat()}"
    known = f" (started {start.isoformat()})" if start is not None else ""
    return None, f"no end date recorded{known}"


def _rolling_within(start: date | None, since: date | None, until: date | None
                    ) -> tuple[bool | None, str]:
    """:func:`ended_within` for a rolling competition.

    >>> _rolling_within(date(2012, 9, 28), date(2023, 1, 1), None)
    (False, 'rolling, no end date; launched 2012-09-28, before 2023-01-01')
    >>> _rolling_within(None, None, date(2024, 1, 1))
    (False, 'rolling, no end date; launch date unknown: has not ended')
    """
    label = timeline_label(start, True)
    if until is not None:
        return False, f"{label}: has not ended"
    if since is None:
        return True, label
    if start is None:
        return None, label
    if start >= since:
        return True, f"{label}, on or after {since.isoformat()}"
    return False, f"{label}, before {since.isoformat()}"
