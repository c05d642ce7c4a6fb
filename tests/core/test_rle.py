"""Run-length tokens are agent input: an adversarial corpus, outcomes written down by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tambench.core.metrics import get_metric, masks
from tambench.core.metrics.rle import RleError, decode_rle, parse_rle, parse_rle_rows
from tambench.errors import InvalidSubmissionError, TaskDataError

# (cell, refused?, words the message must contain)
CORPUS = [
    ("1 3", False, ""),
    ("  1 3\t10 2  ", False, ""),
    ("", False, ""),
    ("+1 3", True, "'+1'"),
    ("1 -3", True, "'-3'"),
    ("1_0 3", True, "'1_0'"),
    ("1.0 3", True, "'1.0'"),
    ("1e3 3", True, "'1e3'"),
    ("\u0661 3", True, "token 1"),  # Arabic-Indic digit one
    ("\uff11 3", True, "token 1"),  # fullwidth digit one
    ("1\u00a03", True, "token 1"),  # no-break space is not a separator
    ("1 3\n5 1", True, "token 2"),  # a line break is not a separator
    ("99999999999999999999 1", True, "20 digits"),  # beyond int64: no OverflowError
    ("9223372036854775807 10", True, "19 digits"),  # would wrap when adding the length
    ("1234567890123456 1", True, "16 digits"),
    ("1 3 5", True, "pairs"),
    ("0 3", True, "starts at pixel 0"),
    ("1 0", True, "length 0"),
    ("1 5 3 2", True, "run 2 ('3 2') overlaps"),
    ("10 2 1 2", True, "run 2 ('1 2') overlaps or precedes"),
    ("1 2 3 2", False, ""),  # touching runs are one block, not an overlap
]


@pytest.mark.parametrize(("cell", "refused", "words"), CORPUS)
def test_run_length_tokens_are_ascii_digits_bounded_sorted_and_disjoint(cell, refused, words) -> None:  # type: ignore[no-untyped-def]
    if refused:
        with pytest.raises(RleError) as info:
            parse_rle(cell)
        assert words in str(info.value)
    else:
        starts, ends = parse_rle(cell)
        assert (ends > starts).all() and (starts[1:] >= ends[:-1]).all()


def test_a_run_beyond_the_image_is_refused_with_its_pixel() -> None:
    with pytest.raises(RleError, match=r"run 2 \('9 4'\) ends at pixel 12, beyond the image's 10"):
        parse_rle("1 2 9 4", n_pixels=10)
    assert parse_rle("9 2", n_pixels=10)[1].tolist() == [10]


def test_decoding_marks_exactly_the_runs() -> None:
    assert decode_rle(parse_rle("2 2 5 1"), 6).astype(int).tolist() == [0, 1, 1, 0, 1, 0]


@pytest.mark.parametrize("metric_id", ["dice", "global_dice", "iou_thresholds_map", "rle_f_beta"])
@pytest.mark.parametrize("bad", ["9223372036854775807 10", "+1 3", "1 5 3 2", "99999999999999999999 1"])
def test_a_crafted_mask_is_an_invalid_submission_never_a_score(metric_id, bad) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidSubmissionError, match="row 2"):
        get_metric(metric_id)(["1 3", "1 3"], ["1 3", bad])


@pytest.mark.parametrize("metric_id", ["dice", "global_dice", "iou_thresholds_map", "rle_f_beta"])
def test_mask_metrics_refuse_runs_outside_the_image_when_the_answers_give_its_size(metric_id) -> None:  # type: ignore[no-untyped-def]
    metric = get_metric(metric_id)
    assert metric(["1 3"], ["1 12"], height=[3], width=[4]) <= 1.0
    with pytest.raises(InvalidSubmissionError, match="beyond the image's 12 pixels"):
        metric(["1 3"], ["1 13"], height=[3], width=[4])


def test_a_malformed_answers_mask_is_a_task_data_error() -> None:
    with pytest.raises(TaskDataError, match="answers row 1"):
        get_metric("dice")(["1 x"], ["1 3"])


def test_every_mask_score_stays_within_its_range_for_random_valid_masks() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        cells = []
        for _ in range(2):
            starts = np.sort(rng.choice(10**12, size=4, replace=False))
            lengths = np.minimum(np.diff(np.append(starts, starts[-1] + 10**6)), 10**6)
            cells.append(" ".join(f"{s + 1} {max(int(n), 1)}" for s, n in zip(starts, lengths, strict=True)))
        for metric_id in ("dice", "global_dice", "iou_thresholds_map", "rle_f_beta"):
            assert 0.0 <= get_metric(metric_id)([cells[0]], [cells[1]]) <= 1.0


# --- all rows at once ---------------------------------------------------------------------------


@pytest.mark.parametrize(("cell", "refused", "words"), CORPUS)
def test_the_one_pass_parse_refuses_exactly_what_the_row_parser_refuses(cell, refused, words) -> None:  # type: ignore[no-untyped-def]
    rows = ["1 2", cell, "7 1"]
    many = parse_rle_rows(rows, [None] * 3)
    if refused:
        assert many is None
        return
    assert many is not None
    one = [parse_rle(r) for r in rows]
    assert many[0].tolist() == [s for o in one for s in o[0].tolist()]
    assert many[1].tolist() == [e for o in one for e in o[1].tolist()]
    assert many[2].tolist() == [i for i, o in enumerate(one) for _ in o[0].tolist()]


def test_the_one_pass_parse_checks_each_row_against_its_own_image_size() -> None:
    assert parse_rle_rows(["9 2", "9 2"], [10, 10]) is not None
    assert parse_rle_rows(["9 2", "9 2"], [10, 9]) is None  # row 2's image has 9 pixels
    assert parse_rle_rows(["9 2", "9 2"], [None, 9]) is None
    assert parse_rle_rows([], []) is not None
    # Runs of different rows never count as overlapping or out of order.
    assert parse_rle_rows(["5 5", "1 2"], [None, None]) is not None


def _random_cell(rng: np.random.Generator, n_pixels: int) -> str:
    mask = rng.random(n_pixels) < rng.choice([0.0, 0.1, 0.5, 0.9, 1.0])
    flat = np.concatenate([[0], mask.astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(flat)) + 1
    pairs = [f"{s} {e - s}" for s, e in zip(edges[::2], edges[1::2], strict=True)]
    sep = str(rng.choice([" ", "  ", "\t"]))
    return sep.join(pairs)


@pytest.mark.parametrize("seed", range(5))
def test_mask_metrics_give_the_same_numbers_in_one_pass_as_row_by_row(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one-pass path against the row-by-row one, on random masks of random images."""
    rng = np.random.default_rng(seed)
    n, n_pixels = 60, 400
    truth = [_random_cell(rng, n_pixels) for _ in range(n)]
    pred = [_random_cell(rng, n_pixels) if rng.random() < 0.7 else t for t in truth]
    assert masks._string_overlaps(truth, pred, [None] * n) is not None  # the one pass runs
    metric_ids = ("dice", "global_dice", "iou_thresholds_map")
    fast = np.vstack(masks.overlaps(truth, pred))
    fast_scores = [get_metric(m)(truth, pred) for m in metric_ids]
    monkeypatch.setattr(masks, "_string_overlaps", lambda *a: None)
    assert np.array_equal(fast, np.vstack(masks.overlaps(truth, pred)))
    assert fast_scores == [get_metric(m)(truth, pred) for m in metric_ids]
    assert fast[0].sum() > 0 and (fast[0] < np.minimum(fast[1], fast[2])).any()


def test_the_first_faulty_row_is_named_whatever_path_is_tried_first() -> None:
    truth = ["1 4"] * 5
    pred = ["1 4", "1 4", "3 2 1 1", "1 4", "+2 1"]
    with pytest.raises(InvalidSubmissionError, match=r"2 row\(s\): row 3: run 2 \('1 1'\) "
                                                     r"overlaps.*; row 5: token 1 '\+2'"):
        masks.overlaps(truth, pred)
    with pytest.raises(TaskDataError, match="answers row 2"):
        masks.overlaps(["1 4", "0 1"], ["1 4", "1 4"])
