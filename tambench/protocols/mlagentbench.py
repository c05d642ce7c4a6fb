"""MLAgentBench's two success rules.

1. The original benchmark's *improve over baseline* rule (:func:`score_improvement`): a run
   succeeds when its score beats the task's baseline by more than a relative threshold
   (default 10 %), in the task's own direction. Scores <= 0 (the reference's -1 for a missing
   folder or a crash) are "no score" and fail.
2. The harness variant (:func:`evaluate_harness`): an MCP benchmark runner reads the first
   ``score|accuracy|loss|metric`` number in the eval script's stdout and compares it with the
   task's baseline. ``mode="compatible"`` reproduces that runner exactly, quirks included;
   ``mode="default"`` corrects them (see :data:`MODES` and ``docs/protocols/mlagentbench.md``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from tambench.errors import ProtocolError
from tambench.protocols.base import SiblingProtocol

#: Tasks of the original benchmark whose metric is lower-is-better (SMAPE, MCRMSE, perplexity,
#: seconds per token, MAE, seconds).
LOWER_IS_BETTER_TASKS: frozenset[str] = frozenset({
    "parkinsons-disease", "feedback", "babylm", "llama-inference", "house-price",
    "vectorization",
})

#: Tasks of the original benchmark whose metric is higher-is-better.
HIGHER_IS_BETTER_TASKS: frozenset[str] = frozenset({
    "cifar10", "imdb", "ogbn-arxiv", "spaceship-titanic", "fathomnet", "identify-contrails",
    "clrs",
})

#: Baselines the original benchmark hard-codes; other tasks use the mean of plain baseline runs,
#: which the caller must supply.
KNOWN_BASELINES: dict[str, float] = {
    "imdb": 0.5,
    "fathomnet": 1e-10,
    "spaceship-titanic": 0.5,
    "house-price": 1e10,
    "ogbn-arxiv": 0.3134,
    "vectorization": 6.1742,
}

#: The original benchmark's headline threshold: "more than 10 % better than the baseline".
DEFAULT_THRESHOLD = 0.1

Mode = Literal["compatible", "default"]

#: The harness modes: ``compatible`` reproduces the reference runner, ``default`` corrects it.
MODES: tuple[Mode, ...] = ("compatible", "default")


# --- 1. improve over baseline --------------------------------------------------------------


@dataclass(frozen=True)
class ImprovementResult:
    """Outcome of one run under the improve-over-baseline rule."""

    task: str
    score: float
    baseline: float
    higher_is_better: bool
    threshold: float
    scored: bool
    """False when the score is <= 0 (the reference's "no score", e.g. -1 after a crash)."""
    increase: float | None
    """``(score - baseline) / baseline``, unrounded; None when not scored."""
    improvement: float | None
    """``increase`` for higher-is-better tasks, ``-increase`` for lower-is-better ones."""
    success: bool

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "task": self.task, "score": self.score, "baseline": self.baseline,
            "higher_is_better": self.higher_is_better, "threshold": self.threshold,
            "scored": self.scored, "increase": self.increase, "improvement": self.improvement,
            "success": self.success,
        }


def _task_key(task: str) -> str:
    return task.strip().lower()


def task_direction(task: str) -> bool:
    """Whether ``task`` of the original benchmark is higher-is-better (case-insensitive name).

    >>> task_direction("feedback"), task_direction("CLRS")
    (False, True)
    """
    key = _task_key(task)
    if key in LOWER_IS_BETTER_TASKS:
        return False
    if key in HIGHER_IS_BETTER_TASKS:
        return True
    known = sorted(LOWER_IS_BETTER_TASKS | HIGHER_IS_BETTER_TASKS)
    raise ProtocolError(
        f"unknown MLAgentBench task {task!r}: its direction is not in the task table; "
        f"expected one of {known}, or pass higher_is_better explicitly"
    )


def score_improvement(
    task: str,
    score: float,
    baseline: float | None = None,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    higher_is_better: bool | None = None,
) -> ImprovementResult:
    """Apply the original benchmark's success rule to one run.

    ``increase = (score - baseline) / baseline`` with no rounding; success is
    ``increase > threshold`` (higher-is-better) or ``increase < -threshold`` (lower-is-better),
    both strict. A score <= 0 is "no score" and fails.

    Args:
        task: Task name of the original benchmark (gives the direction and a known baseline).
        score: The run's final score (-1 when the reference's ``get_score`` failed).
        baseline: The baseline score; defaults to the hard-coded one in
            :data:`KNOWN_BASELINES`.
        threshold: Relative improvement needed (0.1 = more than 10 % better).
        higher_is_better: Overrides the task table's direction (needed for unknown tasks).

    Returns:
        The improvement and whether the run succeeded.

    >>> score_improvement("feedback", 1.79, 2.0).success
    True
    >>> score_improvement("cifar10", -1, 0.5).scored
    False
    """
    hib = task_direction(task) if higher_is_better is None else higher_is_better
    if baseline is None:
        try:
            baseline = KNOWN_BASELINES[_task_key(task)]
        except KeyError:
            raise ProtocolError(
                f"task {task!r} has no hard-coded baseline; give the mean score of its plain "
                f"baseline runs (known: {sorted(KNOWN_BASELINES)})"
            ) from None
    for name, value in (("score", score), ("baseline", baseline), ("threshold", threshold)):
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise ProtocolError(f"{name} must be a finite number, got {value!r}")
    if baseline == 0:
        raise ProtocolError("baseline is 0: the relative increase (score - baseline) / baseline "
                            "is undefined")
    if score <= 0:
        return ImprovementResult(task, float(score), float(baseline), hib, threshold,
                                 scored=False, increase=None, improvement=None, success=False)
    increase = (score - baseline) / baseline
    if hib:
        improvement, success = increase, increase > threshold
    else:
        improvement, success = -increase, increase < -threshold
    return ImprovementResult(task, float(score), float(baseline), hib, threshold, scored=True,
                             increase=increase, improvement=improvement, success=success)


def aggregate_success(results: list[ImprovementResult]) -> dict[str, float]:
    """Per task, the mean success over its runs (the paper ran 8 per task).

    >>> rs = [score_improvement("imdb", s) for s in (0.6, 0.52)]
    >>> aggregate_success(rs)
    {'imdb': 0.5}
    """
    runs: dict[str, list[bool]] = {}
    for r in results:
        runs.setdefault(r.task, []).append(r.success)
    return {task: sum(ok) / len(ok) for task, ok in sorted(runs.items())}


# --- 2. the harness variant ----------------------------------------------------------------

#: The reference runner's score pattern, verbatim: the key is a substring match and the number
#: is unsigned with no exponent.
COMPATIBLE_SCORE_PATTERN = re.compile(r"(?:score|accuracy|loss|metric)\s*[=:]\s*([0-9.]+)",
                                      re.IGNORECASE)

#: Our pattern: the same keys (with the identifier they end, e.g. ``val_loss``), and the whole
#: numeric token (sign and exponent), which is then checked to be a number.
DEFAULT_SCORE_PATTERN = re.compile(
    r"(?P<key>[A-Za-z0-9_]*(?:score|accuracy|loss|metric))\s*[=:]\s*"
    r"(?P<num>[-+]?[0-9.][0-9.eE+-]*)",
    re.IGNORECASE,
)
_FLOAT_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")

#: Substrings of a metric name that make it lower-is-better in the reference runner.
COMPATIBLE_LOWER_TOKENS: tuple[str, ...] = ("loss", "rmse", "mae", "mse", "error", "perplexity")

#: Our list adds percentage-error metrics (MAPE, SMAPE, WAPE), which the reference treats as
#: higher-is-better.
DEFAULT_LOWER_TOKENS: tuple[str, ...] = (*COMPATIBLE_LOWER_TOKENS, "mape", "wape")

#: Characters of stderr kept in an "Evaluation script failed" error, and of stdout kept when
#: no score is found (the reference's limits).
STDERR_CHARS = 500
STDOUT_CHARS = 1000


@dataclass(frozen=True)
class HarnessResult:
    """The harness's verdict for one run; :meth:`as_dict` gives the reference's output shape."""

    resolved: bool
    score: float | None = None
    baseline: float | None = None
    metric_direction: Literal["higher_is_better", "lower_is_better"] | None = None
    error: str | None = None
    stdout: str | None = None
    mode: Mode = "default"
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The fields the reference writes: resolved plus score/baseline/direction, or error, or
        stdout; ``mode`` and ``notes`` are ours."""
        out: dict[str, Any] = {"resolved": self.resolved}
        if self.error is not None:
            out["error"] = self.error
        if self.score is not None:
            out.update(score=self.score, baseline=self.baseline,
                       metric_direction=self.metric_direction)
        if self.stdout is not None:
            out["stdout"] = self.stdout
        out["mode"] = self.mode
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def metric_direction(metric: str, mode: Mode = "default") -> Literal["higher_is_better",
                                                                     "lower_is_better"]:
    """The direction the harness gives a metric name (substring rule, case-insensitive).

    >>> metric_direction("val_loss"), metric_direction("SMAPE", "compatible")
    ('lower_is_better', 'higher_is_better')
    >>> metric_direction("SMAPE")
    'lower_is_better'
    """
    _check_mode(mode)
    tokens = COMPATIBLE_LOWER_TOKENS if mode == "compatible" else DEFAULT_LOWER_TOKENS
    name = (metric or "").lower()
    return "lower_is_better" if any(t in name for t in tokens) else "higher_is_better"


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ProtocolError(f"unknown mode {mode!r}; expected one of {list(MODES)}")


class _MalformedScore(ValueError):
    """A score token that is not a number (the reference's float() raises on it)."""


def extract_score(stdout: str, mode: Mode = "default", metric: str = "") -> float | None:
    """The score the harness reads from an eval script's stdout, or None when there is none.

    ``compatible``: the first match of :data:`COMPATIBLE_SCORE_PATTERN`; its captured digits and
    dots go through ``float``, so ``1e-3`` reads 1.0, ``-0.5`` is skipped and ``1.2.3`` raises.
    ``default``: the first match whose key contains the metric name (or is contained in it),
    else the first match; the number is read whole (sign, exponent) and must be a number.

    Raises:
        ProtocolError: the matched number is malformed (``.``, ``1.2.3``).

    >>> extract_score("score = 1e-3", "compatible"), extract_score("score = 1e-3")
    (1.0, 0.001)
    >>> extract_score("loss = -0.5\\naccuracy = 0.6", "compatible")
    0.6
    """
    _check_mode(mode)
    if mode == "compatible":
        m = COMPATIBLE_SCORE_PATTERN.search(stdout)
        if m is None:
            return None
        try:
            return float(m.group(1))
        except ValueError as exc:
            raise ProtocolError(f"Evaluation error: {exc}") from None
    matches = list(DEFAULT_SCORE_PATTERN.finditer(stdout))
    if not matches:
        return None
    wanted = (metric or "").strip().lower()
    chosen = matches[0]
    if wanted:
        for m in matches:
            key = m.group("key").lower()
            if wanted in key or key in wanted:
                chosen = m
                break
    token = chosen.group("num")
    if not _FLOAT_RE.fullmatch(token):
        raise ProtocolError(
            f"malformed score after {chosen.group('key')!r}: expected a number, got {token!r}"
        )
    value = float(token)
    if not math.isfinite(value):
        raise ProtocolError(f"score {token!r} is not finite")
    return value


def parse_baseline(baseline: object, mode: Mode = "default") -> float | None:
    """The baseline as a number. ``compatible``: missing or unparseable gives 0.0, like the
    reference; ``default``: None (the caller reports an error).

    >>> parse_baseline("0.7"), parse_baseline(None, "compatible"), parse_baseline("n/a")
    (0.7, 0.0, None)
    """
    _check_mode(mode)
    value: float | None
    if isinstance(baseline, bool) or baseline is None:
        value = None
    elif isinstance(baseline, int | float):
        value = float(baseline)
    else:
        try:
            value = float(str(baseline).strip())
        except ValueError:
            value = None
    if value is not None and not math.isfinite(value):
        value = None
    if value is None and mode == "compatible":
        return 0.0
    return value


def evaluate_harness(
    *,
    exit_code: int = 0,
    stdout: str = "",
    stderr: str = "",
    metric: str = "",
    baseline: object = None,
    score: float | None = None,
    mode: Mode = "default",
) -> HarnessResult:
    """The harness's verdict for one run of the eval script.

    Args:
        exit_code: The eval command's exit status; non-zero is unresolved.
        stdout: Its standard output (the score is read from here unless ``score`` is given).
        stderr: Its standard error (the first 500 characters go into the error message).
        metric: The task's ``metric`` field (gives the direction, never the stdout key).
        baseline: The task's baseline, a number or a string.
        score: A score already known; skips reading stdout.
        mode: ``compatible`` (the reference's behaviour) or ``default`` (corrected).

    Returns:
        The verdict; ``as_dict()`` has the reference's field names.

    >>> evaluate_harness(stdout="Accuracy: 0.91", metric="accuracy", baseline=0.85).resolved
    True
    >>> evaluate_harness(stdout="MSE: 12.5", metric="mse", baseline=10, mode="compatible").resolved
    True
    >>> evaluate_harness(stdout="MSE: 12.5", metric="mse", baseline=10).error
    'no score in output'
    """
    _check_mode(mode)
    if exit_code != 0:
        return HarnessResult(resolved=False, mode=mode,
                             error=f"Evaluation script failed: {stderr[:STDERR_CHARS]}")
    found = _read_score(stdout, metric, score, mode)
    if isinstance(found, HarnessResult):
        return found
    return _resolve(found, baseline, metric, mode)


def _read_score(stdout: str, metric: str, score: float | None,
                mode: Mode) -> float | HarnessResult:
    """The run's score, or the verdict when there is none (or it is malformed)."""
    if score is None:
        try:
            score = extract_score(stdout, mode, metric)
        except ProtocolError as exc:
            return HarnessResult(resolved=False, mode=mode, error=str(exc))
    elif not math.isfinite(score):
        return HarnessResult(resolved=False, mode=mode, error=f"score {score!r} is not finite")
    if score is not None:
        return score
    if mode == "compatible":
        # The reference resolves a run that printed no score at all.
        return HarnessResult(resolved=True, mode=mode, stdout=stdout[:STDOUT_CHARS],
                             notes=["no score in output; resolved only in compatible mode"])
    return HarnessResult(resolved=False, mode=mode, error="no score in output",
                         stdout=stdout[:STDOUT_CHARS])


def _resolve(score: float, baseline: object, metric: str, mode: Mode) -> HarnessResult:
    """Compare a score with the baseline in the metric's direction."""
    base = parse_baseline(baseline, mode)
    direction = metric_direction(metric, mode)
    if base is None:
        return HarnessResult(
            resolved=False, mode=mode, score=score, metric_direction=direction,
            error=f"baseline missing or not a number: got {baseline!r}",
        )
    if direction == "higher_is_better":
        resolved = score > base
    elif mode == "compatible":
        resolved = score < base if base > 0 else True
    else:
        resolved = score < base
    return HarnessResult(resolved=resolved, score=score, baseline=base,
                         metric_direction=direction, mode=mode)


#: This protocol's registry entry (see :mod:`tambench.protocols.base`).
PROTOCOL = SiblingProtocol(
    name="mlagentbench",
    title="MLAgentBench",
    summary="improve-over-baseline success, or the harness's score read from an eval "
            "script's stdout (compatible and corrected modes)",
    evaluate=evaluate_harness,
    inputs="one run: exit code, stdout, stderr, the task's metric name and baseline "
           "(score_improvement for the original rule)",
    doc="docs/protocols/mlagentbench.md",
)
