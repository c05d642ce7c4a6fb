"""A mapping in progress: field path -> value with its evidence, and how it becomes a TaskSpec.

Both mappers fill a :class:`Draft`; :func:`build_result` turns it into the TaskSpec and the
:class:`MappingResult` the rest of tambench reads. Field paths are the TaskSpec's own dotted
names ("grading.submission_header", "data_information.train"), so ``unfilled`` and
``evidence`` speak the schema's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tambench.schema.taskspec import (
    DataInformation,
    DataLocation,
    GradingSpec,
    MetricDescription,
    Modality,
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


@dataclass
class Draft:
    """Fields filled so far, plus remarks that end up in ``provenance.notes``."""

    fields: dict[str, Filled] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

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


def build_result(draft: Draft, *, task_id: str, url: str, mapper: str) -> MappingResult:
    """Turn a draft into a validated TaskSpec and its MappingResult."""
    platform = task_id.split("/", 1)[0]
    g = draft.get
    metric = g("grading.metric")
    grading: GradingSpec | None = None
    if metric is not None:
        header = list(g("grading.submission_header", []))
        grading = GradingSpec(
            metric=metric["id"],
            metric_params=dict(metric.get("params", {})),
            id_columns=list(g("grading.id_columns", [])),
            target_columns=list(g("grading.target_columns", [])),
            submission_format=SubmissionFormat.CSV,
            submission_header=header,
        )
    empty = DataLocation()
    spec = TaskSpec(
        id=task_id,
        platform=platform,
        url=url,
        title=g("title", ""),
        status="complete" if grading is not None and grading.submission_header else "incomplete",
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
        provenance=Provenance(mapper=mapper),
    )
    unfilled = [p for p in MAPPED_FIELDS if p not in draft.fields]
    evidence = {p: draft.fields[p].evidence for p in MAPPED_FIELDS if p in draft.fields}
    notes = list(dict.fromkeys(draft.notes))
    spec.provenance = Provenance(mapper=mapper, evidence=evidence, unfilled=unfilled, notes=notes)
    return MappingResult(spec=spec, unfilled=unfilled, evidence=evidence, mapper=mapper,
                         warnings=list(dict.fromkeys(draft.warnings)))
