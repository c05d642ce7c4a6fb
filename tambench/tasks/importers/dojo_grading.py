"""The grading of an MLE-Dojo competition: the metric the witnesses settle, the departures of
its ``metric.py`` from the published rule, and the submission's columns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from tambench.core.metrics import METRICS
from tambench.schema.taskspec import GradingSpec, PendingGrading
from tambench.tasks.importers._common import (
    Description,
    GradingDecision,
    params_misfit,
)
from tambench.tasks.importers.conventions import (
    apply_conventions,
    departure_of,
    settled_by_table,
)
from tambench.tasks.importers.grader_reading import WITNESS, GraderReading, departures
from tambench.tasks.importers.tree_files import PrepareFacts
from tambench.tasks.importers.witnesses import MetricDecision, Reading, decide_metric


@dataclass
class DojoGrading(GradingDecision):
    """A :class:`GradingDecision` with the settled metric (also when not registered) and
    what was read when no grading could be built."""

    metric: str | None = None
    pending: PendingGrading | None = None
    departures: list[str] = field(default_factory=list)


def description_reading(described: Description) -> Reading:
    """The mapper's reading of the description, as a witness."""
    return Reading("the description", described.metric, dict(described.params),
                   approximate=described.approximate)


@dataclass(frozen=True)
class Columns:
    id_columns: list[str]
    target_columns: list[str]
    header: list[str]
    source: str


def submission_columns(described: Description, prepare: PrepareFacts,
                       grader: GraderReading | None, d: DojoGrading) -> Columns | None:
    """The submission's columns: the description's example, else the sample submission
    ``prepare.py`` writes (its first column the id), else the answers it writes with the
    grader's default target; checked against the grader (see :func:`_checked`)."""
    sample = prepare.sample_header
    found: Columns | None = None
    if described.header:
        found = Columns(described.id_columns, described.target_columns, described.header,
                        described.columns_from or "the description")
        if sample and set(sample) != set(described.header):
            d.notes.append(f"prepare.py writes a sample submission with columns {sample}; "
                           f"the description shows {described.header}")
    elif len(sample) >= 2:
        found = _sample_columns(sample)
    else:
        found = _from_answers(prepare, grader)
    if found is None:
        return None
    found = _checked(found, sample, grader, d)
    if found is not None:
        d.notes.append(f"submission columns from {found.source}")
    return found


def _sample_columns(sample: list[str]) -> Columns:
    return Columns(sample[:1], sample[1:], sample, "the sample submission prepare.py writes "
                   "(its first column taken as the id)")


def _checked(found: Columns, sample: list[str], grader: GraderReading | None,
             d: DojoGrading) -> Columns | None:
    """The columns against metric.py's default target: a target the header reads as an id
    is a conflict (no columns); a target missing from the description's header but present
    in prepare.py's sample header makes that header the submission's."""
    target = grader.target if grader is not None else []
    if not target:
        return found
    if any(c in found.id_columns for c in target):
        d.warnings.append(f"metric.py scores {target}, which the header {found.header} from "
                          f"{found.source} reads as an id; columns left unset")
        return None
    if any(c in found.target_columns for c in target):
        d.notes.append(f"metric.py's default target {target} confirms the target columns")
        return found
    if len(sample) >= 2 and set(target) <= set(sample[1:]):
        d.notes.append(f"metric.py's default target {target} is missing from {found.header} "
                       f"({found.source}) and present in prepare.py's sample header {sample}")
        return _sample_columns(sample)
    d.notes.append(f"metric.py's default target {target} is not among the target columns "
                   f"{found.target_columns}")
    return found


#: A mean over columns -> the metric of one column (the same number on a single column).
SINGLE_COLUMN = {"roc_auc_columnwise": "roc_auc", "rmsle_columnwise": "rmsle",
                 "spearman_columnwise": "spearman", "mcrmse": "rmse"}


def single_column(metric: str, columns: Columns | None, d: DojoGrading) -> str:
    """A column-wise mean scored on a single target column is the one-column metric."""
    plain = SINGLE_COLUMN.get(metric)
    if plain is None or columns is None or len(columns.target_columns) != 1:
        return metric
    d.notes.append(f"{metric} over the single target column {columns.target_columns[0]!r} "
                   f"is {plain}")
    return plain


def _from_answers(prepare: PrepareFacts, grader: GraderReading | None) -> Columns | None:
    """The id (first column of the answers prepare.py writes) and metric.py's default target,
    when the answers hold that target and every column of the sample submission, if any."""
    answers, sample = prepare.answers_columns, prepare.sample_header
    if grader is None or not grader.target or len(answers) < 2:
        return None
    ids, targets = answers[:1], list(grader.target)
    header = ids + targets
    if ids[0] in targets or not set(targets) <= set(answers) or not set(sample) <= set(header):
        return None
    return Columns(ids, targets, header, "the answers prepare.py writes (its first column "
                   "taken as the id) and metric.py's default target")


def _pending(decision: MetricDecision, described: Description, columns: Columns | None,
             reason: str) -> PendingGrading:
    return PendingGrading(
        metric_id=decision.metric or "", metric_params=dict(decision.params), reason=reason,
        submission_header=columns.header if columns else [],
        id_columns=columns.id_columns if columns else [],
        target_columns=columns.target_columns if columns else [])


def _departures(decision: MetricDecision, grader: GraderReading | None, d: DojoGrading) -> None:
    if decision.metric is None:
        return
    found = [decision.departure] if decision.departure else []
    if grader is not None:
        found += departures(grader, decision.metric, decision.params)
    for text in found:
        d.departures.append(text)
        d.notes.append(f"departure of metric.py from the published rule: {text}; the "
                       "published rule is followed")
        d.warnings.append(f"metric.py departs from the published rule: {text}")


def decide_dojo_grading(described: Description, grader: GraderReading | None, name: Reading,
                        prepare: PrepareFacts) -> DojoGrading:
    """The grading of one competition (see :mod:`.witnesses` for the metric rule)."""
    d = DojoGrading()
    code = grader.reading() if grader is not None else Reading(WITNESS, None, detail="absent")
    decision = decide_metric(description_reading(described), code, name)
    d.notes += decision.notes
    columns = submission_columns(described, prepare, grader, d)
    if decision.metric is None:
        d.warnings.append(f"metric not settled: {decision.conflict}; grading left unset")
        d.unfilled.append("grading")
        d.pending = _pending(decision, described, columns, decision.conflict)
        return d
    d.metric = decision.metric
    _departures(decision, grader, d)
    if decision.metric not in METRICS:
        reason = f"metric {decision.metric} is not registered yet"
        d.warnings.append(f"{reason}; grading left unset")
        d.unfilled.append("grading")
        d.pending = _pending(decision, described, columns, reason)
        return d
    misfit = params_misfit(decision.metric, decision.params)
    if misfit:
        reason = (f"the parameters read, {decision.params}, do not fit {decision.metric} "
                  f"({misfit}): the rule needs a form of the metric not registered yet")
        d.warnings.append(f"{reason}; grading left unset")
        d.unfilled.append("grading")
        d.pending = _pending(decision, described, columns, reason)
        return d
    params = dict(decision.params)
    metric = single_column(decision.metric, columns, d)
    d.metric = metric
    d.grading = _grading(metric, params, columns, d)
    return d


def with_conventions(slug: str, d: DojoGrading) -> DojoGrading:
    """The grading with the competition's conventions (:mod:`.conventions`: empty tokens,
    scored rows, label spellings, the columns metric parameters read) applied. A grading the
    witnesses left unset and the table builds is no longer left for review; the witnesses'
    conflict stays in the warnings, saying the table settled it. A departure of ``metric.py``
    the table records, and the witnesses did not flag, is flagged the same way."""
    grading, notes = apply_conventions(slug, d.grading)
    if not notes:
        return d
    d.notes += notes
    if d.grading is None and grading is not None:
        d.warnings, d.unfilled = settled_by_table(d.warnings, d.unfilled, "grading left unset")
        d.pending = None
    d.grading = grading
    d.metric = grading.metric if grading is not None else d.metric
    departure = departure_of(slug, "mle-dojo")
    if departure and grading is not None and not d.departures:
        d.departures.append(departure)
        d.notes.append(f"departure of metric.py from the published rule (tambench's "
                       f"conventions table): {departure}; the published rule is followed")
        d.warnings.append(f"metric.py departs from the published rule: {departure}")
    return d


def _grading(metric: str, params: dict[str, Any], columns: Columns | None,
             d: DojoGrading) -> GradingSpec:
    if columns is None:
        d.unfilled += ["grading.id_columns", "grading.target_columns",
                       "grading.submission_header"]
        return GradingSpec(metric=metric, metric_params=params)
    try:
        return GradingSpec(metric=metric, metric_params=params, id_columns=columns.id_columns,
                           target_columns=columns.target_columns,
                           submission_header=columns.header)
    except ValidationError as exc:
        d.warnings.append(f"the submission columns do not fit together: "
                          f"{exc.errors()[0]['msg']}; columns left unset")
        d.unfilled += ["grading.id_columns", "grading.target_columns",
                       "grading.submission_header"]
        return GradingSpec(metric=metric, metric_params=params)
