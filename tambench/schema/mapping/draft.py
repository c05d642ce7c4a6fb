"""A mapping in progress: field path -> value with its evidence, and how it becomes a TaskSpec.

Both mappers fill a :class:`Draft`; :func:`build_result` turns it into the TaskSpec and the
:class:`MappingResult` the rest of tambench reads. Field paths are the TaskSpec's own dotted
names ("grading.submission_header", "data_information.train"), so ``unfilled`` and
``evidence`` speak the schema's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tambench.schema.complete import status_for
from tambench.schema.taskspec import (
    DataInformation,
    DataLocation,
    GradingSpec,
    MetricDescription,
    Modality,
    PendingGrading,
    Provenance,
    SubmissionFormat,
    TaskSpec,
)

#: Every field a mapper tries to fill, in the order reports list them.
MAPPED_FIELDS: tuple[str, ...] = (
    "title",
    "goal_description",
    "task_type",
    "modality",
    "metric.metric_name",
    "metric.metric_formula",
    "target_col",
    "data_information.data_type",
    "data_information.train",
    "data_information.test",
    "data_information.inference",
    "output_format",
    "special_instructions",
    "grading.metric",
    "grading.submission_header",
    "grading.id_columns",
    "grading.target_columns",
)


@dataclass(frozen=True)
class Filled:
    """One filled field: its value, the verbatim quote supporting it, and who filled it."""

    value: Any
    evidence: str
    source: str = "rules"


@dataclass(frozen=True)
class MetricGap:
    """A metric the pages state that no registered id computes (or no metric at all)."""

    reason: str
    """Why ``grading.metric`` is empty."""

    name: str = ""
    """The page's words for the metric ("" when the pages name none)."""

    metric_id: str = ""
    """The id that computes it exactly when one is known but not registered."""

    params: dict[str, Any] = field(default_factory=dict)

    family: str = ""
    """The metric family the rules recognised ("mae" for a weighted MAE); "" when they
    recognised none (a metric the mapper does not know)."""

    conflict: tuple[str, ...] = ()
    """The scoring sentences that name different metrics, when that is why it is empty."""


@dataclass
class Draft:
    """Fields filled so far, plus remarks that end up in ``provenance.notes``."""

    fields: dict[str, Filled] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    metric_gap: MetricGap | None = None
    """Set when ``grading.metric`` stays empty: what the pages name and why."""

    def put(self, path: str, value: Any, evidence: str, source: str = "rules") -> None:
        """Fill ``path`` (a name from :data:`MAPPED_FIELDS`)."""
        if path not in MAPPED_FIELDS:
            raise KeyError(f"{path!r} is not a mapped field; expected one of {MAPPED_FIELDS}")
        self.fields[path] = Filled(value, evidence, source)

    def get(self, path: str, default: Any = None) -> Any:
        """The value at ``path``, or ``default`` when unfilled."""
        f = self.fields.get(path)
        return default if f is None else f.value


@dataclass
class MappingResult:
    """What a mapper produced from a competition's pages."""

    spec: TaskSpec
    """The TaskSpec, with ``provenance`` holding evidence, unfilled fields and notes."""

    unfilled: list[str]
    """TaskSpec field paths the mapper could not fill, in :data:`MAPPED_FIELDS` order."""

    evidence: dict[str, str]
    """For each filled field path, the verbatim quote from the pages that supports it."""

    mapper: str
    """"rules" for the offline mapper, "model:<name>" for the LLM mapper."""

    warnings: list[str] = field(default_factory=list)
    """Things a person should look at: rejected evidence, mapper disagreements, injection-like
    sentences found in the pages."""


#: Why a draft without a metric has none, when no gap was recorded.
NO_METRIC_REASON = ("the pages state no metric in an evaluation section or in a sentence "
                    "defining how submissions are scored")


def _grading(draft: Draft) -> GradingSpec | None:
    metric = draft.get("grading.metric")
    if metric is None:
        return None
    return GradingSpec(
        metric=metric["id"],
        metric_params=dict(metric.get("params", {})),
        id_columns=list(draft.get("grading.id_columns", [])),
        target_columns=list(draft.get("grading.target_columns", [])),
        submission_format=SubmissionFormat.CSV,
        submission_header=list(draft.get("grading.submission_header", [])),
    )


def _pending(draft: Draft) -> tuple[PendingGrading | None, list[str]]:
    """The grading facts kept in provenance when there is no grading section, and the note
    that says so."""
    gap = draft.metric_gap or MetricGap(NO_METRIC_REASON)
    header = list(draft.get("grading.submission_header", []))
    if not header and not gap.name:
        return None, []
    pending = PendingGrading(
        metric_name=gap.name, metric_id=gap.metric_id, metric_params=dict(gap.params),
        reason=gap.reason, submission_header=header,
        id_columns=list(draft.get("grading.id_columns", [])),
        target_columns=list(draft.get("grading.target_columns", [])))
    kept = (f"the submission header {header} and its columns are kept in "
            "provenance.pending_grading" if header else "the metric's name is kept in "
            "provenance.pending_grading")
    return pending, [f"no grading section: {gap.reason}; {kept}"]


def build_result(draft: Draft, *, task_id: str, url: str, mapper: str) -> MappingResult:
    """Turn a draft into a validated TaskSpec and its MappingResult.

    Without a metric there is no grading section and the task is incomplete; whatever was
    read for grading (the header, its columns, the metric's name) is kept in
    ``provenance.pending_grading`` and a note says why.
    """
    platform = task_id.split("/", 1)[0]
    g = draft.get
    grading = _grading(draft)
    pending, pending_notes = (None, []) if grading is not None else _pending(draft)
    empty = DataLocation()
    unfilled = [p for p in MAPPED_FIELDS if p not in draft.fields]
    evidence = {p: draft.fields[p].evidence for p in MAPPED_FIELDS if p in draft.fields}
    notes = list(dict.fromkeys([*draft.notes, *pending_notes]))
    spec = TaskSpec(
        id=task_id,
        platform=platform,
        url=url,
        title=g("title", ""),
        status="incomplete",
        modality=Modality(g("modality")) if g("modality") else None,
        task_type=g("task_type", ""),
        goal_description=g("goal_description", ""),
        metric=MetricDescription(metric_name=g("metric.metric_name", ""),
                                 metric_formula=g("metric.metric_formula", "")),
        target_col=g("target_col", ""),
        data_information=DataInformation(
            data_type=g("data_information.data_type", ""),
            train=g("data_information.train", empty),
            test=g("data_information.test", empty),
            inference=g("data_information.inference", empty),
        ),
        output_format=g("output_format", ""),
        special_instructions=g("special_instructions", ""),
        grading=grading,
        provenance=Provenance(mapper=mapper, evidence=evidence, unfilled=unfilled, notes=notes,
                              pending_grading=pending),
    )
    # One definition of "complete" for every command (schema.complete).
    spec = spec.model_copy(update={"status": status_for(spec)})
    return MappingResult(spec=spec, unfilled=unfilled, evidence=evidence, mapper=mapper,
                         warnings=list(dict.fromkeys(draft.warnings)))


def submission_header_of(spec: TaskSpec) -> list[str]:
    """The submission header a spec holds, in ``grading`` or, without one, in
    ``provenance.pending_grading``."""
    if spec.grading is not None:
        return list(spec.grading.submission_header)
    pending = spec.provenance.pending_grading
    return list(pending.submission_header) if pending is not None else []
