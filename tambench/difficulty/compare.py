"""Agreement between computed tiers and reference tiers (e.g. a benchmark's own labels).

Labels file format (``LABELS.csv``), UTF-8 CSV with a header row:

* column ``task`` (required): a task id ``<platform>/<slug>``, or a bare slug; names are
  resolved by the one task locator (case-insensitive; a bare slug must match exactly one
  task of the catalogue).
* column ``tier`` (required): ``easy``, ``medium`` or ``hard``; MLE-bench's complexity labels
  ``low``, ``medium``, ``high`` are accepted and mapped to easy, medium and hard. Case and
  surrounding spaces are ignored.
* any other column (``source``, ``note``...) is an annotation and is not read.

Example::

    task,tier,source
    kaggle/denoising-dirty-documents,low,mle-bench
    stanford-covid-vaccine,high,mle-bench

Every problem (missing column, unknown tier, duplicate task, empty file) is an error naming the
line; nothing is skipped silently.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tambench.difficulty.formula import TIER_ORDER, tier_steps
from tambench.errors import (
    AmbiguousTaskError,
    DifficultyError,
    ReportVersionError,
    TaskNotFoundError,
    UnsafePathError,
)
from tambench.schema.taskspec import Tier
from tambench.tasks.catalogue import Catalogue
from tambench.tasks.locate import load_task

#: Accepted spellings of each tier in a labels file.
TIER_ALIASES: dict[str, Tier] = {
    "easy": Tier.EASY,
    "low": Tier.EASY,
    "medium": Tier.MEDIUM,
    "hard": Tier.HARD,
    "high": Tier.HARD,
}


def parse_tier(text: str) -> Tier:
    """A tier from its name or an accepted alias.

    >>> parse_tier(" High ")
    <Tier.HARD: 'hard'>
    """
    key = text.strip().lower()
    try:
        return TIER_ALIASES[key]
    except KeyError:
        raise DifficultyError(
            f"unknown tier {text!r}; expected one of {sorted(TIER_ALIASES)}"
        ) from None


def parse_labels(text: str, *, source: str = "(labels)") -> dict[str, Tier]:
    """Parse labels CSV text into {task: tier}, in file order."""
    text = text.lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise DifficultyError(f"labels file {source} is empty; expected a header task,tier")
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in ("task", "tier") if c not in header]
    if missing:
        raise DifficultyError(
            f"labels file {source} lacks column(s) {missing}; expected a header with task,tier, "
            f"got {rows[0]}"
        )
    i_task, i_tier = header.index("task"), header.index("tier")
    out: dict[str, Tier] = {}
    problems: list[str] = []
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            problems.append(f"line {lineno}: {len(row)} fields, expected {len(header)}")
            continue
        task, tier_text = row[i_task].strip(), row[i_tier].strip()
        if not task:
            problems.append(f"line {lineno}: empty task")
            continue
        try:
            tier = parse_tier(tier_text)
        except DifficultyError as exc:
            problems.append(f"line {lineno}: {exc}")
            continue
        if task in out:
            problems.append(f"line {lineno}: task {task!r} labelled twice")
            continue
        out[task] = tier
    if problems:
        raise DifficultyError(f"labels file {source} has {len(problems)} problem(s):\n  "
                              + "\n  ".join(problems))
    if not out:
        raise DifficultyError(f"labels file {source} has a header but no rows")
    return out


def read_labels(path: str | Path) -> dict[str, Tier]:
    """Read a labels file (format in the module docstring)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DifficultyError(f"labels file not found: {p}") from None
    except UnicodeDecodeError as exc:
        raise DifficultyError(f"labels file {p} is not UTF-8: {exc}") from exc
    return parse_labels(text, source=str(p))


def resolve_label_ids(
    labels: Mapping[str, Tier], catalogue: Path
) -> tuple[dict[str, Tier], list[str]]:
    """Map labels' task names to catalogue ids through the one task locator
    (:func:`tambench.tasks.locate.locate_task`: an id, or a bare slug unique in the
    catalogue, case-insensitively). Returns (resolved, names not in the catalogue).

    A bare slug found on several platforms is an error naming them.
    """
    resolved: dict[str, Tier] = {}
    unknown: list[str] = []
    for name, tier in labels.items():
        try:
            target = load_task(name, catalogue).id
        except AmbiguousTaskError as exc:
            raise DifficultyError(f"label {name!r}: {exc}") from None
        except (TaskNotFoundError, UnsafePathError):
            unknown.append(name)
            continue
        if target in resolved:
            raise DifficultyError(f"two labels resolve to the same task {target!r}")
        resolved[target] = tier
    return resolved, unknown


def stored_reference_tiers(catalogue: Path, name: str) -> dict[str, Tier]:
    """Task id -> tier of every entry carrying ``reference_tiers[name]``."""
    return {e.id: parse_tier(e.spec.reference_tiers[name]) for e in Catalogue(catalogue)
            if name in e.spec.reference_tiers}


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChangedTask(_Report):
    """A task whose computed tier differs from its reference tier."""

    task: str
    reference: Tier
    predicted: Tier
    steps: int
    """Signed tiers from reference to predicted (positive: computed harder)."""


class TierComparison(_Report):
    """Computed tiers against reference tiers over the tasks that have both."""

    tasks: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    """3x3 counts; rows = reference tier, columns = computed tier, order easy/medium/hard."""
    agreement: float
    kappa_linear: float | None
    """Linearly weighted Cohen's kappa; None when undefined (all tasks in one tier on both
    sides, so chance agreement is already perfect)."""
    changed: tuple[ChangedTask, ...]
    only_reference: tuple[str, ...] = ()
    """Labelled tasks without a computed tier."""
    only_predicted: tuple[str, ...] = ()
    """Tasks with a computed tier but no label."""

    @property
    def two_step_jumps(self) -> int:
        """Tasks two tiers away from their reference."""
        return sum(1 for c in self.changed if abs(c.steps) == 2)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-ready form (with the tier names and step counts spelled out)."""
        names = [t.value for t in TIER_ORDER]
        return {
            "n": len(self.tasks),
            "tiers": names,
            "confusion": {"rows": "reference", "columns": "computed",
                          "matrix": [list(r) for r in self.confusion]},
            "agreement": self.agreement,
            "kappa_linear": self.kappa_linear,
            "changed": [{"task": c.task, "reference": c.reference.value,
                         "computed": c.predicted.value, "steps": c.steps}
                        for c in self.changed],
            "changed_by_steps": {str(k): sum(1 for c in self.changed if abs(c.steps) == k)
                                 for k in (1, 2)},
            "only_reference": list(self.only_reference),
            "only_computed": list(self.only_predicted),
        }


COMPARE_REPORT_VERSION = 1


class CompareReport(_Report):
    """``tambench difficulty compare --json``: one method's tiers against reference tiers."""

    schema_version: int = COMPARE_REPORT_VERSION
    method: str
    reference: str
    """Where the reference tiers came from (a labels file, or ``reference:<name>``)."""
    comparison: TierComparison
    labels_not_in_catalogue: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)

    @classmethod
    def parse(cls, data: dict[str, object]) -> CompareReport:
        """Load a stored report, refusing a newer version."""
        version = data.get("schema_version", COMPARE_REPORT_VERSION)
        if not isinstance(version, int) or version > COMPARE_REPORT_VERSION:
            raise ReportVersionError(f"compare report version {version!r} is newer than this "
                                     f"tambench reads ({COMPARE_REPORT_VERSION})")
        return cls.model_validate(data)


def confusion_matrix(reference: Iterable[Tier], predicted: Iterable[Tier]) -> np.ndarray:
    """3x3 counts, rows = reference, columns = predicted, easy/medium/hard order."""
    m = np.zeros((3, 3), dtype=np.int64)
    for r, p in zip(reference, predicted, strict=True):
        m[TIER_ORDER.index(r), TIER_ORDER.index(p)] += 1
    return m


def linear_weighted_kappa(confusion: np.ndarray) -> float | None:
    """Cohen's kappa with linear disagreement weights |i - j| / (k - 1).

    kappa = 1 - sum(W * O) / sum(W * E), with O the observed proportions and E the product of
    the marginals. Returns None when sum(W * E) is 0 (both raters use a single tier).

    >>> linear_weighted_kappa(np.array([[2, 0, 0], [0, 2, 0], [0, 0, 2]]))
    1.0
    """
    c = np.asarray(confusion, dtype=np.float64)
    n = c.sum()
    if n == 0:
        return None
    k = c.shape[0]
    idx = np.arange(k)
    weights = np.abs(idx[:, None] - idx[None, :]) / (k - 1)
    observed = c / n
    expected = np.outer(c.sum(axis=1), c.sum(axis=0)) / (n * n)
    denominator = float((weights * expected).sum())
    if denominator == 0.0:
        return None
    return float(1.0 - (weights * observed).sum() / denominator)


def compare_tiers(
    predicted: Mapping[str, Tier], reference: Mapping[str, Tier]
) -> TierComparison:
    """Compare computed tiers with reference tiers on the tasks both cover."""
    common = sorted(set(predicted) & set(reference))
    if not common:
        raise DifficultyError(
            "no task has both a computed and a reference tier; check the labels' task names "
            f"(labels: {sorted(reference)[:5]}..., computed: {sorted(predicted)[:5]}...)"
        )
    ref = [reference[t] for t in common]
    pred = [predicted[t] for t in common]
    conf = confusion_matrix(ref, pred)
    changed = tuple(
        ChangedTask(task=t, reference=r, predicted=p, steps=tier_steps(r, p))
        for t, r, p in zip(common, ref, pred, strict=True) if r != p
    )
    return TierComparison(
        tasks=tuple(common),
        confusion=tuple(tuple(int(v) for v in row) for row in conf),
        agreement=float(np.trace(conf) / conf.sum()),
        kappa_linear=linear_weighted_kappa(conf),
        changed=changed,
        only_reference=tuple(sorted(set(reference) - set(predicted))),
        only_predicted=tuple(sorted(set(predicted) - set(reference))),
    )
