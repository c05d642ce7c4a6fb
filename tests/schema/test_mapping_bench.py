"""Both mappers through bench/bench_mapping.py's harness: per-field scores, neighbours counted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_mapping.py"


@pytest.fixture(scope="module")
def bench(shared_dir: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_mapping", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_mapping"] = module
    spec.loader.exec_module(module)
    module.IN_SAMPLE_DIR = shared_dir / "data" / "competition-descriptions"
    module.DEV_DIR = shared_dir / "data" / "competition-descriptions-dev"
    return module


def test_the_held_back_texts_are_twenty_labelled_dev_texts_apart_from_the_dev_set(
        bench: ModuleType) -> None:
    dev, back = bench.load_dev()
    assert len(back) == 20 and len(dev) + len(back) == 67
    assert not {e.slug for e in dev} & {e.slug for e in back}


def test_the_score_of_a_field_says_right_wrong_missing_or_neighbour(bench: ModuleType) -> None:
    from tambench.schema.mapping import map_pages

    e = bench.Expected("x", Path("x.md"), "", {}, "mae", ["id", "y"], ["id"], ["y"],
                       "regression")
    page = ("## Evaluation\n\nSubmissions are evaluated on the mean absolute error.\n\n```\n"
            "id,y\n1,0\n```\n")
    s = bench.score(map_pages({"all": page}, task_id="kaggle/x"), e)
    assert s["metric"]["status"] == "neighbour"  # mae given where the label says no id
    assert s["header"]["status"] == "right" and s["task_type"]["status"] == "right"
    e.metric_id, e.header = "mae", ["id", "y", "z"]
    s = bench.score(map_pages({"all": page}, task_id="kaggle/x"), e)
    assert (s["metric"]["status"], s["header"]["status"]) == ("right", "wrong")


def _counts(summary: dict[str, Any]) -> dict[str, Any]:
    return {f: (v["right"], v["n"], v["neighbour"]) for f, v in summary["fields"].items()}


def test_the_rules_make_no_neighbour_substitution_on_the_dev_texts(bench: ModuleType) -> None:
    dev, _ = bench.load_dev()
    s = bench.run_rules("dev", dev)
    assert s["fields"]["metric"]["neighbour"] == 0
    assert s["fields"]["metric"]["pct"] >= 90 and s["fields"]["header"]["pct"] >= 95


def test_an_eager_model_naming_the_closest_id_is_refused_by_the_cross_check(
        bench: ModuleType) -> None:
    rows = [e for e in bench.load_in_sample() if e.closest_id]
    dev, _ = bench.load_dev()
    rows += [e for e in dev if e.closest_id][:8]
    assert len(rows) >= 20
    s = bench.run_llm("mixed", rows, mode="naive", llm=None, base_url=None, replies=None)
    metric = s["fields"]["metric"]
    assert metric["neighbour"] == metric["wrong"] == metric["missing_no_reason"] == 0
    # the rest is right, or left empty with the reason where the text does not settle the
    # variant (the model's id is refused there too)
    assert metric["right"] + metric["missing"] == metric["n"]
    assert metric["right"] >= metric["n"] - 3
