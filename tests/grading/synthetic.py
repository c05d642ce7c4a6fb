"""Batch reports of any size built from made-up rows through the real aggregation code (no
grading): for the report page's browser test and bench/bench_report.py."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from tambench.grading.batch import Aggregation, BatchReport, RunRow, RunStatus, summarise

MODALITIES = ("Tabular", "Text", "Image", "Audio")
TIERS = ("easy", "medium", "hard")
NOW = datetime(2025, 1, 1, tzinfo=UTC)


def synthetic_rows(n_runs: int, n_agents: int, n_tasks: int, seed: int = 0) -> list[RunRow]:
    """Rows of ``n_agents`` agents of different skill over ``n_tasks`` tasks."""
    rng = random.Random(seed)
    rows = []
    for i in range(n_runs):
        a, t = i % n_agents, (i // n_agents) % n_tasks
        skill = (a + 1) / (n_agents + 1)
        board = t % 5 != 4  # every fifth task has no leaderboard
        base = dict(agent=f"agent-{a:02d}", task=f"task-{t:03d}", run=f"run-{i:05d}",
                    task_id=f"kaggle/task-{t:03d}", competition_id=f"task-{t:03d}",
                    metric="rmse", is_lower_better=True, modality=MODALITIES[t % 4],
                    tier=TIERS[t % 3], created_at=NOW, submission_exists=True,
                    submission_path=f"agent-{a:02d}/task-{t:03d}/run-{i:05d}/submission.csv")
        roll = rng.random()
        if roll < 0.1 * (1 - skill):
            rows.append(RunRow(**base, status=RunStatus.INVALID_SUBMISSION,
                               errors=[f"column `y` missing in run {i}; expected ['id', 'y']"],
                               **_flags(board, False, False, False, False)))
            continue
        if roll < 0.12 * (1 - skill):
            rows.append(RunRow(**{**base, "submission_exists": False},
                               status=RunStatus.MISSING_SUBMISSION,
                               errors=["no submission.csv in the run folder"],
                               **_flags(board, False, False, False, False)))
            continue
        n = 200
        rank = max(1, min(n, int(rng.gauss((1 - skill) * n, n / 6))))
        medals = (rank <= 10, 10 < rank <= 40, 40 < rank <= 80)
        rows.append(RunRow(
            **base, status=RunStatus.GRADED_VALID, valid_submission=True,
            score=round(rank / 100 + rng.random() / 1000, 6),
            rank=rank if board else None, n_teams=n if board else None,
            rank_pct=100 * rank / n if board else None,
            **_flags(board, *medals, rank < n / 2),
        ))
    rows.sort(key=lambda r: (r.agent, r.task, r.run))
    return rows


def _flags(board: bool, gold: bool, silver: bool, bronze: bool, above: bool) -> dict[str, bool | None]:
    if not board:
        return dict.fromkeys(("any_medal", "gold_medal", "silver_medal", "bronze_medal",
                              "above_median"))
    return {"any_medal": gold or silver or bronze, "gold_medal": gold, "silver_medal": silver,
            "bronze_medal": bronze, "above_median": above}


def synthetic_report(n_runs: int, n_agents: int = 8, n_tasks: int = 50, seed: int = 0,
                     aggregation: Aggregation | None = None) -> BatchReport:
    """A whole report over synthetic rows."""
    agg = aggregation or Aggregation()
    rows = synthetic_rows(n_runs, n_agents, n_tasks, seed)
    agents, comparisons = summarise(rows, agg)
    no_board = sorted({r.task_id or "" for r in rows if r.any_medal is None})
    return BatchReport(created_at=NOW, runs_dir="synthetic", aggregation=agg,
                       aggregation_rule=agg.statement,
                       warnings=[f"task {t} has no leaderboard" for t in no_board],
                       rows=rows, agents=agents, comparisons=comparisons)
