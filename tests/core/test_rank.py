"""Rank percentiles and medals: ties, every team-count band, both directions, NaN rejected."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tambench.core.leaderboard import read_leaderboard
from tambench.core.rank import award_medal, medal_positions, medal_thresholds, rank_score
from tambench.errors import InvalidScoreError, LeaderboardError


def test_rank_is_one_plus_strictly_better_and_ties_favour_the_submitter() -> None:
    board = [0.9, 0.8, 0.8, 0.8, 0.5]
    assert rank_score(0.8, board, higher_is_better=True).rank == 2
    assert rank_score(0.85, board, higher_is_better=True).rank == 2
    assert rank_score(0.95, board, higher_is_better=True).rank == 1
    r = rank_score(0.9, board, higher_is_better=True)
    assert (r.rank, r.n, r.rank_pct) == (1, 5, 20.0)


def test_rank_lower_is_better_mirrors_higher() -> None:
    board = [1.0, 2.0, 2.0, 3.0]
    assert rank_score(2.0, board, higher_is_better=False).rank == 2
    assert rank_score(0.5, board, higher_is_better=False).rank == 1
    assert rank_score(2.5, board, higher_is_better=False).rank == 4


def test_rank_is_clamped_to_n_and_the_submission_is_not_inserted() -> None:
    board = [0.9, 0.8]
    r = rank_score(0.1, board, higher_is_better=True)
    assert (r.rank, r.n, r.rank_pct) == (2, 2, 100.0)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, None, "abc"])
def test_non_finite_or_missing_scores_are_rejected_never_ranked(bad: object) -> None:
    with pytest.raises(InvalidScoreError):
        rank_score(bad, [0.1, 0.2], higher_is_better=True)  # type: ignore[call-overload]


def test_one_nan_in_a_vector_rejects_the_call_and_names_its_position() -> None:
    with pytest.raises(InvalidScoreError, match=r"positions \[2\]"):
        rank_score(np.array([0.1, 0.2, np.nan]), [0.1, 0.2], higher_is_better=True)


def test_vectorised_ranking_matches_one_by_one() -> None:
    rng = np.random.default_rng(0)
    board = np.round(rng.normal(size=1000), 2)  # many ties
    scores = np.round(rng.normal(size=10_000), 2)
    for hib in (True, False):
        many = rank_score(scores, board, higher_is_better=hib)
        assert many.rank.shape == (10_000,)
        for i in range(0, 10_000, 997):
            one = rank_score(float(scores[i]), board, higher_is_better=hib)
            assert one.rank == many.rank[i]
            assert one.rank_pct == many.rank_pct[i]
        expected = np.minimum(
            1 + ((board[None, :] > scores[:, None]) if hib else (board[None, :] < scores[:, None])).sum(1),
            1000,
        )
        assert np.array_equal(many.rank, expected)


def test_non_finite_leaderboard_rows_are_not_counted_in_n() -> None:
    r = rank_score(0.5, [0.9, math.nan, 0.1], higher_is_better=True)
    assert (r.rank, r.n) == (2, 2)
    with pytest.raises(LeaderboardError, match="no finite scores"):
        rank_score(0.5, [math.nan], higher_is_better=True)


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, (1, 1, 1)),
        (7, (1, 1, 2)),
        (50, (5, 10, 20)),
        (99, (9, 19, 39)),
        (100, (10, 20, 40)),
        (249, (10, 49, 99)),
        (250, (10, 50, 100)),
        (999, (11, 50, 100)),
        (1000, (12, 50, 100)),
        (3330, (16, 166, 333)),
    ],
)
def test_medal_positions_follow_kaggle_progression_bands(n: int, expected: tuple[int, int, int]) -> None:
    assert medal_positions(n) == expected


def test_medal_thresholds_are_scores_at_those_positions_both_directions() -> None:
    board = list(range(1, 201))  # 200 teams: gold 10, silver 40, bronze 80
    g, s, b, med = medal_thresholds(board, higher_is_better=True)
    assert (g, s, b, med) == (191.0, 161.0, 121.0, 100.5)
    g, s, b, med = medal_thresholds(board, higher_is_better=False)
    assert (g, s, b) == (10.0, 40.0, 80.0)


def test_medals_are_inclusive_and_exclusive_of_each_other() -> None:
    board = list(range(1, 201))
    gold = award_medal(191, board, higher_is_better=True)
    assert gold.gold_medal and not gold.silver_medal and gold.any_medal
    silver = award_medal(190.5, board, higher_is_better=True)
    assert silver.silver_medal and not silver.gold_medal
    bronze = award_medal(121, board, higher_is_better=True)
    assert bronze.bronze_medal and not bronze.silver_medal
    none = award_medal(120.9, board, higher_is_better=True)
    assert not none.any_medal and none.above_median
    at_median = award_medal(100.5, board, higher_is_better=True)
    assert not at_median.above_median  # strictly better than the median
    low = award_medal(10, board, higher_is_better=False)
    assert low.gold_medal
    with pytest.raises(InvalidScoreError):
        award_medal(math.nan, board, higher_is_better=True)


def test_real_board_rank_and_medals_for_a_lower_is_better_metric(tam_lite_dir: Path) -> None:
    lb = read_leaderboard(tam_lite_dir / "statoil-iceberg-classifier-challenge" / "leaderboard.csv")
    best = float(lb.finite_scores().min())
    r = rank_score(best, lb, higher_is_better=False)
    assert (r.rank, r.n) == (1, 3330)
    m = award_medal(best, lb, higher_is_better=False)
    assert m.gold_medal and m.above_median
    worst = rank_score(1e9, lb, higher_is_better=False)
    assert worst.rank == 3330 and worst.rank_pct == 100.0
