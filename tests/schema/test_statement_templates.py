"""The statement written from the grading, and its agreement with the grading, over the whole
shipped catalogue."""

from __future__ import annotations

import pytest

from tambench.schema.mapping.templates import (
    metric_name,
    names_metric,
    statement_problems,
    strip_advice,
    template_fields,
)
from tambench.schema.taskspec import TaskSpec
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir


@pytest.fixture(scope="module")
def complete() -> list[TaskSpec]:
    return [e.spec for e in Catalogue(bundled_catalogue_dir()) if e.spec.status == "complete"]


def test_every_complete_task_has_a_statement_that_agrees_with_its_grading(
        complete: list[TaskSpec]) -> None:
    assert len(complete) >= 200
    problems = {s.id: statement_problems(s) for s in complete}
    assert {k: v for k, v in problems.items() if v} == {}
    for s in complete:
        assert s.goal_description and s.metric.metric_name and s.task_type, s.id
        if s.grading is not None and s.grading.submission_format == "csv":
            assert ",".join(s.grading.submission_header) in s.output_format, s.id
        empty = [f for f in ("special_instructions", "target_col") if not getattr(s, f)]
        for field in empty:  # an empty field says why
            assert any(n.startswith(f"statement: {field} left empty: ")
                       for n in s.provenance.notes), (s.id, field)


def test_the_lite_statements_keep_constraints_and_lose_advice(complete: list[TaskSpec]) -> None:
    lite = {s.id: s for s in complete if s.provenance.mapper == "paper-release"}
    assert len(lite) >= 18
    for s in lite.values():
        assert strip_advice(s.special_instructions)[1] == [], s.id
        assert "recommended" not in s.special_instructions
    assert "Internet access is disabled" in lite[
        "kaggle/eedi-mining-misconceptions-in-mathematics"].special_instructions
    assert lite["kaggle/denoising-dirty-documents"].special_instructions.endswith(
        "3. The submission file must include a header row.")


def test_a_statement_that_disagrees_with_the_grading_is_named() -> None:
    spec = TaskSpec.model_validate({
        "id": "kaggle/x", "platform": "kaggle", "modality": "Tabular",
        "grading": {"metric": "rmse", "id_columns": ["id"], "target_columns": ["y"],
                    "submission_header": ["id", "y"]}})
    fields, reasons = template_fields(spec)
    good = spec.model_validate({**spec.model_dump(), **fields})
    assert statement_problems(good) == [] and "special_instructions" in reasons
    bad = good.model_copy(update={
        "output_format": "a csv", "target_col": "z", "special_instructions":
        "1. No external data. 2. A CNN is recommended.",
        "metric": good.metric.model_copy(update={"metric_name": "Mean Absolute Error"})})
    found = " | ".join(statement_problems(bad))
    for needle in ("header 'id,y'", "target_col 'z'", "does not name the graded metric 'rmse'",
                   "give advice"):
        assert needle in found


def test_metric_names_resolve_back_to_their_metric() -> None:
    for metric in ("rmse", "roc_auc", "log_loss", "accuracy", "map_at_k"):
        assert names_metric(metric_name(metric), metric), metric
    assert not names_metric("Root Mean Squared Error", "mae")
    assert not names_metric("", "rmse")
    assert names_metric("Log loss with 'eps=auto'", "multiclass_log_loss")


def test_a_metric_names_parameter_is_filled_from_the_grading(complete: list[TaskSpec]) -> None:
    assert metric_name("map_at_k", {"k": 12}) == "MAP@12"
    assert metric_name("ndcg_at_k", {"k": 5}) == "NDCG@5"
    assert names_metric("NDCG@5", "ndcg_at_k") and names_metric("MAP@k", "map_at_k")
    assert not names_metric("MAP@{K}", "map_at_k")  # the k left out names no metric
    assert not names_metric("NDCG@5", "map_at_k")
    for s in complete:  # no statement shows an unfilled placeholder
        assert "{" not in s.metric.metric_name + s.goal_description, s.id
    whale = next(s for s in complete if s.slug == "whale-categorization-playground")
    assert whale.metric.metric_name == "MAP@5" and "MAP@5" in whale.goal_description


def test_events_regrouped_per_key_are_described_as_such(complete: list[TaskSpec]) -> None:
    hm = next(s for s in complete if s.slug == "h-and-m-personalized-fashion-recommendations")
    train = hm.data_information.train.data_description
    assert "`article_id`" in train and "`customer_id`" in train
    assert "training rows with their `prediction`" not in train  # train.csv holds purchases


def test_strip_advice_renumbers_what_it_keeps() -> None:
    kept, removed = strip_advice("1. Output one row per id. 2. Consider an ensemble. "
                                 "3. No hand labelling.")
    assert kept == "1. Output one row per id. 2. No hand labelling."
    assert removed == ["Consider an ensemble."]
