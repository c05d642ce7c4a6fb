"""The protocol registry: one entry shape per sibling benchmark, every protocol module listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.metrics import METRICS
from tambench.core.registry import extension_points
from tambench.errors import ProtocolError
from tambench.protocols import mlalgo
from tambench.protocols.base import PROTOCOLS, SiblingProtocol, get_protocol

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tambench" / "protocols"


def test_every_protocol_module_is_registered_and_nothing_else() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir()
                                                         if (p / "__init__.py").is_file()}
    assert set(PROTOCOLS) == modules - {"__init__", "base", "__pycache__"}


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_protocol_entry_has_one_shape_a_callable_entry_point_and_existing_docs(name: str) -> None:
    p = get_protocol(name)
    assert isinstance(p, SiblingProtocol) and p.name == name
    assert callable(p.evaluate) and p.summary and p.inputs and p.title
    assert (ROOT / p.doc).is_file()
    assert set(p.metrics) <= set(METRICS)


def test_protocols_are_an_extension_point() -> None:
    assert extension_points()["protocol"] is PROTOCOLS


def test_unknown_protocol_names_the_closest_one() -> None:
    with pytest.raises(ProtocolError, match="did you mean 'mlalgo'"):
        get_protocol("mlalog")


def test_mlalgo_metric_functions_are_the_registered_metrics() -> None:
    assert get_protocol("mlalgo").metrics == (
        "accuracy", "mae", "mcrmse", "multiclass_log_loss", "rmse", "rmsle", "smape")
    assert set(mlalgo.METRIC_IDS) == set(mlalgo.METRIC_FUNCTIONS)
    y, p = [1.0, 2.0, 4.0], [1.5, 2.0, 3.0]
    assert mlalgo.mae(y, p) == METRICS["mae"](y, p)
    assert mlalgo.smape(y, p) == METRICS["smape"](y, p)


def test_protocol_list_prints_every_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["protocol", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["kagglebench", "mlagentbench", "mlalgo"]
    assert rows[2]["entry_point"] == "tambench.protocols.mlalgo:aggregate_results"
