"""Split specs: one model per strategy; what does not apply or conflicts is refused at load."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from pydantic import Field, ValidationError

from tambench.errors import TaskSpecError
from tambench.schema.io import (
    dump_taskspec,
    migrate_split_v1,
    parse_taskspec,
    taskspec_json_schema,
)
from tambench.schema.splitspec import (
    SPLIT_MODELS,
    GroupSplit,
    HoldoutFileSplit,
    OneTableSplit,
    RandomSplit,
    SplitSpec,
    TimeSplit,
    make_split_spec,
    parse_split_spec,
    register_split_model,
)
from tambench.schema.taskspec import SCHEMA_VERSION, TaskSpec


def _task(split: Any, version: int = SCHEMA_VERSION) -> dict[str, Any]:
    return {"schema_version": version, "id": "kaggle/x", "platform": "kaggle", "split": split}


def test_group_column_with_the_random_strategy_is_refused_with_the_reason() -> None:
    with pytest.raises(TaskSpecError, match=r"group_column does not apply to the random "
                                            r"strategy: .*rows of one group would land in both"):
        parse_taskspec(_task({"strategy": "random", "group_column": "patient"}))


def test_a_missing_strategy_means_random_and_still_refuses_foreign_fields() -> None:
    assert isinstance(parse_split_spec({"test_size": 0.2}), RandomSplit)
    with pytest.raises(ValidationError, match="time_column does not apply to the random"):
        parse_split_spec({"time_column": "day"})


@pytest.mark.parametrize("split, message", [
    ({"strategy": "time", "time_column": "d", "time_cutoff": "2021-01-01", "last_k_periods": 3},
     "time_cutoff and last_k_periods conflict"),
    ({"strategy": "time", "time_column": "d", "last_k_periods": 3, "test_size": 0.2},
     "last_k_periods and test_size conflict"),
    ({"strategy": "official", "official_test_file": "t.csv", "official_answers_file": "a.csv",
      "test_size": 0.2}, "test_size does not apply to the official strategy: .*official test file"),
    ({"strategy": "holdout_value", "holdout_column": "fold", "holdout_value": "4",
      "test_size": 0.3}, "test_size does not apply to the holdout_value strategy"),
    ({"strategy": "holdout_file", "holdout_file": "t.csv", "files": {"pattern": "{id}.png"}},
     "files does not apply to the holdout_file strategy"),
    ({"strategy": "stratified", "group_column": "g"}, "group_column does not apply"),
    ({"strategy": "group"}, "group_column"),  # required
    ({"strategy": "time"}, "time_column"),  # required
    ({"strategy": "holdout_value", "holdout_column": "fold"}, "holdout_value"),  # required
    ({"strategy": "random", "holdout": "x.csv"}, "schema version 1 name: use strategy"),
    ({"strategy": "random", "drop_columns": ["a"]}, "use hidden_columns"),
    ({"strategy": "random", "target_columns": ["y"], "hidden_columns": {"y": "public"}},
     "are target columns"),
    ({"strategy": "random", "files": {"pattern": ""}}, "pattern"),
    ({"strategy": "shuffle"}, "unknown split strategy 'shuffle'; valid: group, holdout_file"),
    ({"strategy": "ranodm"}, "unknown split strategy 'ranodm'; did you mean 'random'\\?"),
    ("random", "a split spec is an object with a strategy, got str"),
])
def test_specs_that_do_not_apply_or_conflict_are_refused_at_load(split: Any,
                                                                 message: str) -> None:
    with pytest.raises(TaskSpecError, match=message):
        parse_taskspec(_task(split))


def test_each_strategy_records_only_the_settings_it_applies() -> None:
    time = TimeSplit(time_column="day", time_cutoff="2021-02-20", test_order="original")
    assert time.applied() == {"time_column": "day", "time_cutoff": "2021-02-20",
                              "test_order": "original"}
    auto = TimeSplit(time_column="day")
    assert auto.applied()["test_size"] == 0.1 and "time_cutoff" not in auto.applied()
    held = HoldoutFileSplit(holdout_file="shard_4.csv")
    assert held.applied() == {"holdout_file": "shard_4.csv", "seed": 0,
                              "test_order": "shuffled"}
    group = GroupSplit(group_column="patient", test_size=0.2, seed=3)
    assert group.applied() == {"test_size": 0.2, "seed": 3, "test_order": "shuffled",
                               "group_column": "patient"}


def test_the_base_model_cannot_be_built_directly() -> None:
    with pytest.raises(ValidationError, match="make_split_spec"):
        SplitSpec(strategy="random")
    assert isinstance(make_split_spec(strategy="group", group_column="g"), GroupSplit)


def test_the_json_schema_shows_the_mapper_one_model_per_strategy() -> None:
    schema = taskspec_json_schema()
    split = schema["properties"]["split"]["anyOf"][0]
    names = {ref["$ref"].rsplit("/", 1)[1] for ref in split["oneOf"]}
    assert names == {m.__name__ for m in SPLIT_MODELS.values()}
    group = schema["$defs"]["GroupSplit"]["properties"]
    assert "must not be shared" in group["group_column"]["description"]


def test_a_spec_written_and_read_back_is_the_same_model() -> None:
    spec = TaskSpec.model_validate(_task({"strategy": "stratified", "test_size": 0.25,
                                          "files": {"pattern": "img/{id}.png", "link": False}}))
    again = parse_taskspec(json.loads(spec.model_dump_json()))
    assert again == spec and again.split is not None and again.split.strategy == "stratified"


# --- version 1 ---------------------------------------------------------------------------------

V1_DEFAULTS: dict[str, Any] = {
    "strategy": "random", "test_size": 0.1, "seed": 0, "train_file": "", "id_column": "",
    "target_columns": [], "stratify_column": "", "group_column": "", "time_column": "",
    "time_cutoff": "", "last_k_periods": 0, "holdout": "", "holdout_column": "",
    "file_id_pattern": "", "file_base_strategy": "random", "official_answers_file": "",
    "official_test_file": "", "drop_columns": [], "test_order": "shuffled",
    "extra_public_files": [], "link_files": True,
}


@pytest.mark.parametrize("v1, v2", [
    ({"strategy": "random"}, {"strategy": "random"}),
    ({"strategy": "files", "file_base_strategy": "stratified", "file_id_pattern": "i/{id}.png",
      "link_files": False, "test_size": 0.2},
     {"strategy": "stratified", "test_size": 0.2, "files": {"pattern": "i/{id}.png",
                                                           "link": False}}),
    ({"strategy": "holdout", "holdout": "shard.csv"},
     {"strategy": "holdout_file", "holdout_file": "shard.csv"}),
    ({"strategy": "holdout", "holdout": "4", "holdout_column": "fold"},
     {"strategy": "holdout_value", "holdout_column": "fold", "holdout_value": "4"}),
    ({"strategy": "random", "drop_columns": ["leaky"]},
     {"strategy": "random", "hidden_columns": {"leaky": "public"}}),
])
def test_version_1_files_written_with_every_field_migrate(v1: dict[str, Any],
                                                          v2: dict[str, Any]) -> None:
    full = {**V1_DEFAULTS, **v1}
    assert migrate_split_v1(full) == v2
    spec = parse_taskspec(_task(full, version=1))
    assert spec.schema_version == SCHEMA_VERSION and spec.split == parse_split_spec(v2)


def test_a_version_1_file_whose_split_ignored_a_field_is_refused_on_load() -> None:
    # version 1 silently split random rows, sharing every patient between train and test
    with pytest.raises(TaskSpecError, match="group_column does not apply to the random"):
        parse_taskspec(_task({**V1_DEFAULTS, "group_column": "patient"}, version=1))
    with pytest.raises(TaskSpecError, match="time_cutoff and test_size conflict"):
        parse_taskspec(_task({**V1_DEFAULTS, "strategy": "time", "time_column": "d",
                              "time_cutoff": "2021-01-01", "test_size": 0.3}, version=1))


# --- strategies registered from outside the package -----------------------------------------


class EveryOtherSplit(OneTableSplit):
    """A strategy defined outside the package."""

    strategy: Literal["every_other"] = "every_other"
    offset: int = Field(default=0, ge=0, le=1)


@pytest.fixture
def every_other() -> Iterator[type[EveryOtherSplit]]:
    register_split_model(EveryOtherSplit)
    try:
        yield EveryOtherSplit
    finally:
        SPLIT_MODELS.unregister("every_other")


def test_a_model_registered_from_outside_loads_from_a_task_file_and_dumps_its_own_fields(
        every_other: type[EveryOtherSplit]) -> None:
    spec = parse_taskspec(_task({"strategy": "every_other", "offset": 1}))
    assert isinstance(spec.split, every_other) and spec.split.offset == 1
    assert json.loads(dump_taskspec(spec))["split"]["offset"] == 1
    assert parse_taskspec(json.loads(dump_taskspec(spec))) == spec
    with pytest.raises(TaskSpecError, match="offset"):
        parse_taskspec(_task({"strategy": "every_other", "offset": 2}))
    with pytest.raises(TaskSpecError, match="group_column does not apply to the every_other"):
        parse_taskspec(_task({"strategy": "every_other", "group_column": "g"}))
    split = taskspec_json_schema()["properties"]["split"]["anyOf"][0]
    assert {"$ref": "#/$defs/EveryOtherSplit"} in split["oneOf"]


def test_an_unregistered_model_is_unknown_again_and_its_instances_are_refused(
        every_other: type[EveryOtherSplit]) -> None:
    instance = every_other(offset=1)
    SPLIT_MODELS.unregister("every_other")
    with pytest.raises(TaskSpecError, match="unknown split strategy 'every_other'"):
        parse_taskspec(_task({"strategy": "every_other"}))
    with pytest.raises(ValidationError, match="unknown split strategy 'every_other'"):
        TaskSpec.model_validate({**_task(None), "split": instance})


def test_an_instance_of_another_model_than_its_strategys_is_refused() -> None:
    class Impostor(OneTableSplit):
        strategy: Literal["random"] = "random"

    assert parse_split_spec(RandomSplit(test_size=0.3)).applied()["test_size"] == 0.3
    with pytest.raises(ValidationError, match="Impostor is not the model of strategy "
                                              "'random' \\(RandomSplit\\)"):
        parse_split_spec(Impostor())


@pytest.mark.parametrize("body, message", [
    ({"__annotations__": {"strategy": str}, "strategy": "x"}, "must be declared"),
    ({"__annotations__": {"strategy": Literal["x", "y"]}, "strategy": "x"}, "must be declared"),
    ({"__annotations__": {"strategy": Literal["x"]}, "strategy": "y"}, "must be declared"),
    ({"__annotations__": {"strategy": Literal["random"]}, "strategy": "random"},
     "split strategy 'random' registered twice"),
])
def test_a_model_without_one_literal_strategy_or_with_a_taken_name_is_refused(
        body: dict[str, Any], message: str) -> None:
    model = type("Odd", (OneTableSplit,), body)
    with pytest.raises(ValueError, match=message):
        register_split_model(model)
    assert "x" not in SPLIT_MODELS and SPLIT_MODELS["random"] is RandomSplit
