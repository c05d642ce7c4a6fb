"""Aggregates of graded rows: per agent and task, per agent, and agents compared in pairs.

Definitions (docs/numbers.md states them for users):

* a run's **rank percentage** is its report's ``rank_pct`` (``100 * rank / N``, lower is
  better). A run without a valid ranked submission on a task with a leaderboard counts by the
  aggregation rule: ``last`` (default) gives it 100, ``exclude`` leaves it out. On a task
  without a leaderboard no run has one: the task is unranked, and its medals are unknown;
* a task's rank percentage (RankPct) is the mean over the agent's counted runs of that task;
* the **modality-weighted rank percentage** is ``sum_i p_i / f(m_i) / sum_i 1 / f(m_i)`` over
  the agent's ranked tasks (f(m): the number of those tasks of modality m), so each modality
  weighs the same; the unweighted mean is reported beside it;
* **rates** divide by runs: valid submissions by every run, medals and above-median by the runs
  on tasks with a leaderboard (``runs_with_leaderboard``);
* **any-medal@k** averages, over tasks with at least k runs, the chance that one of k runs
  drawn from the task's runs earns a medal;
* a **paired comparison** of agents a and b takes the tasks both have a rank percentage for and
  reports a's modality-weighted rank % minus b's over those tasks.

Runs are grouped into tasks by task id (two folder names of one task are one task).
Uncertainty comes from :mod:`tambench.grading.batch.stats`.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from tambench.grading.batch.models import (
    AgentSummary,
    Aggregation,
    AtK,
    Estimate,
    PairedComparison,
    RunRow,
    SeedRule,
    Spread,
    TaskSummary,
)
from tambench.grading.batch.stats import (
    Cell,
    any_medal_at_k,
    estimate,
    modality_weighted_mean,
    nan_mean_rows,
    resample_indices,
    weighted_replicates,
)

#: Rank percentage of a run counted as last place.
LAST_PLACE = 100.0
#: Largest k of any-medal@k.
MAX_K = 10
FLAGS = ("valid_submission", "any_medal", "gold_medal", "silver_medal", "bronze_medal",
         "above_median")


def task_key(row: RunRow) -> str:
    """Runs are grouped by task id; folders that name no task stay apart by name."""
    return row.task_id or f"?{row.task}"


def spread(values: list[float]) -> Spread | None:
    """Mean, sample std, standard error, min and max (None without values)."""
    if not values:
        return None
    n = len(values)
    mean = math.fsum(values) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return Spread(n=n, mean=mean, std=std, se=None if std is None else std / math.sqrt(n),
                  min=min(values), max=max(values))


def run_rank_pct(row: RunRow, leaderboard: bool, agg: Aggregation) -> float:
    """A run's rank % under the rule; NaN when it does not count."""
    if not leaderboard:
        return math.nan
    if row.valid_submission and row.rank_pct is not None:
        return row.rank_pct
    return LAST_PLACE if agg.invalid_runs == "last" else math.nan


def make_cell(agent: str, key: str, rows: list[RunRow], agg: Aggregation) -> Cell:
    """The arrays of one agent on one task, with its bootstrap indices."""
    leaderboard = any(r.any_medal is not None for r in rows)
    first = next((r for r in rows if r.task_id), rows[0])
    cell = Cell(
        task=key,
        modality=first.modality or "unknown",
        rank_pct=np.array([run_rank_pct(r, leaderboard, agg) for r in rows], dtype=np.float64),
        flags={f: np.array([bool(getattr(r, f)) for r in rows], dtype=np.int64) for f in FLAGS},
        leaderboard=leaderboard,
    )
    if agg.bootstrap_samples > 0:
        cell.idx = resample_indices(agg.seed, agent, key, cell.n, agg.bootstrap_samples)
    return cell


def task_summary(rows: list[RunRow], cell: Cell) -> TaskSummary:
    """One agent on one task."""
    first = next((r for r in rows if r.task_id), rows[0])
    valid = [r for r in rows if r.valid_submission and r.score is not None]
    counted = [float(v) for v in cell.rank_pct if not math.isnan(v)]

    def medals(flag: str) -> int | None:
        return int(cell.flags[flag].sum()) if cell.leaderboard else None

    return TaskSummary(
        task=first.task, task_id=first.task_id, modality=first.modality, tier=first.tier,
        leaderboard=cell.leaderboard, n_runs=len(rows),
        n_with_submission=sum(r.submission_exists for r in rows), n_valid=len(valid),
        n_failed=sum(r.failed for r in rows),
        score=spread([r.score for r in valid if r.score is not None]),
        rank=spread([float(r.rank) for r in valid if r.rank is not None]),
        rank_pct=spread(counted),
        any_medals=medals("any_medal"), gold_medals=medals("gold_medal"),
        silver_medals=medals("silver_medal"), bronze_medals=medals("bronze_medal"),
        above_median=medals("above_median"),
    )


@dataclass
class _AgentCells:
    agent: str
    rows: list[RunRow]
    cells: dict[str, Cell]
    agg: Aggregation

    def varied(self, cells: list[Cell]) -> bool:
        """Whether resampling can change anything (some task has two runs or more)."""
        return self.agg.bootstrap_samples > 0 and any(c.n > 1 for c in cells)

    def ranked(self) -> list[Cell]:
        return [c for c in self.cells.values() if c.leaderboard and not math.isnan(c.rank_mean())]

    def rate(self, flag: str, cells: list[Cell]) -> Estimate | None:
        total = sum(c.n for c in cells)
        if total == 0:
            return None
        value = sum(int(c.flags[flag].sum()) for c in cells) / total
        reps = None
        if self.varied(cells):
            reps = np.zeros(self.agg.bootstrap_samples)
            for c in cells:
                counts = c.count_reps(flag)
                if counts is not None:
                    reps += counts
            reps /= total
        return estimate(value, reps, self.agg.confidence)

    def rank_estimates(self) -> tuple[Estimate | None, Estimate | None]:
        ranked = self.ranked()
        if not ranked:
            return None, None
        pairs = [(c.modality, c.rank_mean()) for c in ranked]
        weighted = modality_weighted_mean(pairs) or 0.0
        mean = math.fsum(p for _, p in pairs) / len(pairs)
        if not self.varied(ranked):
            return (estimate(weighted, None, self.agg.confidence),
                    estimate(mean, None, self.agg.confidence))
        reps = np.stack([c.rank_reps() for c in ranked], axis=1)  # type: ignore[misc]
        return (estimate(weighted, weighted_replicates(reps, [c.modality for c in ranked]),
                         self.agg.confidence),
                estimate(mean, nan_mean_rows(reps), self.agg.confidence))

    def at_k(self) -> list[AtK]:
        board = [c for c in self.cells.values() if c.leaderboard]
        top = min(MAX_K, max((c.n for c in board), default=0))
        out = []
        for k in range(1, top + 1):
            use = [c for c in board if c.n >= k]
            value = float(np.mean([any_medal_at_k(c.n, int(c.flags["any_medal"].sum()), k)
                                   for c in use]))
            reps = None
            if self.varied(use):
                reps = np.mean([any_medal_at_k(c.n, c.count_reps("any_medal"), k)  # type: ignore[arg-type]
                                for c in use], axis=0)
            out.append(AtK(k=k, n_tasks=len(use),
                           estimate=estimate(value, reps, self.agg.confidence)))
        return out


def _medal(row: RunRow | None) -> bool:
    return row is not None and bool(row.any_medal)


def seed_rule(rows: list[RunRow]) -> SeedRule:
    """MLE-bench's rule: per seed (run name), the rate over every task of the agent, a missing
    run counted as a failure; then mean and standard error over the seeds."""
    seeds = sorted({r.run for r in rows})
    by_task: dict[str, dict[str, RunRow]] = defaultdict(dict)
    for r in rows:
        by_task[task_key(r)][r.run] = r
    board = [t for t, runs in by_task.items() if any(r.any_medal is not None for r in runs.values())]
    valid, medal = [], []
    for seed in seeds:
        got = [by_task[t].get(seed) for t in by_task]
        valid.append(sum(bool(r and r.valid_submission) for r in got) / len(by_task))
        if board:
            medal.append(sum(_medal(by_task[t].get(seed)) for t in board) / len(board))
    missing = sum(seed not in runs for runs in by_task.values() for seed in seeds)
    return SeedRule(n_seeds=len(seeds), n_tasks=len(by_task), missing_runs=missing,
                    valid_submission=spread(valid) or Spread(n=0, mean=0, std=None, se=None,
                                                             min=0, max=0),
                    any_medal=spread(medal))


def agent_summary(data: _AgentCells, tasks: list[TaskSummary]) -> AgentSummary:
    """Every aggregate of one agent."""
    rs = data.rows
    cells = list(data.cells.values())
    board = [c for c in cells if c.leaderboard]
    ranked = data.ranked()
    weighted, mean = data.rank_estimates()
    by_tier: dict[str, list[float]] = defaultdict(list)
    by_mod: dict[str, list[float]] = defaultdict(list)
    tier_of = {t.task_id or f"?{t.task}": t.tier or "unknown" for t in tasks}
    for c in ranked:
        by_tier[tier_of.get(c.task, "unknown")].append(c.rank_mean())
        by_mod[c.modality].append(c.rank_mean())
    judged = [r for r in rs if r.constraints_total is not None]
    c_pass = sum(r.constraints_passed or 0 for r in judged) if judged else None
    c_total = sum(r.constraints_total or 0 for r in judged) if judged else None
    n = len(rs)
    return AgentSummary(
        agent=data.agent, total_runs=n,
        total_runs_with_submissions=sum(r.submission_exists for r in rs),
        total_valid_submissions=sum(r.valid_submission for r in rs),
        total_medals=sum(bool(r.any_medal) for r in rs),
        total_gold_medals=sum(bool(r.gold_medal) for r in rs),
        total_silver_medals=sum(bool(r.silver_medal) for r in rs),
        total_bronze_medals=sum(bool(r.bronze_medal) for r in rs),
        total_above_median=sum(bool(r.above_median) for r in rs),
        total_failed=sum(r.failed for r in rs),
        status_counts=dict(sorted(Counter(r.status.value for r in rs).items())),
        runs_with_leaderboard=sum(c.n for c in board),
        made_submission_rate=sum(r.submission_exists for r in rs) / n,
        valid_submission_rate=data.rate("valid_submission", cells)
        or Estimate(value=0.0, se=None, ci_low=None, ci_high=None),
        any_medal_rate=data.rate("any_medal", board),
        gold_medal_rate=data.rate("gold_medal", board),
        silver_medal_rate=data.rate("silver_medal", board),
        bronze_medal_rate=data.rate("bronze_medal", board),
        above_median_rate=data.rate("above_median", board),
        any_medal_at_k=data.at_k(), n_tasks=len(cells), n_tasks_ranked=len(ranked),
        modality_weighted_rank_pct=weighted, mean_rank_pct=mean,
        rank_pct_by_tier={k: math.fsum(v) / len(v) for k, v in sorted(by_tier.items())},
        rank_pct_by_modality={k: math.fsum(v) / len(v) for k, v in sorted(by_mod.items())},
        tasks=tasks, constraints_passed=c_pass, constraints_total=c_total,
        constraint_pass_rate=(c_pass / c_total) if c_pass is not None and c_total else None,
        seed_rule=seed_rule(rs),
    )


def compare(a: _AgentCells, b: _AgentCells, agg: Aggregation) -> PairedComparison | None:
    """a's modality-weighted rank % minus b's over their shared ranked tasks."""
    ca = {c.task: c for c in a.ranked()}
    cb = {c.task: c for c in b.ranked()}
    shared = sorted(set(ca) & set(cb))
    if not shared:
        return None
    mods = [ca[t].modality for t in shared]
    diff = ((modality_weighted_mean(zip(mods, (ca[t].rank_mean() for t in shared), strict=True))
             or 0.0)
            - (modality_weighted_mean(zip(mods, (cb[t].rank_mean() for t in shared),
                                          strict=True)) or 0.0))
    reps = None
    cells = [ca[t] for t in shared] + [cb[t] for t in shared]
    if agg.bootstrap_samples > 0 and any(c.n > 1 for c in cells):
        ra = np.stack([ca[t].rank_reps() for t in shared], axis=1)  # type: ignore[misc]
        rb = np.stack([cb[t].rank_reps() for t in shared], axis=1)  # type: ignore[misc]
        both = ~np.isnan(ra) & ~np.isnan(rb)
        ra, rb = np.where(both, ra, np.nan), np.where(both, rb, np.nan)
        reps = weighted_replicates(ra, mods) - weighted_replicates(rb, mods)
    est = estimate(diff, reps, agg.confidence)
    better = None
    if est.ci_high is not None and est.ci_high < 0:
        better = a.agent
    elif est.ci_low is not None and est.ci_low > 0:
        better = b.agent
    return PairedComparison(agent_a=a.agent, agent_b=b.agent, n_tasks=len(shared),
                            difference=est, better=better)


def summarise(rows: list[RunRow], agg: Aggregation
              ) -> tuple[list[AgentSummary], list[PairedComparison]]:
    """Per-agent aggregates and every pairwise comparison of rows sorted by agent."""
    by_agent: dict[str, list[RunRow]] = defaultdict(list)
    for r in rows:
        by_agent[r.agent].append(r)
    summaries: list[AgentSummary] = []
    data: list[_AgentCells] = []
    for agent in sorted(by_agent):
        by_task: dict[str, list[RunRow]] = defaultdict(list)
        for r in by_agent[agent]:
            by_task[task_key(r)].append(r)
        cells = {k: make_cell(agent, k, by_task[k], agg) for k in sorted(by_task)}
        d = _AgentCells(agent, by_agent[agent], cells, agg)
        tasks = sorted((task_summary(by_task[k], cells[k]) for k in cells),
                       key=lambda t: (t.task, t.task_id or ""))
        summaries.append(agent_summary(d, tasks))
        data.append(d)
    comparisons = [c for a, b in itertools.combinations(data, 2)
                   if (c := compare(a, b, agg)) is not None]
    return summaries, comparisons

