"""Registry-wide properties searched by hypothesis: sizes, seeds and row orders it chooses.

The fixed-seed checks in test_metrics_properties.py run the same properties on a few inputs;
here hypothesis draws the number of rows, the data seed and the permutation, and shrinks any
failure to a small case.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tambench.core.metrics import get_metric
from tambench.core.metrics.rle import RleError, decode_rle, parse_rle
from tests.core.metric_examples import EXTRA_CASES, FACTORIES, permute, rle_of

CASES = [(mid, FACTORIES[mid]) for mid in sorted(FACTORIES)] + EXTRA_CASES
CASE_IDS = [f"{mid}-{i}" for i, (mid, _) in enumerate(CASES)]
PROFILE = settings(max_examples=12, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(("metric_id", "factory"), CASES, ids=CASE_IDS)
@PROFILE
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(12, 48), order_seed=st.integers(0, 2**32 - 1))
def test_every_metric_keeps_range_best_value_and_order_invariance(metric_id, factory, seed, n,  # type: ignore[no-untyped-def]
                                                                  order_seed) -> None:
    metric = get_metric(metric_id)
    ex = factory(np.random.default_rng(seed), n)
    best = metric(ex.y_true, ex.y_perfect, **ex.aux, **ex.params)
    got = metric(ex.y_true, ex.y_other, **ex.aux, **ex.params)
    assert best == pytest.approx(metric.best_value, abs=1e-9)
    assert math.isfinite(got)
    assert metric.lower_bound - 1e-12 <= got <= metric.upper_bound + 1e-12
    assert (got <= best + 1e-12) if metric.higher_is_better else (got >= best - 1e-12)
    shuffled = permute(ex, np.random.default_rng(order_seed))
    again = metric(shuffled.y_true, shuffled.y_other, **shuffled.aux, **shuffled.params)
    assert again == pytest.approx(got, rel=1e-9, abs=1e-12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(list("0123456789 \t+-_.e\u0661\uff11\u00a0x\n")),
               max_size=40))
def test_run_length_parser_either_refuses_with_its_error_or_returns_sorted_runs(text: str) -> None:
    try:
        starts, ends = parse_rle(text)
    except RleError:
        return
    assert set(text) <= set("0123456789 \t")
    assert (ends > starts).all() and (starts >= 0).all() and (starts[1:] >= ends[:-1]).all()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.booleans(), min_size=1, max_size=200))
def test_run_length_round_trip_of_any_mask(bits: list[bool]) -> None:
    mask = np.array(bits)
    assert decode_rle(parse_rle(rle_of(mask), n_pixels=mask.size), mask.size).tolist() == bits
