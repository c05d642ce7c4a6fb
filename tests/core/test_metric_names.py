"""Metric ids follow the naming rule stated in tambench.core.metrics."""

from __future__ import annotations

import re

import pytest

from tambench.core.metrics import list_metrics

IDS = [m.id for m in list_metrics()]


@pytest.mark.parametrize("metric", list_metrics(), ids=IDS)
def test_metric_id_is_snake_case_and_its_suffix_never_contradicts_its_direction(metric) -> None:  # type: ignore[no-untyped-def]
    assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", metric.id)
    if metric.id.endswith(("_error", "_loss")):
        assert not metric.higher_is_better
    if metric.id.endswith("_score"):
        assert metric.higher_is_better
