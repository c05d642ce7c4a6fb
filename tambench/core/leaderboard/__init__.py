"""Leaderboards: load every known format into one normalised table, and find junk rows.

Formats read (the column sets identify them; the file's own order is kept):

* ``kaggle-api``: ``scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore``
* ``kaggle-web``: ``Rank,TeamId,TeamName,LastSubmissionDate,Score,SubmissionCount,
  TeamMemberUserNames`` (usually with a UTF-8 BOM)
* ``biendata``: ``Rank,TeamName,Score,Parameters,GPUMemoryGb,SubmissionCount``
* ``aicrowd``: ``Rank,TeamName,Score,Entries,LastSubmission``
* ``normalised``: what :func:`write_leaderboard` writes (``rank,team,score,entries,
  submitted_at`` then ``src_<original column>``)
* ``rank-score``: ``rank,score`` and nothing else (MLE-Dojo's copies of Kaggle's private
  boards), optionally with a ``flag`` column: the compact form the catalogue ships
  (:func:`write_compact_leaderboard`)
* ``kaggle-client``: rows returned by the kaggle client's leaderboard call
  (:func:`leaderboard_from_client_rows`)

The normalised table has ``rank, team, score, entries, submitted_at`` plus every original
column. A missing rank is the 1-based row position (every platform export is sorted best
first). Every numeric cell is read strictly (:mod:`.numbers`): ASCII numbers only, ranks and
entry counts whole numbers, a comma in a score read by its shape and the board's convention
(``0,5`` is a decimal comma, ``1,234`` thousands unless the board writes decimal commas, a
board showing both has its comma cells refused). Rows whose score does not parse keep
``score = NaN`` and their raw text; a rank or count that is not a whole number (``inf``,
``1e400``) is the row's problem: both are reported as junk, never a crash, but only the score
decides whether a row counts.

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
  date) as an earlier row. A board without team names or ids (``rank,score``) has no
  duplicates: equal scores there are ties.
* ``placeholder``: a placeholder entry: a model size of more than 10^13 parameters (no real
  model is that large; biendata boards list "llava99999b" with 9.999e17), or a row whose
  ``flag`` says ``placeholder`` (the compact form keeps that verdict, as it drops the column
  it came from).

The package is split by concern: :mod:`.model` (rows, junk rules, order check), :mod:`.numbers`
(numeric cells), :mod:`.read` (formats in) and :mod:`.write` (normalised and compact forms out).
* ``zero``: an exact zero score, the value failed or empty submissions often receive. Reported,
  but not excluded by default: on some boards zero is a legitimate score.
* ``bad_cell``: the rank or entries cell is not a whole number (``LeaderboardRow.problems``
  names the cell). Reported, but not excluded by default: a board row whose
  ``SubmissionCount`` is ``inf`` is still a team with a score, and dropping it would move
  every rank percentage.
"""

from __future__ import annotations

from tambench.core.leaderboard.model import (
    DEFAULT_EXCLUDE,
    FLAG_COLUMN,
    JUNK_RULES,
    NORMALISED_COLUMNS,
    OUTLIER_IQR_FACTOR,
    PLACEHOLDER_MAX_PARAMETERS,
    SOURCE_PREFIX,
    JunkRow,
    Leaderboard,
    LeaderboardRow,
    check_order,
    detect_junk,
    order_problem,
    parse_score,
)
from tambench.core.leaderboard.read import (
    detect_format,
    leaderboard_from_client_rows,
    parse_timestamp,
    read_leaderboard,
    read_leaderboard_text,
)
from tambench.core.leaderboard.write import (
    COMPACT_COLUMNS,
    leaderboard_to_compact_csv,
    leaderboard_to_csv,
    write_compact_leaderboard,
    write_leaderboard,
)

__all__ = [
    "COMPACT_COLUMNS",
    "DEFAULT_EXCLUDE",
    "FLAG_COLUMN",
    "JUNK_RULES",
    "NORMALISED_COLUMNS",
    "OUTLIER_IQR_FACTOR",
    "PLACEHOLDER_MAX_PARAMETERS",
    "SOURCE_PREFIX",
    "JunkRow",
    "Leaderboard",
    "LeaderboardRow",
    "check_order",
    "detect_format",
    "detect_junk",
    "leaderboard_from_client_rows",
    "leaderboard_to_compact_csv",
    "leaderboard_to_csv",
    "order_problem",
    "parse_score",
    "parse_timestamp",
    "read_leaderboard",
    "read_leaderboard_text",
    "write_compact_leaderboard",
    "write_leaderboard",
]
