"""Split strategies are one registry that matches the spec's models, and one place to extend."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tambench.core.registry import extension_points
from tambench.errors import SplitError
from tambench.schema.splitspec import SPLIT_MODELS
from tambench.splits.prepare import prepare_task
from tambench.splits.strategies import STRATEGIES, RowStrategy, TableStrategy
from tests.splits.helpers import make_spec, tabular

DOC = Path(__file__).resolve().parents[2] / "docs" / "splits.md"


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


@pytest.fixture
def documented_strategy() -> Iterator[dict[str, Any]]:
    code = re.search(r"## Adding a strategy.*?```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None, "docs/splits.md lost its worked example"
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), str(DOC), "exec", dont_inherit=True), namespace)  # noqa: S102
    try:
        yield namespace
    finally:
        STRATEGIES.unregister("every_kth")


def test_the_documented_example_adds_a_strategy_that_prepare_runs_unchanged(
        tmp_path: Path, documented_strategy: dict[str, Any]) -> None:
    tabular(tmp_path / "raw", n=500, n_classes=2)
    split = documented_strategy["EveryKthSplit"](k=5, id_column="id")
    spec = make_spec("kth", {"strategy": "random"}).model_copy(update={"split": split})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    test = pl.read_csv(res.task_dir / "public/test.csv", infer_schema=False)
    assert sorted(test["id"]) == [f"{i:06d}" for i in range(0, 500, 5)]
    assert res.report.strategy == "every_kth" and res.report.settings["k"] == 5
    assert res.audit.passed
