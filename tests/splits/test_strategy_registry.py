"""Split strategies are one registry that matches the spec's models, and one place to extend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl
import pytest
from pydantic import Field, ValidationError

from tambench.core.registry import extension_points
from tambench.errors import SplitError, TaskSpecError
from tambench.schema.io import load_taskspec, parse_taskspec
from tambench.schema.splitspec import (
    SPLIT_MODELS,
    OneTableSplit,
    RandomSplit,
    SplitSpec,
    parse_split_spec,
)
from tambench.splits.keys import KeyPass
from tambench.splits.layout import SplitPlan
from tambench.splits.prepare import prepare_task
from tambench.splits.strategies import (
    STRATEGIES,
    Assignment,
    RowStrategy,
    TableStrategy,
    register_strategy,
    unregister_strategy,
)
from tests.splits.helpers import make_spec, tabular


def test_every_spec_model_has_one_strategy_and_every_strategy_a_model() -> None:
    assert set(STRATEGIES.names()) == set(SPLIT_MODELS)
    for name, model in SPLIT_MODELS.items():
        strategy = STRATEGIES[name]
        one_table = model.model_fields.get("files") is not None
        assert isinstance(strategy, RowStrategy if one_table else TableStrategy), name


def test_the_registry_is_an_extension_point_and_names_unknown_strategies() -> None:
    assert extension_points()["split strategy"] is STRATEGIES
    with pytest.raises(SplitError, match="unknown split strategy 'grup'; did you mean 'group'"):
        STRATEGIES["grup"]


class EveryKthSplit(OneTableSplit):
    """Every k-th row of the table is a test row."""

    strategy: Literal["every_kth"] = "every_kth"
    k: int = Field(default=10, ge=2)

    def applied(self) -> dict[str, Any]:
        return {"k": self.k, **super().applied()}


def _assign_every_kth(keys: KeyPass, plan: SplitPlan) -> Assignment:
    split = plan.split
    assert isinstance(split, EveryKthSplit)
    return Assignment(np.arange(keys.rows) % split.k == 0)


EVERY_KTH = RowStrategy(key_columns=lambda plan: [], assign=_assign_every_kth)


@pytest.fixture
def every_kth() -> Iterator[None]:
    register_strategy("every_kth", EveryKthSplit, EVERY_KTH)
    try:
        yield
    finally:
        unregister_strategy("every_kth")


def test_a_strategy_registered_from_outside_loads_from_a_task_file_and_prepares(
        tmp_path: Path, every_kth: None) -> None:
    tabular(tmp_path / "raw", n=500, n_classes=2)
    spec = make_spec("kth", {"strategy": "random"}).model_dump(mode="json")
    spec["split"] = {"strategy": "every_kth", "k": 5, "id_column": "id"}
    (tmp_path / "task.json").write_text(json.dumps(spec))
    task = load_taskspec(tmp_path / "task.json")
    res = prepare_task(task, tmp_path / "raw", tmp_path / "data")
    test = pl.read_csv(res.task_dir / "public/test.csv", infer_schema=False)
    assert sorted(test["id"]) == [f"{i:06d}" for i in range(0, 500, 5)]
    assert res.report.strategy == "every_kth" and res.report.settings["k"] == 5
    assert res.audit.passed
    spec["split"]["k"] = 1
    with pytest.raises(TaskSpecError, match="k\n  Input should be greater than or equal to 2"):
        parse_taskspec(spec)


def test_unregistering_a_strategy_removes_both_halves(every_kth: None) -> None:
    unregister_strategy("every_kth")
    assert "every_kth" not in STRATEGIES and "every_kth" not in SPLIT_MODELS
    with pytest.raises(ValidationError, match="unknown split strategy 'every_kth'"):
        parse_split_spec({"strategy": "every_kth"})


class TwoFilesSplit(SplitSpec):
    strategy: Literal["two_files"] = "two_files"


@pytest.mark.parametrize("name, model, strategy, message", [
    ("every_kth", EveryKthSplit, TableStrategy(lambda split: ("a", "a")),
     "assigns the rows of one table: register it with a RowStrategy"),
    ("two_files", TwoFilesSplit, EVERY_KTH,
     "does not assign the rows of one table: register it with a TableStrategy"),
    ("every_k", EveryKthSplit, EVERY_KTH, "declares strategy 'every_kth', not 'every_k'"),
    ("every_kth", EveryKthSplit, _assign_every_kth, "register it with a RowStrategy"),
    ("random", RandomSplit, EVERY_KTH, "split strategy 'random' registered twice"),
])
def test_a_strategy_whose_halves_do_not_match_is_refused_and_nothing_is_registered(
        name: str, model: type[SplitSpec], strategy: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        register_strategy(name, model, strategy)
    assert set(STRATEGIES.names()) == set(SPLIT_MODELS.names())
    assert SPLIT_MODELS["random"] is RandomSplit and "every_kth" not in SPLIT_MODELS
