"""Writing leaderboards: the normalised form (every original column) and the compact form."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from tambench.core.leaderboard.model import (
    FLAG_COLUMN,
    NORMALISED_COLUMNS,
    SOURCE_PREFIX,
    Leaderboard,
    detect_junk,
)
from tambench.fileio import write_text_atomic

#: Columns of the compact form: the final rank order and each row's score as the source wrote
#: it (``flag`` is added only when some row is a placeholder entry, which no score can show).
COMPACT_COLUMNS = ("rank", "score")

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
    write_text_atomic(path, leaderboard_to_csv(lb))


def leaderboard_to_compact_csv(lb: Leaderboard) -> str:
    """The compact form: ``rank,score`` (plus ``flag``), one row per source row, same order.

    The rank is the source's rank, or the row's position when the source has none. The score
    is the source's text, stripped, so that no digit is lost or invented; a row without a
    score keeps an empty cell (it still counts as a participant). Team names, dates and other
    columns are dropped: ranking and difficulty need only the order and the scores.
    """
    placeholders = {j.row for j in detect_junk(lb) if j.rule == "placeholder"}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*COMPACT_COLUMNS, *([FLAG_COLUMN] if placeholders else [])])
    for r in lb.rows:
        score = r.score_raw.strip().strip('"').strip() if r.has_score else ""
        rank = r.rank if r.rank is not None else r.row
        flag = ["placeholder" if r.row in placeholders else ""] if placeholders else []
        w.writerow([rank, score, *flag])
    return buf.getvalue()


def write_compact_leaderboard(lb: Leaderboard, path: str | Path) -> None:
    """Write the compact form (readable again by ``read_leaderboard`` as ``rank-score``)."""
    write_text_atomic(path, leaderboard_to_compact_csv(lb))
