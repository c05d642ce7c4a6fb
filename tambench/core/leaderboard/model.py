"""The leaderboard model: rows in final rank order, and the junk rules over them."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

from tambench.core.leaderboard.numbers import CommaConvention, read_score
from tambench.errors import LeaderboardError, LeaderboardOrderWarning

T = TypeVar("T")

NORMALISED_COLUMNS = ("rank", "team", "score", "entries", "submitted_at")
SOURCE_PREFIX = "src_"
#: Optional column of the compact form naming a row that is not a real entry ("placeholder").
FLAG_COLUMN = "flag"

JUNK_RULES = (
    "missing",
    "unparseable",
    "non_finite",
    "out_of_range",
    "outlier",
    "duplicate",
    "placeholder",
    "zero",
    "bad_cell",
)
#: Rules whose rows are kept out of statistics unless the caller says otherwise. Only the
#: score decides whether a row counts: a rank or entry count that is not a whole number is
#: reported (``bad_cell``), never a reason to drop a team from the field.
DEFAULT_EXCLUDE = frozenset(JUNK_RULES) - {"zero", "bad_cell"}

OUTLIER_IQR_FACTOR = 1000.0
PLACEHOLDER_MAX_PARAMETERS = 1e13

@dataclass(frozen=True)
class LeaderboardRow:
    """One normalised leaderboard row."""

    row: int
    """1-based position of the row among the file's data rows (header excluded)."""
    rank: int | None
    team: str
    score: float
    score_raw: str
    entries: int | None = None
    submitted_at: str | None = None
    team_id: str | None = None
    has_score: bool = True
    source: dict[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    """Cells of the row other than its score that are not what their column holds (a rank of
    ``inf``, a count of ``1e400``): reported (``bad_cell``), never a crash; the row still
    counts when its score is fine."""


@dataclass(frozen=True)
class JunkRow:
    """A row a junk rule flagged."""

    row: int
    rule: str
    detail: str


@dataclass(frozen=True)
class Leaderboard:
    """A normalised leaderboard: rows in the file's order, with their original columns."""

    rows: tuple[LeaderboardRow, ...]
    format: str
    source_columns: tuple[str, ...] = ()
    path: str = ""
    comma: CommaConvention = None
    """How the board's score cells write commas (see :mod:`.numbers`)."""

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def scores(self) -> np.ndarray:
        """Every row's score (NaN where it did not parse), file order."""
        return np.array([r.score for r in self.rows], dtype=np.float64)

    def finite_scores(self) -> np.ndarray:
        """The finite scores: the only ones ranking and statistics may use (file order; a
        fresh array the caller may change)."""
        return self._finite.copy()

    def sorted_finite_scores(self) -> np.ndarray:
        """The finite scores in ascending order, read-only. Computed once per board: a batch
        ranks each of a task's runs against one board without sorting it again."""
        return self._sorted_finite

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, once per board and ``key`` (a board is immutable): what a batch
        derives from a task's board (its medal thresholds) is not derived again per run."""
        memo = self._memo
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    @cached_property
    def _memo(self) -> dict[Hashable, Any]:
        return {}

    @cached_property
    def _finite(self) -> np.ndarray:
        s = self.scores
        finite = s[np.isfinite(s)]
        finite.flags.writeable = False
        return finite

    @cached_property
    def _sorted_finite(self) -> np.ndarray:
        out = np.sort(self._finite)
        out.flags.writeable = False
        return out

    def detect_junk(
        self, *, value_range: tuple[float, float] | None = None
    ) -> list[JunkRow]:
        """Apply every junk rule; see the module docstring."""
        return detect_junk(self, value_range=value_range)

    def clean(
        self,
        *,
        exclude: Iterable[str] = DEFAULT_EXCLUDE,
        value_range: tuple[float, float] | None = None,
    ) -> Leaderboard:
        """A copy without the rows flagged by the rules named in ``exclude``.

        Rows whose score is not a finite number are always dropped by this method, whatever
        ``exclude`` says: no statistic can use them. The same cleaning of one board is done
        once (every difficulty method of a task asks for it), and cleaning its result again
        the same way returns that result (a batch cleans a task's board once for every run).
        """
        excluded = frozenset(exclude)
        unknown = excluded - set(JUNK_RULES)
        if unknown:
            raise LeaderboardError(f"unknown junk rule(s) {sorted(unknown)}; known: {JUNK_RULES}")
        key = ("clean", excluded, None if value_range is None else tuple(value_range))

        def cleaned() -> Leaderboard:
            out = self._cleaned(excluded, value_range)
            out._memo[key] = out  # the same cleaning of the cleaned board is that board
            return out

        return self.memo(key, cleaned)

    def _cleaned(self, excluded: frozenset[str],
                 value_range: tuple[float, float] | None) -> Leaderboard:
        drop = {
            j.row
            for j in self.detect_junk(value_range=value_range)
            if j.rule in excluded or j.rule in {"missing", "unparseable", "non_finite"}
        }
        return replace(self, rows=tuple(r for r in self.rows if r.row not in drop))


def parse_score(text: str, comma: CommaConvention = None) -> tuple[float, str | None]:
    """Parse a score string strictly (:func:`.numbers.read_score`; ``comma`` is the board's
    comma convention). Returns (value, problem) where problem names a junk rule.

    >>> parse_score(" 0.98514 ")
    (0.98514, None)
    >>> parse_score("")[1]
    'missing'
    >>> parse_score("n/a")[1]
    'unparseable'
    >>> parse_score("0,5"), parse_score("1,234")
    ((0.5, None), (1234.0, None))
    """
    value, rule, _ = read_score(text, comma)
    return value, rule


@dataclass
class _JunkContext:
    """What the per-row junk rules need to know about the whole board."""

    median: float
    iqr: float
    value_range: tuple[float, float] | None
    comma: CommaConvention = None
    seen_ids: dict[str, int] = field(default_factory=dict)
    seen_rows: dict[tuple[str, str, str], int] = field(default_factory=dict)


def _junk_score_text(r: LeaderboardRow, ctx: _JunkContext) -> list[JunkRow]:
    """missing / unparseable / non_finite, from the score's raw text; bad_cell (reported
    only) for every other cell of the row that is not what its column holds."""
    cells = [JunkRow(r.row, "bad_cell", p) for p in r.problems]
    if not r.has_score:
        return [JunkRow(r.row, "missing", "the row has no score (hasScore is false)"), *cells]
    _, problem, detail = read_score(r.score_raw, ctx.comma)
    return [JunkRow(r.row, problem, detail), *cells] if problem else cells


def _junk_value(r: LeaderboardRow, ctx: _JunkContext) -> list[JunkRow]:
    """out_of_range / outlier / zero, from a finite score."""
    if not r.has_score or not math.isfinite(r.score):
        return []
    found: list[JunkRow] = []
    lo_hi = ctx.value_range
    if lo_hi is not None and not (lo_hi[0] <= r.score <= lo_hi[1]):
        found.append(JunkRow(r.row, "out_of_range", f"score {r.score!r} outside the metric's "
                             f"range [{lo_hi[0]}, {lo_hi[1]}]"))
    if ctx.iqr > 0 and abs(r.score - ctx.median) > OUTLIER_IQR_FACTOR * ctx.iqr:
        found.append(JunkRow(r.row, "outlier", f"score {r.score!r} is "
                             f"{abs(r.score - ctx.median) / ctx.iqr:.3g} IQRs from the median "
                             f"{ctx.median:.6g}"))
    if r.score == 0.0:
        found.append(JunkRow(r.row, "zero", "exact zero score"))
    return found


def _junk_duplicate(r: LeaderboardRow, ctx: _JunkContext) -> list[JunkRow]:
    """duplicate: the same team id, or the same team name, score and date, as an earlier row.

    Boards without any team identity (``rank,score``) cannot have duplicates: equal scores
    there are ties between different teams.
    """
    if not r.has_score:
        return []
    if r.team_id:
        first = ctx.seen_ids.setdefault(r.team_id, r.row)
        if first != r.row:
            return [JunkRow(r.row, "duplicate", f"team id {r.team_id} already on row {first}")]
        return []
    if not r.team:
        return []
    key = (r.team, r.score_raw, r.submitted_at or "")
    first = ctx.seen_rows.setdefault(key, r.row)
    if first != r.row:
        return [JunkRow(r.row, "duplicate", f"same team, score and date as row {first}")]
    return []


def _junk_placeholder(r: LeaderboardRow, ctx: _JunkContext) -> list[JunkRow]:
    """placeholder: a declared model size beyond any real model, or a row flagged so."""
    if r.source.get(FLAG_COLUMN) == "placeholder":
        return [JunkRow(r.row, "placeholder", "flagged as a placeholder entry")]
    params = r.source.get("Parameters")
    p = _parse_float(params) if params else None
    if p is not None and p > PLACEHOLDER_MAX_PARAMETERS:
        return [JunkRow(r.row, "placeholder", f"declared model size {params} parameters")]
    return []


#: The per-row checkers, applied in this order to every row.
_JUNK_CHECKERS = (_junk_score_text, _junk_value, _junk_duplicate, _junk_placeholder)


def detect_junk(
    lb: Leaderboard, *, value_range: tuple[float, float] | None = None
) -> list[JunkRow]:
    """Every junk row, by rule, in row order (a row may be flagged by several rules)."""
    finite = lb.finite_scores()
    median = float(np.median(finite)) if finite.size else math.nan
    iqr = math.nan
    if finite.size >= 4:
        q1, q3 = np.quantile(finite, [0.25, 0.75])
        iqr = float(q3 - q1)
    ctx = _JunkContext(median=median, iqr=iqr, value_range=value_range, comma=lb.comma)
    found: list[JunkRow] = []
    for r in lb.rows:
        for check in _JUNK_CHECKERS:
            found.extend(check(r, ctx))
    return found


def _parse_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def order_problem(lb: Leaderboard, higher_is_better: bool) -> tuple[int, str | None]:
    """(inversions, message): adjacent row pairs (finite scores, file order) whose order
    contradicts the declared direction, and the warning to give when there are any.

    Platform exports are sorted best first; a contradiction usually means the metric's
    direction was declared wrongly for this task, so rank and medals computed with the declared
    direction may be wrong (the direction itself is never changed).
    """
    s = lb._finite
    if s.size < 2:
        return 0, None
    diffs = np.diff(s)
    bad = int(np.sum(diffs > 0)) if higher_is_better else int(np.sum(diffs < 0))
    if not bad:
        return 0, None
    direction = "higher" if higher_is_better else "lower"
    where = f"leaderboard {lb.path}" if lb.path else "the leaderboard"
    return bad, (f"{where} has {bad} of {s.size - 1} adjacent pairs ordered against the "
                 f"declared direction ({direction} is better); rank and medals assume the "
                 "declared direction: check the metric")


def check_order(lb: Leaderboard, higher_is_better: bool, *, warn: bool = True) -> int:
    """Count adjacent row pairs whose order contradicts the declared direction
    (:func:`order_problem`); issues a :class:`LeaderboardOrderWarning` if any (``warn``)."""
    bad, message = order_problem(lb, higher_is_better)
    if message and warn:
        warnings.warn(message, LeaderboardOrderWarning, stacklevel=2)
    return bad
