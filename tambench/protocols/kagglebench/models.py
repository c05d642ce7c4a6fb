"""KaggleBench's JSON files as pydantic models: candidate banks, testcases, agent outputs.

Extra fields of the benchmark's files are kept, not validated; a file that does not match its
layout raises :class:`~tambench.errors.ProtocolError` naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tambench.core.bounded import load_json
from tambench.errors import ProtocolError

# --- file models (the benchmark's JSON layouts; extra fields are kept, not validated) ------


class _FileModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class CandidateAction(_FileModel):
    """One action of a task's candidate bank (``candidate_actions.json``)."""

    action_id: str = Field(min_length=1)
    """Stable id, e.g. "CA-000021"."""

    action_type: str = ""
    """Canonical action type, e.g. "IMPUTE_MISSING" (not used in scoring)."""

    eval_stage: Literal["core_preprocessing", "validation_protocol",
                        "model_specific_preprocessing"]
    """Pipeline stage; the primary scope scores only core_preprocessing."""

    role: Literal["good", "bad"]
    """Whether the action belongs in a good plan (hidden from the agent)."""

    equivalence_group: str | None = None
    """Good actions sharing a group are interchangeable: one of them is expected."""

    must_follow_action_ids: list[str] = Field(default_factory=list)
    """Actions that must come before this one (edges B -> this)."""

    invalidates_action_ids: list[str] = Field(default_factory=list)
    """Actions this one invalidates (also edges B -> this)."""

    conflicts_with_action_ids: list[str] = Field(default_factory=list)
    """Actions that cannot be in the same final state as this one."""


class CandidateBank(_FileModel):
    """``candidate_actions.json``."""

    competition_slug: str = Field(min_length=1)
    """The task's slug."""

    actions: list[CandidateAction]
    """The bank."""


class TestcaseInput(_FileModel):
    """The ``input`` of a testcase."""

    scenario: str = ""
    """from_scratch | partial_good | fault_injected | mixed."""

    context_action_ids: list[str]
    """Actions already active in the scenario."""


class Testcase(_FileModel):
    """``testcases/<testcase_id>.json``."""

    __test__ = False  # not a pytest test class

    testcase_id: str = Field(min_length=1)
    """e.g. "tc1_from_scratch"."""

    competition_slug: str = Field(min_length=1)
    """The task's slug."""

    input: TestcaseInput
    """Scenario and context."""


class AgentOutput(_FileModel):
    """One run's output artifact (the benchmark's ``output.schema.json``; predictions are read
    as any JSON so that non-string ids can be classified as invalid rather than refused)."""

    competition_slug: str = Field(min_length=1)
    """The task's slug."""

    testcase_id: str = Field(min_length=1)
    """The testcase answered."""

    agent_name: str = "unknown"
    """Who produced it ("human" for the human baseline)."""

    run_id: str = ""
    """Identifies the run among several of the same scenario."""

    predicted_add_action_ids: list[Any]
    """Actions to add."""

    predicted_remove_action_ids: list[Any]
    """Actions to remove."""


def load_json_model(path: Path, model: type[_FileModel]) -> Any:
    try:
        data = load_json(path, error=ProtocolError)
    except FileNotFoundError:
        raise ProtocolError(f"file not found: {path}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ProtocolError(f"{path} does not match the {model.__name__} layout:\n{exc}") from exc


# --- the bank ------------------------------------------------------------------------------
