"""The malformed-submission corpus (reliability.md section 2): one assertion per case's message."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from tambench.core.metrics import get_metric
from tambench.errors import InvalidSubmissionError, MissingSubmissionError, TaskDataError
from tambench.grading.grade import grade_submission
from tambench.validation.reading.limits import Limits
from tambench.validation.validate import load_answers, validate_submission
from tests.grading.corpus import CASES, TASKS, Case, build_case, build_perfect, write_task

CASE_IDS = [f"{c.num:02d}-{c.name}" for c in CASES]


def _load(spec, answers):  # type: ignore[no-untyped-def]
    return load_answers(answers, spec.grading, get_metric(spec.grading.metric))


def test_corpus_covers_every_row_of_the_reliability_table() -> None:
    covered = {c.num for c in CASES} | {38, 40}  # 38 and 40 are tested in test_grade.py
    assert set(range(1, 41)) <= covered
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_corpus_case_behaves_as_the_reliability_table_says(case: Case, tmp_path: Path) -> None:
    spec, answers_path, sub = build_case(case, tmp_path)
    ans = _load(spec, answers_path)
    if case.want == "R":
        with pytest.raises(InvalidSubmissionError) as info:
            validate_submission(sub, ans)
        problems = info.value.problems
        for pattern in case.match:
            assert any(re.search(pattern, p) for p in problems), (pattern, problems)
        report = grade_submission(sub, spec, ans)
        assert not report.valid_submission and report.score is None and report.rank is None
        assert report.errors == problems
        return
    report = grade_submission(sub, spec, ans)
    assert report.valid_submission, report.errors
    assert report.score is not None and math.isfinite(report.score)
    if case.score is not None:
        assert report.score == pytest.approx(case.score, abs=1e-12)
    if case.want == "N":
        _, _, perfect = build_perfect(case.task, tmp_path / "perfect")
        best = grade_submission(perfect, spec, ans)
        assert report.score == best.score


@pytest.mark.parametrize("task", sorted(TASKS))
def test_perfect_submission_scores_the_metric_best_value(task: str, tmp_path: Path) -> None:
    spec, answers, sub = build_perfect(task, tmp_path)
    report = grade_submission(sub, spec, answers)
    metric = get_metric(spec.grading.metric)  # type: ignore[union-attr]
    assert report.valid_submission, report.errors
    assert report.score == pytest.approx(metric.best_value, abs=1e-9)


def test_ids_na_none_null_are_matched_as_ids_not_missing(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    text = sub.read_text().splitlines()
    # Move the NA/None/null rows to the end: matched by id, not position.
    body = text[1:]
    moved = [r for r in body if r.split(",")[0] in {"NA", "None", "null"}]
    sub.write_text("\n".join([text[0], *[r for r in body if r not in moved], *moved]) + "\n")
    ans = _load(spec, answers)
    out = validate_submission(sub, ans)
    assert out.aligned_by == "join"
    np.testing.assert_array_equal(out.y_pred, ans.y_true)


def test_submission_in_answer_order_takes_the_fast_path(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    out = validate_submission(sub, _load(spec, answers))
    assert out.aligned_by == "order"


def test_every_problem_is_collected_in_the_fixed_stage_order(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    rows = sub.read_text().splitlines()
    # extra column (columns), one row dropped (rows + ids), a NaN (types), an empty cell (missing)
    new = ["id,y,note"] + [f"{r},x" for r in rows[1:-1]]
    new[2] = new[2].split(",")[0] + ",nan,x"
    new[3] = new[3].split(",")[0] + ",,x"
    sub.write_text("\n".join(new) + "\n")
    with pytest.raises(InvalidSubmissionError) as info:
        validate_submission(sub, _load(spec, answers))
    p = info.value.problems
    stages = ["unexpected column", "9 rows; expected 10", "missing ids", "NaN or infinite",
              "empty cell"]
    positions = [next(i for i, m in enumerate(p) if s in m) for s in stages]
    assert positions == sorted(positions), p


def test_extra_columns_are_ignored_under_a_declared_policy(tmp_path: Path) -> None:
    task = TASKS["value"]
    spec = task.spec()
    grading = spec.grading.model_copy(update={"value_policy": {"extra_columns": "ignore"}})  # type: ignore[union-attr]
    spec = spec.model_copy(update={"grading": grading})
    _, answers = write_task(task, tmp_path / "private")
    sub = tmp_path / "submission.csv"
    sub.write_text("note,id,y\n" + "".join(
        f"x,{r[0]},{r[1]}\n" for r in task.perfect_rows))
    report = grade_submission(sub, spec, answers)
    assert report.valid_submission and report.score == 0.0


def test_probability_rows_are_renormalised_when_the_metric_declares_it(tmp_path: Path) -> None:
    task = TASKS["multi"]
    spec = task.spec()
    grading = spec.grading.model_copy(update={"metric_params": {"renormalize": True}})  # type: ignore[union-attr]
    spec = spec.model_copy(update={"grading": grading})
    _, answers = write_task(task, tmp_path / "private")
    sub = tmp_path / "submission.csv"
    sub.write_text("id,a,b,c\n" + "".join(
        f"{r[0]},{float(r[1]) / 2 + 0.1},{float(r[2]) / 2 + 0.1},{float(r[3]) / 2 + 0.1}\n"
        for r in task.perfect_rows))
    report = grade_submission(sub, spec, answers)
    assert report.valid_submission, report.errors  # rows sum to 0.8, declared renormalised


def test_open_label_sets_are_not_checked_nor_listed(tmp_path: Path) -> None:
    task = TASKS["label"]
    spec = task.spec()
    grading = spec.grading.model_copy(update={"value_policy": {"label_set": "any"}})  # type: ignore[union-attr]
    spec = spec.model_copy(update={"grading": grading})
    _, answers = write_task(task, tmp_path / "private")
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n" + "".join(f"{r[0]},horse\n" for r in task.perfect_rows))
    report = grade_submission(sub, spec, answers)
    assert report.valid_submission and report.score == 0.0


def test_missing_submission_is_reported_as_not_existing(tmp_path: Path) -> None:
    spec, answers, _ = build_perfect("value", tmp_path)
    with pytest.raises(MissingSubmissionError):
        validate_submission(tmp_path / "nope.csv", _load(spec, answers))
    report = grade_submission(tmp_path / "nope.csv", spec, answers)
    assert not report.submission_exists and not report.valid_submission
    assert report.errors == [f"submission file not found: {tmp_path / 'nope.csv'}"]


def test_size_cap_is_configurable(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    with pytest.raises(InvalidSubmissionError, match=r"expected at most 10 bytes \(size cap"):
        validate_submission(sub, _load(spec, answers), limits=Limits(max_bytes=10))


def test_column_cap_is_configurable(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    with pytest.raises(InvalidSubmissionError, match=r"header has 2 columns; expected at most 1"):
        validate_submission(sub, _load(spec, answers), limits=Limits(max_columns=1))


# --- the validator is no oracle ---------------------------------------------------------------


def _permute_answers(task_name: str, folder: Path, seed: int) -> tuple[Path, object]:
    task = TASKS[task_name]
    rng = np.random.default_rng(seed)
    lines = task.answers.splitlines()
    header, rows = lines[0], [line.split(",") for line in lines[1:]]
    targets = [r[1:] for r in rows]
    order = rng.permutation(len(rows))
    new = [",".join([r[0], *targets[int(j)]]) for r, j in zip(rows, order, strict=True)]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "answers.csv"
    path.write_text("\n".join([header, *new]) + "\n")
    return path, task.spec()


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.want == "R" and c.task in {"value", "prob", "multi", "label"}
     and not c.links_private],
    ids=lambda c: c.name,
)
def test_messages_do_not_depend_on_private_labels(case: Case, tmp_path: Path) -> None:
    spec, answers, sub = build_case(case, tmp_path / "a")
    original = grade_submission(sub, spec, answers).errors
    for seed in (1, 2):
        permuted, _ = _permute_answers(case.task, tmp_path / f"p{seed}", seed)
        again = grade_submission(sub, spec, permuted).errors
        assert again == original


# --- id mutants are never scored --------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_id_mutants_are_never_scored(seed: int, tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    rng = np.random.default_rng(seed)
    lines = sub.read_text().splitlines()
    header, rows = lines[0], lines[1:]
    kind = ["wrong", "duplicated", "dropped"][seed % 3]
    i, j = (int(x) for x in rng.choice(len(rows), size=2, replace=False))
    if kind == "wrong":
        rows[i] = "mutant" + rows[i]
    elif kind == "duplicated":
        rows[i] = rows[j].split(",")[0] + "," + rows[i].split(",")[1]
    else:
        del rows[i]
    rng.shuffle(rows)
    sub.write_text("\n".join([header, *rows]) + "\n")
    report = grade_submission(sub, spec, answers)
    assert not report.valid_submission and report.score is None
    assert any("ids" in e for e in report.errors)


def test_broken_answers_are_our_error_not_an_invalid_submission(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    answers.write_text("id,y\na,1\na,2\n")
    sub.write_text("id,y\nb,1\na,2\n")
    with pytest.raises(TaskDataError, match="duplicated ids"):
        validate_submission(sub, _load(spec, answers))
    answers.write_text("id,y\na,1\nb,x\n")
    with pytest.raises(TaskDataError, match="answers column 'y' .* is not all numbers"):
        _load(spec, answers)


# --- exact parsing and the hash-matching path -------------------------------------------------


def _adhoc(tmp_path: Path, ids: list[str], values: list[str]) -> tuple[object, Path]:
    from tambench.grading.grade import adhoc_spec

    answers = tmp_path / "answers.csv"
    answers.write_text("id,y\n" + "".join(f"{i},{v}\n" for i, v in zip(ids, values, strict=True)))
    return adhoc_spec(metric="rmse", id_columns=["id"], target_columns=["y"]), answers


def test_floats_are_parsed_to_the_exact_nearest_double(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**63, 4000, dtype=np.uint64) & np.uint64(0x7FEFFFFFFFFFFFFF)
    doubles = bits.view(np.float64)  # every exponent, subnormals included
    texts = [repr(float(x)) for x in doubles] + [f"{float(x):.17e}" for x in doubles[:1000]]
    texts += ["0.1", "2.2250738585072011e-308", "9007199254740993", "1e23", "-0.0", " 5e-324 "]
    ids = [f"r{i}" for i in range(len(texts))]
    spec, answers = _adhoc(tmp_path, ids, texts)
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n" + "".join(f"{i},{t}\n" for i, t in zip(ids, texts, strict=True)))
    ans = _load(spec, answers)
    out = validate_submission(sub, ans)
    want = np.array([float(t) for t in texts])
    assert out.y_pred.view(np.uint64).tolist() == want.view(np.uint64).tolist()
    assert ans.y_true.view(np.uint64).tolist() == want.view(np.uint64).tolist()


def test_shuffled_ids_of_mixed_lengths_are_matched_exactly_by_hash(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 150_000  # a body of several parser blocks, so ids arrive in several chunks
    ids = [str(i) if i % 3 else f"id-{i:x}-é" for i in range(n)]
    values = [repr(float(v)) for v in rng.normal(size=n)]
    spec, answers = _adhoc(tmp_path, ids, values)
    order = rng.permutation(n)
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n" + "".join(f"{ids[j]},{values[j]}\n" for j in order))
    ans = _load(spec, answers)
    out = validate_submission(sub, ans)
    assert out.aligned_by == "join"
    np.testing.assert_array_equal(out.y_pred, ans.y_true)
    assert ans.key_index() is not None


def test_hash_collisions_only_slow_matching_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tambench.validation import idindex

    monkeypatch.setattr(idindex, "hash_rows", lambda ids, lengths: np.zeros(len(lengths),
                                                                             dtype=np.uint64))
    ids = [f"k{i}" for i in range(200)]
    spec, answers = _adhoc(tmp_path, ids, [str(i) for i in range(200)])
    ans = _load(spec, answers)
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n" + "".join(f"{i},{i[1:]}\n" for i in reversed(ids)))
    out = validate_submission(sub, ans)
    np.testing.assert_array_equal(out.y_pred, ans.y_true)
    sub.write_text("id,y\n" + "".join(f"{i},1\n" for i in ["K0", *reversed(ids[1:])]))
    with pytest.raises(InvalidSubmissionError) as info:
        validate_submission(sub, ans)
    assert info.value.problems[0] == "unknown ids: 1 submitted id(s) are not answer ids (1 of 1): ['K0']"


def test_duplicated_answer_ids_are_our_error_even_when_the_submission_repeats_them(
    tmp_path: Path,
) -> None:
    spec, answers = _adhoc(tmp_path, ["a", "a", "b"], ["1", "2", "3"])
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\nb,3\na,1\na,2\n")
    with pytest.raises(TaskDataError, match="duplicated ids"):
        validate_submission(sub, _load(spec, answers))


@pytest.mark.parametrize("shuffled", [False, True])
def test_probability_columns_become_one_packed_column_major_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shuffled: bool
) -> None:
    from tambench.grading.grade import adhoc_spec
    from tambench.validation.reading import csvbody

    # Small parser blocks, so every column arrives in many chunks before it is packed.
    monkeypatch.setattr(csvbody, "MIN_BLOCK_BYTES", 4096)
    rng = np.random.default_rng(3)
    n, k = 3000, 6
    names = [f"p{j}" for j in range(k)]
    ids = [f"row{i:05d}" for i in range(n)]
    truth = np.eye(k)[rng.integers(0, k, n)]
    probs = rng.dirichlet(np.ones(k), n)
    answers, sub = tmp_path / "answers.csv", tmp_path / "submission.csv"
    head = "id," + ",".join(names) + "\n"
    answers.write_text(head + "".join(
        f"{i}," + ",".join(repr(float(v)) for v in row) + "\n" for i, row in zip(ids, truth, strict=True)))
    order = rng.permutation(n) if shuffled else np.arange(n)
    sub.write_text(head + "".join(
        f"{ids[r]}," + ",".join(repr(float(v)) for v in probs[r]) + "\n" for r in order))
    spec = adhoc_spec(metric="multiclass_log_loss", id_columns=["id"], target_columns=names)
    ans = _load(spec, answers)
    got = validate_submission(sub, ans).y_pred
    assert np.array_equal(got, probs) and np.array_equal(ans.y_true, truth)
    assert ans.y_true.flags.f_contiguous and not ans.y_true.flags.writeable  # a view, no copy
    if not shuffled:
        assert got.flags.f_contiguous and not got.flags.writeable
    report = grade_submission(sub, spec, answers)
    assert report.score == pytest.approx(
        get_metric("multiclass_log_loss")(truth, probs), rel=1e-12)


def test_float_matrix_view_refuses_columns_that_are_not_packed() -> None:
    import pyarrow as pa

    from tambench.validation.reading.csvbody import float_matrix_view, pack_float_columns
    from tambench.validation.validate import fill_floats

    table = pa.table({"a": pa.chunked_array([[1.0], [2.0]]), "b": [3.0, 4.0], "s": ["x", "y"]})
    assert float_matrix_view(table, [0, 1]) is None  # two chunks: not one buffer
    copied = fill_floats(table, [0, 1])
    assert copied.tolist() == [[1.0, 3.0], [2.0, 4.0]] and copied.flags.writeable
    packed = pack_float_columns(table, [0, 1])
    assert packed.column(2).to_pylist() == ["x", "y"]  # other columns untouched
    assert float_matrix_view(packed, [1, 0]) is None  # order differs from the buffer's
    assert float_matrix_view(packed, [0, 1]).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with_null = pa.table({"a": [1.0, None], "b": [3.0, 4.0]})
    assert pack_float_columns(with_null, [0, 1]) is with_null


def test_a_hard_link_to_answers_outside_a_private_folder_is_refused_too(tmp_path: Path) -> None:
    import os

    spec, answers = _adhoc(tmp_path, ["a", "b"], ["1", "2"])
    os.link(answers, tmp_path / "submission.csv")
    report = grade_submission(tmp_path / "submission.csv", spec, answers)
    assert not report.valid_submission and report.score is None
    assert report.errors == [
        "submission 'submission.csv' is the answers file under another name (a hard link: "
        "same device and inode); expected the agent's own file"
    ]
    (tmp_path / "copy.csv").write_bytes(answers.read_bytes())  # a copy beside them is fine
    assert grade_submission(tmp_path / "copy.csv", spec, answers).score == 0.0


# --- bounds: message length, row length, unexpected columns -----------------------------------


@pytest.mark.parametrize("case", [c for c in CASES if c.want == "R"], ids=lambda c: c.name)
def test_no_message_of_the_corpus_is_longer_than_the_bound(case: Case, tmp_path: Path) -> None:
    from tambench.validation.reading.text import MAX_MESSAGE_CHARS

    spec, answers, sub = build_case(case, tmp_path)
    errors = grade_submission(sub, spec, answers).errors
    assert errors and all(len(e) <= MAX_MESSAGE_CHARS for e in errors)


def test_a_row_longer_than_the_row_limit_is_named_with_that_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tambench.validation.reading import csvbody

    monkeypatch.setattr(csvbody, "MAX_ROW_BYTES", 2 * 1024**2)
    spec, answers, sub = build_perfect("value", tmp_path)
    lines = sub.read_text().splitlines()
    lines[4] = lines[4].split(",")[0] + ',"' + "z" * 3_000_000 + '"'
    sub.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidSubmissionError) as info:
        validate_submission(sub, _load(spec, answers))
    assert info.value.problems == [
        "line 5: one row of 2.9 MiB; expected rows of at most 2.0 MiB (the parser's limit for "
        "one row)"
    ]


def test_pythons_own_csv_field_limit_is_never_reported(tmp_path: Path) -> None:
    spec, answers = _adhoc(tmp_path, [f"r{i}" for i in range(10)], ["1"] * 10)
    rows = [f"r{i},1" for i in range(10)]
    rows[3] = 'r3,"' + "9" * 200_000 + '"'  # a 200 KB field: fine for the parser
    rows[6] = "r6,1,extra"
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n" + "\n".join(rows) + "\n")
    with pytest.raises(InvalidSubmissionError) as info:
        validate_submission(sub, _load(spec, answers))
    assert info.value.problems == ["line 8: 3 fields, expected 2"]


def test_columns_that_are_not_needed_are_tokenised_but_never_built(tmp_path: Path) -> None:
    from tambench.validation.reading.csvbody import read_csv_columns
    from tambench.validation.reading.csvio import sniff_csv
    from tambench.validation.reading.files import open_regular_file

    n_extra, n_rows = 3000, 200
    path = tmp_path / "wide.csv"
    path.write_text(
        "id,y," + ",".join(f"c{i}" for i in range(n_extra)) + "\n"
        + "".join(f"r{r},1.5," + ",".join("123456789" for _ in range(n_extra)) + "\n"
                  for r in range(n_rows))
    )
    raw = open_regular_file(path, max_bytes=1 << 30)
    layout = sniff_csv(raw, ["id", "y"])
    narrow = read_csv_columns(raw, layout, columns=[0], float_columns=[1])
    assert narrow.num_columns == n_extra + 2 and narrow.num_rows == n_rows
    assert narrow.column(0).to_pylist()[:2] == ["r0", "r1"]
    assert narrow.column(1).to_pylist()[0] == 1.5
    assert narrow.nbytes < 20_000  # the ids and one float column; 3000 string columns not built
    wide = read_csv_columns(raw, layout)
    assert wide.nbytes > n_extra * n_rows * 9


def test_a_submission_in_a_folder_that_cannot_be_searched_is_refused_not_a_crash(
    tmp_path: Path,
) -> None:
    import os

    spec, answers, sub = build_perfect("value", tmp_path)
    if os.geteuid() == 0:  # root searches any folder: make the name unreadable instead
        target = sub.parent / ("x" * 300)
        message = r"cannot be read: File name too long"
    else:
        sub.parent.chmod(0)
        target, message = sub, r"cannot be read: Permission denied"
    try:
        report = grade_submission(target, spec, answers)
    finally:
        sub.parent.chmod(0o755)
    assert not report.valid_submission and report.submission_exists
    assert re.search(message, report.errors[0]), report.errors
