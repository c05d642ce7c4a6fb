"""Row-to-split assignment: pure functions from key columns to a boolean "is test" mask.

Every function is deterministic given its inputs: random choices come only from
:func:`tambench.splits.hashing.stable_hash` of id (or group) strings salted with the seed, so
the same rows go to test whatever the row order of the raw file or the library versions.
Ordering rows by that hash is a seeded permutation; the test set is its first ``k`` rows.
"""

from __future__ import annotations

import math

import numpy as np

from tambench.errors import SplitError


def count_test(n: int, test_size: float) -> int:
    """Number of test rows for ``n`` rows: round(n * test_size), at least 1, at most n - 1.

    >>> count_test(1000, 0.1)
    100
    >>> count_test(5, 0.01)
    1
    """
    if n < 2:
        raise SplitError(f"a split needs at least 2 rows (or groups), got {n}")
    return min(max(int(math.floor(n * test_size + 0.5)), 1), n - 1)


def assign_random(hashes: np.ndarray, test_size: float) -> np.ndarray:
    """The ``round(n * test_size)`` rows with the smallest hashes are test rows.

    >>> assign_random(np.array([5, 1, 9, 3], dtype=np.uint64), 0.5).tolist()
    [False, True, False, True]
    """
    n = len(hashes)
    k = count_test(n, test_size)
    # The (k+1)-th smallest hash is a threshold found in linear time; ids are unique, so
    # equal hashes (a 64-bit collision) are the only way the count can differ from k.
    kth = np.partition(hashes, k)[k]
    return np.asarray(hashes < kth)


def _class_quotas(sizes: np.ndarray, test_size: float) -> np.ndarray:
    """Test rows per class by largest remainder, summing to round(n * test_size).

    Leftover rows go first to classes that keep at least one training row, then to the
    largest fractional parts, then to the lower class index (deterministic).
    """
    total = count_test(int(sizes.sum()), test_size)
    exact = sizes * test_size
    base = np.floor(exact).astype(np.int64)
    left = total - int(base.sum())
    if left > 0:
        frac = exact - base
        empties_train = (base + 1) >= sizes
        idx = np.arange(len(sizes))
        order = np.lexsort((idx, -frac, empties_train))
        eligible = order[base[order] < sizes[order]]
        base[eligible[:left]] += 1
    return base


def assign_stratified(hashes: np.ndarray, strata: np.ndarray, test_size: float) -> np.ndarray:
    """Per stratum, the rows with the smallest hashes are test rows (largest-remainder quotas).

    ``strata`` holds one integer code per row (0..k-1).

    >>> h = np.arange(8, dtype=np.uint64)
    >>> assign_stratified(h, np.array([0, 0, 0, 0, 1, 1, 1, 1]), 0.5).tolist()
    [True, True, False, False, True, True, False, False]
    """
    n = len(hashes)
    if len(strata) != n:
        raise SplitError(f"strata length {len(strata)} differs from {n} rows")
    sizes = np.bincount(strata)
    quotas = _class_quotas(sizes, test_size)
    order = np.lexsort((hashes, strata))
    sorted_strata = strata[order]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rank_in_class = np.arange(n) - starts[sorted_strata]
    mask = np.zeros(n, dtype=bool)
    mask[order] = rank_in_class < quotas[sorted_strata]
    return mask


def _prefix_nearest(counts_in_order: np.ndarray, target: int) -> int:
    """How many leading units (groups, periods) to take so their rows come nearest ``target``.

    At least one unit is taken and at least one is left.
    """
    cum = np.cumsum(counts_in_order)
    m = len(cum)
    j = int(np.searchsorted(cum, target, side="left"))  # first prefix reaching the target
    j = min(j, m - 1)
    best = j + 1
    if j > 0 and abs(int(cum[j - 1]) - target) <= abs(int(cum[j]) - target):
        best = j
    return min(max(best, 1), m - 1)


def assign_groups(
    group_codes: np.ndarray, group_hashes: np.ndarray, test_size: float
) -> np.ndarray:
    """Whole groups go to test, in group-hash order, until their rows come nearest the target.

    ``group_codes`` maps each row to a group 0..g-1; ``group_hashes[g]`` is group g's hash.

    >>> assign_groups(np.array([0, 0, 1, 1, 2, 2]), np.array([3, 1, 2], dtype=np.uint64),
    ...               1 / 3).tolist()
    [False, False, True, True, False, False]
    """
    g = len(group_hashes)
    if g < 2:
        raise SplitError(f"a group split needs at least 2 distinct groups, got {g}")
    sizes = np.bincount(group_codes, minlength=g)
    target = count_test(int(sizes.sum()), test_size)
    order = np.argsort(group_hashes, kind="stable")
    take = _prefix_nearest(sizes[order], target)
    is_test_group = np.zeros(g, dtype=bool)
    is_test_group[order[:take]] = True
    return is_test_group[group_codes]


def assign_time(
    period_codes: np.ndarray,
    n_periods: int,
    *,
    cutoff_code: int | None = None,
    last_k: int = 0,
    test_size: float = 0.1,
) -> np.ndarray:
    """Later periods go to test. ``period_codes`` are 0..p-1 in time order.

    With ``cutoff_code``: periods at or after it; with ``last_k``: the last k periods; else
    the latest periods whose rows come nearest ``test_size`` of all rows.

    >>> assign_time(np.array([0, 1, 2, 2, 1]), 3, last_k=1).tolist()
    [False, False, True, True, False]
    """
    if n_periods < 2:
        raise SplitError(f"a time split needs at least 2 distinct periods, got {n_periods}")
    if cutoff_code is not None:
        first_test = cutoff_code
    elif last_k > 0:
        if last_k >= n_periods:
            raise SplitError(
                f"last_k_periods={last_k} leaves no training period: the time column has only "
                f"{n_periods} distinct periods"
            )
        first_test = n_periods - last_k
    else:
        sizes = np.bincount(period_codes, minlength=n_periods)
        target = count_test(int(sizes.sum()), test_size)
        take = _prefix_nearest(sizes[::-1], target)
        first_test = n_periods - take
    if first_test <= 0:
        raise SplitError("the time cutoff is at or before the earliest period: no training rows")
    if first_test >= n_periods:
        raise SplitError("the time cutoff is after the latest period: no test rows")
    return period_codes >= first_test
