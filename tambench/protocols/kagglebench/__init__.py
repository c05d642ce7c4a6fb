"""KaggleBench: scoring repaired tabular preprocessing plans.

An agent sees a bank of candidate preprocessing actions and a scenario's active context
actions, and predicts which actions to add and which to remove. :func:`evaluate_prediction`
scores one prediction exactly as the benchmark defines it:

* **Scope**: ``primary`` (default) scores only actions whose ``eval_stage`` is
  ``core_preprocessing``; ``all`` scores every action. Out-of-scope predictions are ignored
  (counted as ``stage_filtered``, never false positives) and do not change the final state.
* **Expected adds**: each good in-scope action not in the context is one unit; good actions
  sharing an ``equivalence_group`` collapse into one unit; a group already satisfied by a good
  in-scope context action gives no unit. **Expected removes**: bad in-scope context actions.
* **Invalid predictions**, classified in this order and counted as false positives: not a
  string, duplicate, unknown id, (then out-of-scope ids are filtered), an add already in the
  context, a remove not in the context.
* **Final state** = (context - removes) | adds. ``must_follow_action_ids`` and
  ``invalidates_action_ids`` of an action A listing B give an edge B -> A; a
  ``conflicts_with_action_ids`` pair inside the state makes it invalid; a topological sort
  finds cycles, and nodes downstream of a cycle count as in it. A predicted add in a conflict
  or a cycle is a false positive.
* **Add side**: a good in-scope target matched the first time is a TP; a second member of a
  matched group or a member of a group the context satisfies is a FP; anything else is a FP.
  **Remove side**: in the expected set is a TP, else a FP.
* **Per side** (E expected, P predicted): E = P = 0 gives precision = recall = F1 = 1; E = 0 <
  P gives precision 0, recall 1, F1 0; else precision TP/P (0 if P = 0), recall TP/E and F1 the
  harmonic mean (0 if both are 0). Each rounded to 6 places.
* ``task_completion = 0.5 * add_f1 + 0.5 * remove_recall`` and
  ``strict_score = 0.5 * add_f1 + 0.5 * remove_f1`` from the rounded values, rounded again.
  Success: ``task_completion >= 0.5`` (inclusive).

Several runs of one scenario: ``pass@k`` (any run succeeds), the run success rate and means
(:func:`aggregate_runs`). A folder of agent outputs for the benchmark's tasks is scored by
:func:`evaluate_outputs` (layout in its docstring and in ``docs/protocols/kagglebench.md``).
"""

from tambench.protocols.base import SiblingProtocol
from tambench.protocols.kagglebench.models import (
    AgentOutput,
    CandidateAction,
    CandidateBank,
    Testcase,
    TestcaseInput,
)
from tambench.protocols.kagglebench.runs import (
    HUMAN_BASELINE_GLOB,
    OUTPUT_GLOB,
    KaggleBenchTask,
    evaluate_outputs,
    find_task_dirs,
    load_task,
)
from tambench.protocols.kagglebench.scoring import (
    MEAN_FIELDS,
    PRIMARY_STAGE,
    ROUND_DIGITS,
    SCOPES,
    SUCCESS_THRESHOLD,
    ActionBank,
    InvalidPrediction,
    ScenarioScore,
    Scope,
    SideMetrics,
    aggregate_runs,
    evaluate_prediction,
    find_conflicts,
    find_cycle_nodes,
    load_bank,
    side_metrics,
)

#: This protocol's registry entry (see :mod:`tambench.protocols.base`).
PROTOCOL = SiblingProtocol(
    name="kagglebench",
    title="KaggleBench",
    summary="repaired preprocessing plans: add F1, remove recall, task completion, pass@k "
            "per agent",
    evaluate=evaluate_outputs,
    inputs="a folder of task folders and a folder of agent output JSON files",
    doc="docs/protocols/kagglebench.md",
)

__all__ = [
    "PROTOCOL",
    "HUMAN_BASELINE_GLOB", "MEAN_FIELDS", "OUTPUT_GLOB", "PRIMARY_STAGE", "ROUND_DIGITS",
    "SCOPES", "SUCCESS_THRESHOLD", "ActionBank", "AgentOutput", "CandidateAction",
    "CandidateBank", "InvalidPrediction", "KaggleBenchTask", "ScenarioScore", "Scope",
    "SideMetrics", "Testcase", "TestcaseInput", "aggregate_runs", "evaluate_outputs",
    "evaluate_prediction", "find_conflicts", "find_cycle_nodes", "find_task_dirs", "load_bank",
    "load_task", "side_metrics",
]
