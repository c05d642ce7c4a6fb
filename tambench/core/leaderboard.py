"""Leaderboards: load every known format into one normalised table, and find junk rows.

Formats read (the column sets identify them; the file's own order is kept):

* ``kaggle-api``: ``scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore``
* ``kaggle-web``: ``Rank,TeamId,TeamName,LastSubmissionDate,Score,SubmissionCount,
  TeamMemberUserNames`` (usually with a UTF-8 BOM)
* ``biendata``: ``Rank,TeamName,Score,Parameters,GPUMemoryGb,SubmissionCount``
* ``aicrowd``: ``Rank,TeamName,Score,Entries,LastSubmission``
* ``normalised``: what :func:`write_leaderboard` writes (``rank,team,score,entries,
  submitted_at`` then ``src_<original column>``)
* ``kaggle-client``: rows returned by the kaggle client's leaderboard call
  (:func:`leaderboard_from_client_rows`)

The normalised table has ``rank, team, score, entries, submitted_at`` plus every original
column. A missing rank is the 1-based row position (every platform export is sorted best
first). Scores are parsed from strings exactly (``float()``); rows whose score does not parse
keep ``score = NaN`` and their raw text, and are reported as junk.

Junk rules (each names the rows it flags; which rules keep rows out of statistics is explicit,
:data:`DEFAULT_EXCLUDE`):

* ``missing``: empty score, or ``hasScore`` false.
* ``unparseable``: the score is not a number.
* ``non_finite``: NaN or infinite.
* ``out_of_range``: outside the metric's declared value range (when a metric is given).
* ``outlier``: absurdly far from the bulk: ``|score - median| > 1000 * IQR`` of the finite
  scores (a Tukey fence 667 times wider than the usual 1.5 IQR; it flags 2.5e7 on an RMSE
  board whose field scores 2-10, and -3e40 on an R^2 board, but not a log loss of 25 where
  the field scores about 1, which a real submission can earn).
* ``duplicate``: the same team id (or, with no id column, the same team name and score and
  date) as an earlier row.
* ``placeholder``: a placeholder entry: a model size of more than 10^13 parameters (no real
  model is that large; biendata boards list "llava99999b" with 9.999e17).
* ``zero``: an exact zero score, the value failed or empty submissions often receive. Reported,
  but not excluded by default: on some boards zero is a legitimate score.
"""

from __future__ import annotations

import csv
import io
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from tambench.errors import LeaderboardError, LeaderboardOrderWarning

NORMALISED_COLUMNS = ("rank", "team", "score", "entries", "submitted_at")
SOURCE_PREFIX = "src_"

JUNK_RULES = (
    "missing",
    "unparseable",
    "non_finite",
    "out_of_range",
    "outlier",
    "duplicate",
    "placeholder",
    "zero",
)
#: Rules whose rows are kept out of statistics unless the caller says otherwise.
DEFAULT_EXCLUDE = frozenset(JUNK_RULES) - {"zero"}

OUTLIER_IQR_FACTOR = 1000.0
PLACEHOLDER_MAX_PARAMETERS = 1e13

# Column sets identifying each file format (lower-cased, BOM stripped).
_FORMATS: dict[str, dict[str, str | None]] = {
    # format: {normalised field: source column}
    "kaggle-api": {
        "rank": None,
        "team": "teamId",
        "team_id": "teamId",
        "score": "score",
        "entries": None,
        "submitted_at": "submissionDate",
    },
    "kaggle-web": {
        "rank": "Rank",
        "team": "TeamName",
        "team_id": "TeamId",
        "score": "Score",
        "entries": "SubmissionCount",
        "submitted_at": "LastSubmissionDate",
    },
    "biendata": {
        "rank": "Rank",
        "team": "TeamName",
        "team_id": None,
        "score": "Score",
        "entries": "SubmissionCount",
        "submitted_at": None,
    },
    "aicrowd": {
        "rank": "Rank",
        "team": "TeamName",
        "team_id": None,
        "score": "Score",
        "entries": "Entries",
        "submitted_at": "LastSubmission",
    },
}
_SIGNATURES: dict[str, frozenset[str]] = {
    "kaggle-api": frozenset({"scorenullable", "teamid", "hasteamname", "submissiondate", "score"}),
    "kaggle-web": frozenset({"rank", "teamid", "teamname", "lastsubmissiondate", "score"}),
    "biendata": frozenset({"rank", "teamname", "score", "parameters", "gpumemorygb"}),
    "aicrowd": frozenset({"rank", "teamname", "score", "entries", "lastsubmission"}),
    "normalised": frozenset(NORMALISED_COLUMNS),
}

_DATE_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S.%f",
    "%a, %d %b %Y %H:%M",
    "%a, %d %b %Y %H:%M:%S",
    "%Y-%m-%d",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y",
)


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

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def scores(self) -> np.ndarray:
        """Every row's score (NaN where it did not parse), file order."""
        return np.array([r.score for r in self.rows], dtype=np.float64)

    def finite_scores(self) -> np.ndarray:
        """The finite scores: the only ones ranking and statistics may use."""
        s = self.scores
        return s[np.isfinite(s)]

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
        ``exclude`` says: no statistic can use them.
        """
        excluded = set(exclude)
        unknown = excluded - set(JUNK_RULES)
        if unknown:
            raise LeaderboardError(f"unknown junk rule(s) {sorted(unknown)}; known: {JUNK_RULES}")
        drop = {
            j.row
            for j in self.detect_junk(value_range=value_range)
            if j.rule in excluded or j.rule in {"missing", "unparseable", "non_finite"}
        }
        return replace(self, rows=tuple(r for r in self.rows if r.row not in drop))


def _norm_header(name: str) -> str:
    return name.replace("\ufeff", "").strip()


def detect_format(columns: Sequence[str]) -> str:
    """Name the leaderboard format a header belongs to."""
    cols = {_norm_header(c).lower() for c in columns}
    for name, signature in _SIGNATURES.items():
        if signature <= cols:
            return name
    raise LeaderboardError(
        f"unknown leaderboard format with columns {list(columns)}; expected one of: "
        + "; ".join(f"{k} ({', '.join(sorted(v))})" for k, v in _SIGNATURES.items())
    )


def parse_score(text: str) -> tuple[float, str | None]:
    """Parse a score string. Returns (value, problem) where problem names a junk rule.

    >>> parse_score(" 0.98514 ")
    (0.98514, None)
    >>> parse_score("")[1]
    'missing'
    >>> parse_score("n/a")[1]
    'unparseable'
    """
    s = (text or "").strip().strip('"').strip()
    if s == "":
        return math.nan, "missing"
    try:
        value = float(s.replace(",", "")) if s.count(",") and s.count(".") <= 1 else float(s)
    except ValueError:
        return math.nan, "unparseable"
    if not math.isfinite(value):
        return value, "non_finite"
    return value, None


def parse_timestamp(text: str | None) -> str | None:
    """Normalise a leaderboard date to ISO 8601, or return the text unchanged if unknown.

    >>> parse_timestamp("Fri, 23 Jun 2023 08:04")
    '2023-06-23T08:04:00'
    """
    if text is None:
        return None
    s = text.strip()
    if not s:
        return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(s, fmt).isoformat()
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(s).isoformat()
    except ValueError:
        return s


def _parse_int(text: str | None) -> int | None:
    if text is None:
        return None
    s = text.strip()
    if not s:
        return None
    try:
        return int(float(s))
    except ValueError:
        return None


def _is_false(text: str | None) -> bool:
    return (text or "").strip().lower() in {"false", "0", "no"}


def _rows_from_records(
    records: list[dict[str, str]], columns: Sequence[str], fmt: str, path: str = ""
) -> Leaderboard:
    rows: list[LeaderboardRow] = []
    if fmt == "normalised":
        source_cols = tuple(c for c in columns if c.startswith(SOURCE_PREFIX))
        for i, rec in enumerate(records, start=1):
            raw = rec.get("score", "") or ""
            score, _ = parse_score(raw)
            rows.append(
                LeaderboardRow(
                    row=i,
                    rank=_parse_int(rec.get("rank")),
                    team=rec.get("team", "") or "",
                    score=score,
                    score_raw=raw,
                    entries=_parse_int(rec.get("entries")),
                    submitted_at=rec.get("submitted_at") or None,
                    team_id=rec.get("team_id") or None,
                    source={c[len(SOURCE_PREFIX):]: rec.get(c, "") or "" for c in source_cols},
                )
            )
        orig = tuple(c[len(SOURCE_PREFIX):] for c in source_cols)
        return Leaderboard(rows=tuple(rows), format=fmt, source_columns=orig, path=path)

    mapping = _FORMATS[fmt]
    # Resolve mapping names case-insensitively against the actual header.
    by_lower = {c.lower(): c for c in columns}

    def col(key: str) -> str | None:
        name = mapping.get(key)
        return by_lower.get(name.lower()) if name else None

    c_rank, c_team, c_id = col("rank"), col("team"), col("team_id")
    c_score, c_entries, c_date = col("score"), col("entries"), col("submitted_at")
    c_has = by_lower.get("hasscore")
    for i, rec in enumerate(records, start=1):
        raw = (rec.get(c_score, "") if c_score else "") or ""
        score, _ = parse_score(raw)
        has_score = not (c_has and _is_false(rec.get(c_has)))
        team_name = (rec.get(c_team, "") if c_team else "") or ""
        rows.append(
            LeaderboardRow(
                row=i,
                rank=_parse_int(rec.get(c_rank)) if c_rank else i,
                team=team_name.strip(),
                score=score if has_score else math.nan,
                score_raw=raw,
                entries=_parse_int(rec.get(c_entries)) if c_entries else None,
                submitted_at=parse_timestamp(rec.get(c_date)) if c_date else None,
                team_id=((rec.get(c_id) or "").strip() or None) if c_id else None,
                has_score=has_score,
                source={c: rec.get(c, "") or "" for c in columns},
            )
        )
    return Leaderboard(rows=tuple(rows), format=fmt, source_columns=tuple(columns), path=path)


def read_leaderboard_text(text: str, *, path: str = "") -> Leaderboard:
    """Parse leaderboard CSV text of any known format."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise LeaderboardError(f"leaderboard {path or '(text)'} is empty")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [_norm_header(h) for h in next(reader)]
    except csv.Error as exc:
        raise LeaderboardError(f"leaderboard {path or '(text)'} is not valid CSV: {exc}") from exc
    if len(set(header)) != len(header):
        raise LeaderboardError(f"leaderboard {path or '(text)'} has duplicate columns {header}")
    fmt = detect_format(header)
    records: list[dict[str, str]] = []
    try:
        for lineno, values in enumerate(reader, start=2):
            if not values or all(not v.strip() for v in values):
                continue
            if len(values) != len(header):
                raise LeaderboardError(
                    f"leaderboard {path or '(text)'} line {lineno}: {len(values)} fields, "
                    f"expected {len(header)}"
                )
            records.append(dict(zip(header, values, strict=True)))
    except csv.Error as exc:
        raise LeaderboardError(f"leaderboard {path or '(text)'} is not valid CSV: {exc}") from exc
    if not records:
        raise LeaderboardError(f"leaderboard {path or '(text)'} has a header but no rows")
    return _rows_from_records(records, header, fmt, path)


def read_leaderboard(path: str | Path) -> Leaderboard:
    """Read a leaderboard file of any known format (UTF-8, with or without BOM)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise LeaderboardError(f"leaderboard file not found: {p}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LeaderboardError(f"leaderboard {p} is not UTF-8: {exc}") from exc
    return read_leaderboard_text(text, path=str(p))


def _get(obj: Any, *names: str) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if not isinstance(obj, dict) and hasattr(obj, n):
            return getattr(obj, n)
    return None


def leaderboard_from_client_rows(rows: Iterable[Any]) -> Leaderboard:
    """Normalise rows from the kaggle client's ``competition_leaderboard_view``.

    Each row may be an object or dict with ``team_id``/``teamId``, ``team_name``/``teamName``,
    ``submission_date``/``submissionDate`` and ``score`` (a string).
    """
    out: list[LeaderboardRow] = []
    for i, r in enumerate(rows, start=1):
        raw = _get(r, "score")
        raw_s = "" if raw is None else str(raw)
        score, _ = parse_score(raw_s)
        team_id = _get(r, "team_id", "teamId")
        team = _get(r, "team_name", "teamName")
        date = _get(r, "submission_date", "submissionDate")
        source = {
            "teamId": "" if team_id is None else str(team_id),
            "teamName": "" if team is None else str(team),
            "submissionDate": "" if date is None else str(date),
            "score": raw_s,
        }
        out.append(
            LeaderboardRow(
                row=i,
                rank=i,
                team=source["teamName"].strip(),
                score=score,
                score_raw=raw_s,
                submitted_at=parse_timestamp(source["submissionDate"]),
                team_id=source["teamId"] or None,
                source=source,
            )
        )
    if not out:
        raise LeaderboardError("the kaggle client returned no leaderboard rows")
    return Leaderboard(
        rows=tuple(out),
        format="kaggle-client",
        source_columns=("teamId", "teamName", "submissionDate", "score"),
    )


def _fmt_float(x: float) -> str:
    return "" if math.isnan(x) else repr(float(x))


def leaderboard_to_csv(lb: Leaderboard) -> str:
    """The normalised CSV text: ``rank,team,score,entries,submitted_at,team_id,src_*``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*NORMALISED_COLUMNS, "team_id", *(SOURCE_PREFIX + c for c in lb.source_columns)])
    for r in lb.rows:
        w.writerow(
            [
                "" if r.rank is None else r.rank,
                r.team,
                _fmt_float(r.score) if r.has_score else "",
                "" if r.entries is None else r.entries,
                r.submitted_at or "",
                r.team_id or "",
                *(r.source.get(c, "") for c in lb.source_columns),
            ]
        )
    return buf.getvalue()


def write_leaderboard(lb: Leaderboard, path: str | Path) -> None:
    """Write the normalised form (readable again by :func:`read_leaderboard`)."""
    from tambench.fileio import write_text_atomic

    write_text_atomic(path, leaderboard_to_csv(lb))


def detect_junk(
    lb: Leaderboard, *, value_range: tuple[float, float] | None = None
) -> list[JunkRow]:
    """Every junk row, by rule, in row order (a row may be flagged by several rules)."""
    found: list[JunkRow] = []
    finite = lb.finite_scores()
    median = float(np.median(finite)) if finite.size else math.nan
    if finite.size >= 4:
        q1, q3 = np.quantile(finite, [0.25, 0.75])
        iqr = float(q3 - q1)
    else:
        iqr = math.nan
    seen_ids: dict[str, int] = {}
    seen_rows: dict[tuple[str, str, str], int] = {}
    for r in lb.rows:
        if not r.has_score:
            found.append(JunkRow(r.row, "missing", "the row has no score (hasScore is false)"))
            continue
        _, problem = parse_score(r.score_raw)
        if problem == "missing":
            found.append(JunkRow(r.row, "missing", "empty score"))
        elif problem == "unparseable":
            found.append(JunkRow(r.row, "unparseable", f"score {r.score_raw!r} is not a number"))
        elif problem == "non_finite":
            found.append(JunkRow(r.row, "non_finite", f"score {r.score_raw!r} is not finite"))
        if math.isfinite(r.score):
            if value_range is not None and not (value_range[0] <= r.score <= value_range[1]):
                found.append(
                    JunkRow(
                        r.row,
                        "out_of_range",
                        f"score {r.score!r} outside the metric's range "
                        f"[{value_range[0]}, {value_range[1]}]",
                    )
                )
            if iqr > 0 and abs(r.score - median) > OUTLIER_IQR_FACTOR * iqr:
                found.append(
                    JunkRow(
                        r.row,
                        "outlier",
                        f"score {r.score!r} is {abs(r.score - median) / iqr:.3g} IQRs from the "
                        f"median {median:.6g}",
                    )
                )
            if r.score == 0.0:
                found.append(JunkRow(r.row, "zero", "exact zero score"))
        if r.team_id:
            if r.team_id in seen_ids:
                found.append(
                    JunkRow(r.row, "duplicate", f"team id {r.team_id} already on row "
                            f"{seen_ids[r.team_id]}")
                )
            else:
                seen_ids[r.team_id] = r.row
        else:
            key = (r.team, r.score_raw, r.submitted_at or "")
            if key in seen_rows:
                found.append(
                    JunkRow(r.row, "duplicate", f"same team, score and date as row {seen_rows[key]}")
                )
            else:
                seen_rows[key] = r.row
        params = r.source.get("Parameters")
        if params:
            p = _parse_float(params)
            if p is not None and p > PLACEHOLDER_MAX_PARAMETERS:
                found.append(
                    JunkRow(r.row, "placeholder", f"declared model size {params} parameters")
                )
    return found


def _parse_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def check_order(lb: Leaderboard, higher_is_better: bool, *, warn: bool = True) -> int:
    """Count adjacent row pairs whose order contradicts the declared direction.

    Platform exports are sorted best first; a contradiction usually means the metric's
    direction was declared wrongly for this task (the direction itself is never changed).
    Returns the number of inversions and issues a :class:`LeaderboardOrderWarning` if any.
    """
    s = np.array([r.score for r in lb.rows if math.isfinite(r.score)], dtype=np.float64)
    if s.size < 2:
        return 0
    diffs = np.diff(s)
    bad = int(np.sum(diffs > 0)) if higher_is_better else int(np.sum(diffs < 0))
    if bad and warn:
        direction = "higher" if higher_is_better else "lower"
        warnings.warn(
            f"leaderboard {lb.path or ''} has {bad} of {s.size - 1} adjacent pairs ordered "
            f"against the declared direction ({direction} is better); check the metric",
            LeaderboardOrderWarning,
            stacklevel=2,
        )
    return bad
