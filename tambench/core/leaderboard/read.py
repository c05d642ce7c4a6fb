"""Reading every known leaderboard format into the one model."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from tambench.core.leaderboard.model import (
    FLAG_COLUMN,
    NORMALISED_COLUMNS,
    SOURCE_PREFIX,
    Leaderboard,
    LeaderboardRow,
    parse_score,
)
from tambench.core.leaderboard.numbers import comma_convention, read_whole
from tambench.errors import LeaderboardError

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
    "rank-score": {
        "rank": "rank",
        "team": None,
        "team_id": None,
        "score": "score",
        "entries": None,
        "submitted_at": None,
    },
}
_SIGNATURES: dict[str, frozenset[str]] = {
    "kaggle-api": frozenset({"scorenullable", "teamid", "hasteamname", "submissiondate", "score"}),
    "kaggle-web": frozenset({"rank", "teamid", "teamname", "lastsubmissiondate", "score"}),
    "biendata": frozenset({"rank", "teamname", "score", "parameters", "gpumemorygb"}),
    "aicrowd": frozenset({"rank", "teamname", "score", "entries", "lastsubmission"}),
    "normalised": frozenset(NORMALISED_COLUMNS),
}
#: The ``rank,score`` form (MLE-Dojo's copies, and the catalogue's compact form) is matched
#: only when the header holds nothing else, so that a truncated export is not taken for it.
_RANK_SCORE_REQUIRED = frozenset({"rank", "score"})
_RANK_SCORE_ALLOWED = _RANK_SCORE_REQUIRED | {FLAG_COLUMN}

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

#: The first date format exactly, as Kaggle's exports write every row: read without strptime
#: (a tenth of its cost); anything else, an impossible date included, takes the full path.
_PLAIN_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")


def _norm_header(name: str) -> str:
    return name.replace("\ufeff", "").strip()


def detect_format(columns: Sequence[str]) -> str:
    """Name the leaderboard format a header belongs to."""
    cols = {_norm_header(c).lower() for c in columns}
    for name, signature in _SIGNATURES.items():
        if signature <= cols:
            return name
    if _RANK_SCORE_REQUIRED <= cols <= _RANK_SCORE_ALLOWED:
        return "rank-score"
    raise LeaderboardError(
        f"unknown leaderboard format with columns {list(columns)}; expected one of: "
        + "; ".join(f"{k} ({', '.join(sorted(v))})" for k, v in _SIGNATURES.items())
        + f"; rank-score ({', '.join(sorted(_RANK_SCORE_REQUIRED))}, optional {FLAG_COLUMN})"
    )


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
    plain = _PLAIN_DATE_TIME.fullmatch(s)
    if plain is not None:
        try:
            y, mo, d, h, mi, sec = map(int, plain.groups())
            datetime(y, mo, d, h, mi, sec)  # a real date and time, or ValueError
        except ValueError:
            pass
        else:
            return f"{s[:10]}T{s[11:]}"  # its isoformat(): every field already two digits
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(s, fmt).isoformat()
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(s).isoformat()
    except ValueError:
        return s


def _wholes(cells: dict[str, str | None], problems: list[str]) -> dict[str, int | None]:
    """rank and entries read strictly as whole numbers of at least 0 (Kaggle ranks its
    benchmark rows 0); each bad cell is a problem."""
    out: dict[str, int | None] = {}
    for what in ("rank", "entries"):
        value, problem = read_whole(cells.get(what), what)
        out[what] = value
        if problem:
            problems.append(problem)
    return out


def _is_false(text: str | None) -> bool:
    return (text or "").strip().lower() in {"false", "0", "no"}


def _rows_normalised(records: list[dict[str, str]], columns: Sequence[str],
                     path: str) -> Leaderboard:
    source_cols = tuple(c for c in columns if c.startswith(SOURCE_PREFIX))
    comma = comma_convention(rec.get("score", "") or "" for rec in records)
    rows: list[LeaderboardRow] = []
    for i, rec in enumerate(records, start=1):
        raw = rec.get("score", "") or ""
        score, _ = parse_score(raw, comma)
        problems: list[str] = []
        whole = _wholes({"rank": rec.get("rank"), "entries": rec.get("entries")}, problems)
        rows.append(
            LeaderboardRow(
                row=i,
                rank=whole["rank"],
                team=rec.get("team", "") or "",
                score=score,
                score_raw=raw,
                entries=whole["entries"],
                submitted_at=rec.get("submitted_at") or None,
                team_id=rec.get("team_id") or None,
                source={c[len(SOURCE_PREFIX):]: rec.get(c, "") or "" for c in source_cols},
                problems=tuple(problems),
            )
        )
    orig = tuple(c[len(SOURCE_PREFIX):] for c in source_cols)
    return Leaderboard(rows=tuple(rows), format="normalised", source_columns=orig, path=path,
                       comma=comma)


def _rows_mapped(records: list[dict[str, str]], columns: Sequence[str], fmt: str,
                 path: str) -> Leaderboard:
    mapping = _FORMATS[fmt]
    # Resolve mapping names case-insensitively against the actual header.
    by_lower = {c.lower(): c for c in columns}

    def col(key: str) -> str | None:
        name = mapping.get(key)
        return by_lower.get(name.lower()) if name else None

    c_rank, c_team, c_id = col("rank"), col("team"), col("team_id")
    c_score, c_entries, c_date = col("score"), col("entries"), col("submitted_at")
    c_has = by_lower.get("hasscore")
    comma = comma_convention(((rec.get(c_score, "") if c_score else "") or "") for rec in records)
    rows: list[LeaderboardRow] = []
    for i, rec in enumerate(records, start=1):
        raw = (rec.get(c_score, "") if c_score else "") or ""
        score, _ = parse_score(raw, comma)
        has_score = not (c_has and _is_false(rec.get(c_has)))
        team_name = (rec.get(c_team, "") if c_team else "") or ""
        problems: list[str] = []
        whole = _wholes({"rank": rec.get(c_rank) if c_rank else None,
                         "entries": rec.get(c_entries) if c_entries else None}, problems)
        if not c_rank:  # the row's position: a whole number, nothing to check
            whole["rank"] = i
        rows.append(
            LeaderboardRow(
                row=i,
                rank=whole["rank"],
                team=team_name.strip(),
                score=score if has_score else math.nan,
                score_raw=raw,
                entries=whole["entries"],
                submitted_at=parse_timestamp(rec.get(c_date)) if c_date else None,
                team_id=((rec.get(c_id) or "").strip() or None) if c_id else None,
                has_score=has_score,
                source=rec,  # every column of the row, as read (the record is not used again)
                problems=tuple(problems),
            )
        )
    return Leaderboard(rows=tuple(rows), format=fmt, source_columns=tuple(columns), path=path,
                       comma=comma)


def _rows_from_records(
    records: list[dict[str, str]], columns: Sequence[str], fmt: str, path: str = ""
) -> Leaderboard:
    if fmt == "normalised":
        return _rows_normalised(records, columns, path)
    return _rows_mapped(records, columns, fmt, path)


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
            if not values or (not values[0].strip() and all(not v.strip() for v in values)):
                continue  # a blank line (a first cell with text settles it at once)
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
