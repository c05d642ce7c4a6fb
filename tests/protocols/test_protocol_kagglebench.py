"""KaggleBench: every vector of scoring-protocols.md section 3, runs, and folder aggregates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tambench.errors import ProtocolError
from tambench.protocols.kagglebench import (
    HUMAN_BASELINE_GLOB,
    ActionBank,
    ScenarioScore,
    aggregate_runs,
    evaluate_outputs,
    evaluate_prediction,
    load_task,
)

CORE = "core_preprocessing"


def act(aid: str, role: str, stage: str = CORE, **extra: Any) -> dict[str, Any]:
    return {"action_id": aid, "role": role, "eval_stage": stage, **extra}


BANK = ActionBank.from_actions([act("G1", "good"), act("G2", "good"), act("G3", "good"),
                                act("B1", "bad"), act("B2", "bad"), act("B3", "bad")])


def side(s: ScenarioScore, which: str) -> tuple[float, ...]:
    m = s.add if which == "add" else s.remove
    return (m.expected, m.true_positives, m.false_positives, m.precision, m.recall, m.f1)


def test_v1_perfect_repair() -> None:
    s = evaluate_prediction(BANK, ["B1"], ["G1", "G2", "G3"], ["B1"])
    assert side(s, "add") == (3, 3, 0, 1, 1, 1) and side(s, "remove") == (1, 1, 0, 1, 1, 1)
    assert (s.task_completion, s.strict_score, s.success) == (1.0, 1.0, True)


def test_v2_no_prediction() -> None:
    s = evaluate_prediction(BANK, ["B1"], [], [])
    assert side(s, "add") == (3, 0, 0, 0, 0, 0) and side(s, "remove") == (1, 0, 0, 0, 0, 0)
    assert (s.task_completion, s.strict_score, s.success) == (0, 0, False)


def test_v3_bad_add_is_a_false_positive_and_rounding_happens_twice() -> None:
    s = evaluate_prediction(BANK, ["B1"], ["G1", "G2", "B2"], [])
    assert side(s, "add") == (3, 2, 1, 0.666667, 0.666667, 0.666667)
    assert s.remove.recall == 0 and s.remove.f1 == 0
    assert (s.task_completion, s.strict_score, s.success) == (0.333334, 0.333334, False)


def test_v4_duplicate_is_invalid() -> None:
    s = evaluate_prediction(BANK, [], ["G1", "G1"], [])
    assert side(s, "add") == (3, 1, 1, 0.5, 0.333333, 0.4)
    assert side(s, "remove") == (0, 0, 0, 1, 1, 1)
    assert (s.task_completion, s.strict_score, s.success) == (0.7, 0.7, True)
    assert [(i.value, i.reason) for i in s.invalid] == [("G1", "duplicate")]


def test_v5_unknown_and_non_string_ids_are_false_positives() -> None:
    s = evaluate_prediction(BANK, [], ["G1", "ZZ", 7], [])
    assert s.add.false_positives == 2 and s.add.f1 == 0.333333
    assert s.task_completion == 0.666667
    assert sorted(i.reason for i in s.invalid) == ["non_string", "unknown_id"]


def test_v6_add_already_in_context_is_invalid() -> None:
    s = evaluate_prediction(BANK, ["G1"], ["G1", "G2"], [])
    assert side(s, "add") == (2, 1, 1, 0.5, 0.5, 0.5)
    assert s.task_completion == 0.75


def test_v7_removing_a_good_action_costs_only_the_strict_score() -> None:
    s = evaluate_prediction(BANK, ["G1"], ["G2", "G3"], ["G1"])
    assert side(s, "remove") == (0, 0, 1, 0, 1, 0)
    assert (s.task_completion, s.strict_score, s.success) == (1.0, 0.5, True)


def test_v8_remove_not_in_context_is_invalid() -> None:
    s = evaluate_prediction(BANK, ["B1"], ["G1", "G2", "G3"], ["B2", "B1"])
    assert side(s, "remove") == (1, 1, 1, 0.5, 1, 0.666667)
    assert (s.task_completion, s.strict_score) == (1.0, 0.833333)
    assert [(i.value, i.reason) for i in s.invalid] == [("B2", "remove_not_in_context")]


def test_v9_v10_empty_expectations() -> None:
    bank = ActionBank.from_actions([act("B1", "bad")])
    s = evaluate_prediction(bank, [], [], [])
    assert side(s, "add") == (0, 0, 0, 1, 1, 1) and side(s, "remove") == (0, 0, 0, 1, 1, 1)
    assert (s.task_completion, s.strict_score, s.success) == (1.0, 1.0, True)
    s = evaluate_prediction(bank, [], ["B1"], [])
    assert side(s, "add") == (0, 0, 1, 0, 1, 0)
    assert (s.task_completion, s.success) == (0.5, True)


def test_v11_threshold_is_inclusive() -> None:
    s = evaluate_prediction(BANK, ["B1"], [], ["B1"])
    assert (s.task_completion, s.strict_score, s.success) == (0.5, 0.5, True)


EQ_BANK = ActionBank.from_actions([
    act("E1", "good", equivalence_group="g"), act("E2", "good", equivalence_group="g"),
    act("G3", "good"), act("B1", "bad"),
])


def test_equivalence_group_is_one_unit_and_a_second_member_is_a_false_positive() -> None:
    s = evaluate_prediction(EQ_BANK, [], ["E1", "E2", "G3"], [])
    assert side(s, "add") == (2, 2, 1, 0.666667, 1, 0.8)
    assert s.task_completion == 0.9


def test_group_satisfied_by_context_gives_no_unit_and_a_member_add_is_a_false_positive() -> None:
    s = evaluate_prediction(EQ_BANK, ["E1", "B1"], ["E2", "G3"], ["B1"])
    assert side(s, "add") == (1, 1, 1, 0.5, 1, 0.666667)
    assert s.task_completion == 0.833333


SCOPE_BANK = ActionBank.from_actions([act("C", "good"), act("V", "good", "validation_protocol"),
                                      act("B1", "bad")])


def test_primary_scope_ignores_out_of_stage_predictions() -> None:
    s = evaluate_prediction(SCOPE_BANK, [], ["V"], [])
    assert side(s, "add") == (1, 0, 0, 0, 0, 0) and s.add.stage_filtered == 1
    assert s.task_completion == 0.5


def test_all_scope_scores_every_stage() -> None:
    s = evaluate_prediction(SCOPE_BANK, [], ["V"], [], scope="all")
    assert side(s, "add") == (2, 1, 0, 1, 0.5, 0.666667) and s.add.stage_filtered == 0
    assert s.task_completion == 0.833333


CONFLICT_BANK = ActionBank.from_actions([act("G", "good"),
                                         act("B", "bad", conflicts_with_action_ids=["G"])])


def test_conflict_in_final_state_makes_the_add_a_false_positive() -> None:
    s = evaluate_prediction(CONFLICT_BANK, ["B"], ["G"], [])
    assert s.add.false_positives == 1 and s.add.true_positives == 0
    assert s.state_valid is False and s.conflicts == [("B", "G")]
    assert (s.task_completion, s.success) == (0, False)


def test_removing_the_conflicting_action_restores_the_add() -> None:
    s = evaluate_prediction(CONFLICT_BANK, ["B"], ["G"], ["B"])
    assert s.state_valid and s.task_completion == 1.0


def test_cycle_and_its_downstream_nodes_are_false_positives() -> None:
    bank = ActionBank.from_actions([
        act("A", "good", must_follow_action_ids=["C"]),
        act("C", "good", must_follow_action_ids=["A"]),
        act("D", "good", must_follow_action_ids=["A"]),
    ])
    s = evaluate_prediction(bank, [], ["A", "C", "D"], [])
    assert (s.add.expected, s.add.true_positives, s.add.false_positives) == (3, 0, 3)
    assert s.cycle_nodes == ["A", "C", "D"] and s.task_completion == 0.5


def test_invalidates_edges_form_cycles_too() -> None:
    bank = ActionBank.from_actions([act("A", "good", invalidates_action_ids=["C"]),
                                    act("C", "good", must_follow_action_ids=["A"])])
    s = evaluate_prediction(bank, [], ["A", "C"], [])
    assert s.cycle_nodes == ["A", "C"] and s.add.true_positives == 0


def test_acyclic_dependencies_are_fine() -> None:
    bank = ActionBank.from_actions([act("A", "good"), act("D", "good", must_follow_action_ids=["A"])])
    s = evaluate_prediction(bank, [], ["D", "A"], [])
    assert s.state_valid and s.add.true_positives == 2


def test_bank_with_dangling_reference_is_refused() -> None:
    with pytest.raises(ProtocolError, match=r"A.must_follow_action_ids names unknown action\(s\) \['Z'\]"):
        ActionBank.from_actions([act("A", "good", must_follow_action_ids=["Z"])])


def test_context_with_unknown_id_is_refused() -> None:
    with pytest.raises(ProtocolError, match="not in the bank"):
        evaluate_prediction(BANK, ["NOPE"], [], [])


def test_runs_give_pass_at_k_success_rate_and_means() -> None:
    runs = [evaluate_prediction(BANK, ["B1"], adds, rem) for adds, rem in
            ((["G1", "G2", "G3"], ["B1"]), ([], []), ([], ["B1"]))]
    agg = aggregate_runs(runs)
    assert agg["k"] == 3 and agg["pass_at_k"] is True
    assert agg["run_success_rate"] == 0.666667
    assert agg["mean_task_completion"] == 0.5 and agg["mean_add_f1"] == 0.333333


# --- real data -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kb_tasks(shared_dir: Path) -> Path:
    return shared_dir / "data" / "kaggle-bench" / "tasks"


def human_score(kb_tasks: Path, slug: str) -> ScenarioScore:
    task = load_task(kb_tasks / slug)
    human = json.loads((kb_tasks / slug / "human_baseline" / "tc1_human.json").read_text())
    ctx = task.testcases[human["testcase_id"]].input.context_action_ids
    return evaluate_prediction(task.bank, ctx, human["predicted_add_action_ids"],
                               human["predicted_remove_action_ids"])


def test_real_spaceship_titanic_human_baseline(kb_tasks: Path) -> None:
    s = human_score(kb_tasks, "spaceship-titanic")
    assert side(s, "add") == (11, 11, 0, 1, 1, 1)
    assert (s.task_completion, s.success) == (1.0, True)


def test_real_zillow_human_baseline(kb_tasks: Path) -> None:
    s = human_score(kb_tasks, "zillow-prize-1")
    assert side(s, "add") == (9, 7, 5, 0.583333, 0.777778, 0.666667)
    assert s.add.stage_filtered == 4
    assert (s.task_completion, s.success) == (0.833333, True)


def test_human_row_over_the_twenty_tasks(kb_tasks: Path) -> None:
    out = evaluate_outputs(kb_tasks, kb_tasks, pattern=HUMAN_BASELINE_GLOB)
    assert out["n_tasks"] == 20 and list(out["agents"]) == ["human"]
    human = out["agents"]["human"]
    assert human["n_scenarios"] == 20 and human["n_runs"] == 20
    assert human["tasks_without_output"] == []
    assert len(human["testcases_without_output"]) == 60
    per = {s["task"]: s["mean_task_completion"] for s in out["scenarios"]}
    assert per["spaceship-titanic"] == 1.0 and per["zillow-prize-1"] == 0.833333
    assert human["mean_task_completion"] == pytest.approx(sum(per.values()) / 20, abs=1e-6)
    # The published human row of this data (regression guard for the whole pipeline).
    assert (human["mean_task_completion"], human["mean_add_f1"]) == (0.885878, 0.771756)


# --- an outputs folder -----------------------------------------------------------------------


def write_task(root: Path, slug: str = "toy") -> Path:
    d = root / slug
    (d / "testcases").mkdir(parents=True)
    (d / "candidate_actions.json").write_text(json.dumps({
        "competition_slug": slug, "generated_at": "now",
        "actions": [act("G1", "good"), act("G2", "good"), act("B1", "bad")],
    }))
    for tc, ctx in (("tc1_from_scratch", []), ("tc3_fault_injected", ["B1"])):
        (d / "testcases" / f"{tc}.json").write_text(json.dumps({
            "testcase_id": tc, "competition_slug": slug, "task_ref": "../task.json",
            "input": {"scenario": "from_scratch", "context_action_ids": ctx},
        }))
    return d


def write_output(root: Path, rel: str, testcase: str, adds: list[Any], removes: list[Any],
                 agent: str = "bot", run_id: str = "r1", slug: str = "toy") -> None:
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps({
        "competition_slug": slug, "testcase_id": testcase, "agent_name": agent,
        "run_by": "x", "run_id": run_id, "artifact_refs": [{"kind": "log", "path": "l"}],
        "predicted_add_action_ids": adds, "predicted_remove_action_ids": removes,
        "time_spent_seconds": 1, "token_usage": {"input_tokens": None, "output_tokens": None,
                                                 "total_tokens": None},
        "notes": "",
    }))


def test_outputs_folder_groups_runs_by_agent_and_scenario(tmp_path: Path) -> None:
    tasks, outs = tmp_path / "tasks", tmp_path / "outs"
    write_task(tasks)
    write_output(outs, "toy/tc3_fault_injected/run_1.json", "tc3_fault_injected",
                 ["G1", "G2"], ["B1"])
    write_output(outs, "toy/tc3_fault_injected/run_2.json", "tc3_fault_injected", [], [],
                 run_id="r2")
    write_output(outs, "toy/tc1_from_scratch.json", "tc1_from_scratch", ["G1"], [])
    write_output(outs, "toy/tc3_fault_injected.json", "tc3_fault_injected", ["B1"], [],
                 agent="other")
    out = evaluate_outputs(tasks, outs)
    assert sorted(out["agents"]) == ["bot", "other"]
    bot = out["agents"]["bot"]
    assert (bot["n_scenarios"], bot["n_runs"]) == (2, 3)
    scen = {s["testcase"]: s for s in out["scenarios"] if s["agent"] == "bot"}
    assert scen["tc3_fault_injected"]["pass_at_k"] is True
    assert scen["tc3_fault_injected"]["run_success_rate"] == 0.5
    assert scen["tc3_fault_injected"]["mean_task_completion"] == 0.5
    assert scen["tc1_from_scratch"]["mean_task_completion"] == 0.833333
    assert bot["pass_at_k"] == 1.0 and bot["run_success_rate"] == 0.75
    other = out["agents"]["other"]
    assert other["pass_at_k"] == 0.0 and other["testcases_without_output"] == ["toy/tc1_from_scratch"]
    assert bot["testcases_without_output"] == []


def test_output_for_unknown_testcase_is_an_error(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks")
    write_output(tmp_path / "outs", "toy/x.json", "tc9_nope", [], [])
    with pytest.raises(ProtocolError, match="unknown testcase 'tc9_nope'"):
        evaluate_outputs(tmp_path / "tasks", tmp_path / "outs")


def test_output_under_the_wrong_task_folder_is_an_error(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks")
    write_output(tmp_path / "outs", "toy/x.json", "tc1_from_scratch", [], [], slug="other")
    with pytest.raises(ProtocolError, match="is for 'other' but lies under 'toy'"):
        evaluate_outputs(tmp_path / "tasks", tmp_path / "outs")


def test_empty_outputs_folder_is_an_error_not_a_zero(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks")
    (tmp_path / "outs").mkdir()
    with pytest.raises(ProtocolError, match="no output files"):
        evaluate_outputs(tmp_path / "tasks", tmp_path / "outs")
