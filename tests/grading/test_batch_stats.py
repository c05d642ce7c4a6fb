"""Aggregates and their uncertainty, checked against computations written here from the
definitions in docs/numbers.md (not from the code under test)."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

import numpy as np
import pytest

from tambench.grading.batch import Aggregation, RunRow, RunStatus, summarise

NOW = datetime(2025, 1, 1, tzinfo=UTC)
TASKS = {"t-tab-1": "Tabular", "t-tab-2": "Tabular", "t-img": "Image"}


def row(agent: str, task: str, run: int, rank_pct: float | None, medal: bool = False) -> RunRow:
    """A run on a task with a 100-team leaderboard; rank_pct None: an invalid submission."""
    valid = rank_pct is not None
    return RunRow(
        agent=agent, task=task, run=f"r{run}", task_id=f"k/{task}", modality=TASKS[task],
        status=RunStatus.GRADED_VALID if valid else RunStatus.INVALID_SUBMISSION,
        submission_exists=True, valid_submission=valid, score=rank_pct, created_at=NOW,
        rank=None if rank_pct is None else int(rank_pct), n_teams=100 if valid else None,
        rank_pct=rank_pct, any_medal=medal, gold_medal=medal, silver_medal=False,
        bronze_medal=False, above_median=valid and rank_pct is not None and rank_pct < 50,
        errors=[] if valid else ["column `y` missing"],
    )


def flaky_and_steady() -> list[RunRow]:
    """steady: valid every time, middling; flaky: brilliant once in four runs, else invalid."""
    rows = []
    steady = {"t-tab-1": [30, 34, 28, 32], "t-tab-2": [40, 44, 38, 42], "t-img": [20, 26, 22, 24]}
    for task, pcts in steady.items():
        rows += [row("steady", task, i, float(p), medal=p < 25) for i, p in enumerate(pcts)]
    for task in TASKS:
        rows += [row("flaky", task, 0, 2.0, medal=True)]
        rows += [row("flaky", task, i, None) for i in (1, 2, 3)]
    return sorted(rows, key=lambda r: (r.agent, r.task, r.run))


def by_hand_weighted(task_means: dict[str, float]) -> float:
    """sum p_i / f(m_i) / sum 1 / f(m_i), f(m) = tasks of modality m."""
    f: dict[str, int] = {}
    for t in task_means:
        f[TASKS[t]] = f.get(TASKS[t], 0) + 1
    num = sum(p / f[TASKS[t]] for t, p in task_means.items())
    return num / sum(1 / f[TASKS[t]] for t in task_means)


def test_headline_ranking_follows_the_stated_rule_by_hand() -> None:
    rows = flaky_and_steady()
    last = {a.agent: a for a in summarise(rows, Aggregation(invalid_runs="last"))[0]}
    flaky_last = by_hand_weighted({t: (2 + 100 + 100 + 100) / 4 for t in TASKS})
    steady_means = {"t-tab-1": 31.0, "t-tab-2": 41.0, "t-img": 23.0}
    assert last["flaky"].modality_weighted_rank_pct.value == pytest.approx(flaky_last)  # type: ignore[union-attr]
    assert last["steady"].modality_weighted_rank_pct.value == pytest.approx(  # type: ignore[union-attr]
        by_hand_weighted(steady_means))
    # the steady agent leads under the default rule ...
    assert (last["steady"].modality_weighted_rank_pct.value  # type: ignore[union-attr]
            < last["flaky"].modality_weighted_rank_pct.value)  # type: ignore[union-attr]
    # ... and the flaky one would lead if invalid runs were dropped: why the rule is stated
    excl = {a.agent: a for a in summarise(rows, Aggregation(invalid_runs="exclude"))[0]}
    assert excl["flaky"].modality_weighted_rank_pct.value == pytest.approx(2.0)  # type: ignore[union-attr]
    assert last["flaky"].valid_submission_rate.value == pytest.approx(0.25)
    assert last["flaky"].any_medal_rate.value == pytest.approx(3 / 12)  # type: ignore[union-attr]


def _words(agent: str, task: str) -> list[int]:
    digest = hashlib.blake2b(f"{agent}\0{task}".encode(), digest_size=16).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


def _resample(agent: str, task: str, values: list[float], seed: int, b: int) -> np.ndarray:
    rng = np.random.default_rng(np.random.SeedSequence([seed, *_words(agent, task)]))
    idx = rng.integers(0, len(values), size=(b, len(values)))
    return np.asarray(values)[idx]


def _interval(reps: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    tail = (1 - confidence) / 2
    low, high = np.quantile(reps, [tail, 1 - tail])
    return float(np.std(reps, ddof=1)), float(low), float(high)


def _weighted_rows(means: dict[str, np.ndarray]) -> np.ndarray:
    f: dict[str, int] = {}
    for t in means:
        f[TASKS[t]] = f.get(TASKS[t], 0) + 1
    num = sum(m / f[TASKS[t]] for t, m in means.items())
    return num / sum(1 / f[TASKS[t]] for t in means)


@pytest.mark.parametrize("seed", [0, 7])
def test_intervals_are_the_seeded_bootstrap_over_runs_within_tasks(seed: int) -> None:
    rows = flaky_and_steady()
    b = 400
    agents, comparisons = summarise(rows, Aggregation(bootstrap_samples=b, seed=seed))
    report = {a.agent: a for a in agents}
    values = {a: {t: [r.rank_pct if r.rank_pct is not None else 100.0 for r in rows
                      if r.agent == a and r.task == t] for t in TASKS} for a in report}
    means = {a: {t: _resample(a, f"k/{t}", v, seed, b).mean(axis=1) for t, v in tasks.items()}
             for a, tasks in values.items()}
    for agent in report:
        est = report[agent].modality_weighted_rank_pct
        assert est is not None
        se, low, high = _interval(_weighted_rows(means[agent]))
        assert (est.se, est.ci_low, est.ci_high) == pytest.approx((se, low, high), rel=1e-12)
        assert est.ci_low <= est.value <= est.ci_high  # type: ignore[operator]
    # medal rate: resampled medal counts summed over tasks / runs
    medals = {t: [1.0 if (r.any_medal) else 0.0 for r in rows
                  if r.agent == "steady" and r.task == t] for t in TASKS}
    counts = sum(_resample("steady", f"k/{t}", v, seed, b).sum(axis=1) for t, v in medals.items())
    se, low, high = _interval(counts / 12)
    est = report["steady"].any_medal_rate
    assert est is not None and (est.se, est.ci_low, est.ci_high) == pytest.approx((se, low, high))
    # paired comparison: flaky minus steady over their three shared tasks
    (pair,) = comparisons
    assert (pair.agent_a, pair.agent_b, pair.n_tasks) == ("flaky", "steady", 3)
    diff = _weighted_rows(means["flaky"]) - _weighted_rows(means["steady"])
    se, low, high = _interval(diff)
    assert (pair.difference.se, pair.difference.ci_low, pair.difference.ci_high) == pytest.approx(
        (se, low, high), rel=1e-12)
    assert pair.better == "steady" and pair.difference.ci_low > 0  # type: ignore[operator]


def test_the_same_batch_gives_the_same_intervals_and_other_agents_do_not_move_them() -> None:
    rows = flaky_and_steady()
    one = summarise(rows, Aggregation())[0]
    extra = [row("zz-new", t, i, float(10 * i + 5)) for t in TASKS for i in range(3)]
    two = summarise(sorted(rows + extra, key=lambda r: (r.agent, r.task, r.run)), Aggregation())[0]
    assert one[0] == two[0] and one[1] == two[1]


def test_any_medal_at_k_follows_its_definition() -> None:
    # t-tab-1: 4 runs, 1 medal; t-tab-2: 4 runs, 0 medals; t-img: 2 runs, 2 medals
    rows = [row("a", "t-tab-1", i, 10.0, medal=i == 0) for i in range(4)]
    rows += [row("a", "t-tab-2", i, 60.0) for i in range(4)]
    rows += [row("a", "t-img", i, 5.0, medal=True) for i in range(2)]
    (agent,), _ = summarise(rows, Aggregation(bootstrap_samples=0))
    at = {x.k: x for x in agent.any_medal_at_k}
    assert sorted(at) == [1, 2, 3, 4]
    assert at[1].estimate.value == pytest.approx((1 / 4 + 0 + 1) / 3)
    assert at[2].estimate.value == pytest.approx(((1 - math.comb(3, 2) / math.comb(4, 2)) + 0 + 1)
                                                 / 3)
    assert at[3].n_tasks == 2 and at[3].estimate.value == pytest.approx((3 / 4 + 0) / 2)
    assert at[4].estimate.value == pytest.approx(0.5)
    assert at[1].estimate.se is None  # bootstrap off: no interval claimed


def test_one_run_per_task_claims_no_interval() -> None:
    rows = [row("a", t, 0, 30.0) for t in TASKS]
    (agent,), _ = summarise(rows, Aggregation())
    est = agent.modality_weighted_rank_pct
    assert est is not None and est.value == 30.0 and est.se is None and est.ci_low is None


def test_tasks_without_a_leaderboard_are_unranked_and_their_medals_unknown() -> None:
    rows = [row("a", "t-tab-1", 0, 30.0)]
    unknown = row("a", "t-img", 0, None).model_copy(update={
        "status": RunStatus.GRADED_VALID, "valid_submission": True, "score": 0.5, "errors": [],
        "any_medal": None, "gold_medal": None, "silver_medal": None, "bronze_medal": None,
        "above_median": None})
    (agent,), _ = summarise([*rows, unknown], Aggregation())
    img = next(t for t in agent.tasks if t.task == "t-img")
    assert img.leaderboard is False and img.rank_pct is None and img.any_medals is None
    assert agent.n_tasks_ranked == 1 and agent.runs_with_leaderboard == 1
    assert agent.any_medal_rate is not None and agent.any_medal_rate.value == 0.0
