"""Validation without the answers (``tambench validate``, ``tambench.validate``) against grading.

Every case of the reliability corpus (both lists, :func:`corpus_cases`) is set up as a
prepared task (answers in private/, a sample submission in public/) and checked both ways:
the verdict is grading's validity and problems, without the score. Then the answers are
replaced by answers full of marker strings (ids, labels, values): every verdict, every line the
command prints and every API answer stays byte for byte the same, and holds no marker, while
grading itself does name them (so the probe would see a leak). The differences docs/grading.md
states are checked to be exactly those.
"""

from __future__ import annotations

import contextlib
import io
import json
import uuid
from pathlib import Path

import numpy as np
import pytest

import tambench
from tambench.cli.main import main
from tambench.errors import InputError
from tambench.grading.grade import grade_submission
from tambench.grading.report import GradeReport
from tambench.grading.verdict import Verdict, check_submission, public_task
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import GradingSpec, PublicColumn, TaskSpec
from tests.grading.public_tasks import CorpusCase, build_prepared, corpus_cases

CASES = corpus_cases()
IDS = [c.id for c in CASES]


def _verdict(case: CorpusCase, folder: Path, sub: Path) -> Verdict:
    task = public_task(case.spec, task_dir=folder)
    return check_submission(sub, task, task.reference())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_verdict_is_gradings_validity_and_problems_without_the_score(
    case: CorpusCase, tmp_path: Path
) -> None:
    folder, answers, sub = build_prepared(case, tmp_path)
    verdict = _verdict(case, folder, sub)
    report = grade_submission(sub, case.spec, answers)
    assert (verdict.valid_submission, verdict.submission_exists, verdict.errors) == (
        report.valid_submission, report.submission_exists, report.errors)
    # grading's warnings about the task (not its leaderboard) are the verdict's too
    assert verdict.warnings == [w for w in report.warnings if "declares no label set" in w]
    document = json.loads(verdict.to_json())
    assert not {"score", "rank", "medal", "rank_pct", "gold_medal"} & set(document)


def test_the_corpus_meets_valid_and_invalid_verdicts_of_every_kind(tmp_path: Path) -> None:
    """The comparison above is not vacuous: the corpus holds valid submissions, refusals at
    every stage (file, format, header, rows, ids, values, a metric's own cell parse) and
    missing files."""
    seen: dict[str, int] = {}
    for n, case in enumerate(CASES[::7]):
        folder, _, sub = build_prepared(case, tmp_path / str(n))
        v = _verdict(case, folder, sub)
        key = "valid" if v.valid_submission else ("missing" if not v.submission_exists
                                                  else "invalid")
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) == {"valid", "invalid", "missing"}, seen


# --- markers in the private answers ---------------------------------------------------------------

MARK = f"MRK{uuid.uuid4().hex[:10]}"
#: A number no corpus submission holds, written into numeric answers.
MARK_NUMBER = "987654.3217"


def _marker_answers(spec: TaskSpec, original: str) -> str:
    """The answers rewritten with markers: every truth a marker, three extra rows (ids absent
    from the public files), extra keys and lines in JSON and line files."""
    g = spec.grading
    assert g is not None
    fmt = g.submission_format.value
    if fmt == "json":
        doc = json.loads(original)
        out = {k: [MARK_NUMBER] * len(v) if isinstance(v, list) else f"{MARK}-value"
               for k, v in doc.items()}
        out.update({f"{MARK}-key{i}": [MARK_NUMBER] for i in range(3)})
        return json.dumps(out)
    if fmt == "txt":
        n = len([line for line in original.splitlines() if line.strip()])
        return "".join(f"{MARK}-line{i},{MARK}-x\n" for i in range(n + 3))
    lines = original.splitlines()
    header = lines[0].split(",")
    ids = [header.index(c) for c in g.id_columns]
    numeric = tambench.get_metric(g.metric).kind in ("value", "probability")
    rows = []
    for i, line in enumerate([*lines[1:], *(f"{MARK}-id{k}" for k in range(3))]):
        cells = line.split(",")
        row = [cells[j] if j in ids else (MARK_NUMBER if numeric else f"{MARK}-label{i % 3}")
               for j in range(len(header))]
        rows.append(",".join(row))
    return "\n".join([lines[0], *rows]) + "\n"


def _plant(case: CorpusCase, root: Path) -> tuple[Path, Path, Path]:
    """The case, its answers then replaced by marker answers (public files unchanged)."""
    folder, answers, sub = build_prepared(case, root)
    answers.write_text(_marker_answers(case.spec, answers.read_text(encoding="utf-8")),
                       encoding="utf-8")
    return folder, answers, sub


def _api_answer(case: CorpusCase, root: Path, sub: Path) -> str:
    """What ``tambench.validate`` says about ``sub`` (the verdict, or the error it raises)."""
    try:
        v = tambench.validate(sub, case.spec, data_dir=root / "data")
    except InputError as exc:  # a missing file or a folder, as tambench.grade says
        return f"InputError: {exc}".replace(str(root), "<root>")
    return v.model_copy(update={"submission_path": ""}).to_json()


def _cli_answer(case: CorpusCase, root: Path, sub: Path) -> str:
    """Everything ``tambench validate`` prints, with and without --json, and its exit codes."""
    catalogue = root / "catalogue"
    task_file = catalogue / case.spec.platform / case.spec.slug / "task.json"
    if not task_file.exists():
        task_file.parent.mkdir(parents=True)
        save_taskspec(case.spec, task_file)
    said = []
    for extra in ([], ["--json"]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["validate", str(sub), "--task", case.spec.id, "--catalogue",
                       str(catalogue), "--data-dir", str(root / "data"), *extra])
        printed, warned = out.getvalue(), err.getvalue()
        # a verdict, or the error of a path that is no file (as tambench grade says)
        assert printed.startswith((f"{case.spec.id}: submission", "{")) or (
            "submission file not found" in warned or "is a folder" in warned), warned
        said.append(f"{rc}\n{printed}\n{warned}".replace(str(root), "<root>"))
    return "\n".join(said)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_no_marker_of_the_private_answers_reaches_the_api_or_the_command(
    case: CorpusCase, tmp_path: Path
) -> None:
    plain_root, marked_root = tmp_path / "plain", tmp_path / "marked"
    _, _, plain_sub = build_prepared(case, plain_root)
    _, _, marked_sub = _plant(case, marked_root)
    for answer in (_api_answer, _cli_answer):
        marked = answer(case, marked_root, marked_sub)
        assert MARK not in marked and MARK_NUMBER not in marked, marked
        assert marked == answer(case, plain_root, plain_sub)  # the answers change nothing


def test_grading_does_name_the_markers_so_the_probe_would_see_a_leak(tmp_path: Path) -> None:
    """Grading against the marker answers quotes marker ids (it reads the answers): the probe
    above is not blind."""
    leaked = 0
    for case in [c for c in CASES if c.id.startswith("family-value-")][:5]:
        _, answers, sub = _plant(case, tmp_path / case.id)
        try:
            report = grade_submission(sub, case.spec, answers)
        except Exception as exc:  # noqa: BLE001 - marker answers may be unusable for scoring
            text = str(exc)
        else:
            text = report.to_json()
        leaked += MARK in text
    assert leaked >= 1


# --- the documented differences, exactly ---------------------------------------------------------


def _small_task(root: Path, grading: GradingSpec, answers: str, sample: str
                ) -> tuple[TaskSpec, Path, Path]:
    """A prepared task ``local/small``: (spec, its folder, its answers)."""
    spec = TaskSpec(id="local/small", platform="local", grading=grading)
    folder = root / "data" / "local" / "small"
    (folder / "private").mkdir(parents=True)
    (folder / "public").mkdir()
    (folder / "private" / "answers.csv").write_text(answers)
    (folder / "public" / "sample_submission.csv").write_text(sample)
    return spec, folder, folder / "private" / "answers.csv"


def _extra_ids_task(root: Path, *, ids_from: bool) -> tuple[TaskSpec, Path, Path]:
    """A task listing customers a-d publicly, scoring only a and c (h-and-m's convention)."""
    grading = GradingSpec(
        metric="mae", id_columns=["id"], target_columns=["y"], extra_ids="ignore",
        ids_from=PublicColumn(file="sample_submission.csv", column="id") if ids_from else None)
    return _small_task(root, grading, "id,y\na,1\nc,3\n", "id,y\na,0\nb,0\nc,0\nd,0\n")


def _both(spec: TaskSpec, folder: Path, answers: Path, text: str
          ) -> tuple[Verdict, GradeReport]:
    sub = folder.parent / "sub.csv"
    sub.write_text(text)
    task = public_task(spec, task_dir=folder)
    return check_submission(sub, task, task.reference()), grade_submission(sub, spec, answers)


def test_extra_ids_without_a_public_list_validate_asks_for_every_public_test_id(
    tmp_path: Path,
) -> None:
    spec, folder, answers = _extra_ids_task(tmp_path, ids_from=False)
    full = "id,y\na,1\nb,2\nc,3\nd,4\n"
    scored_only = "id,y\na,1\nc,3\n"
    lacking_a_scored_id = "id,y\na,1\nb,2\nd,4\n"
    verdict, report = _both(spec, folder, answers, full)
    assert verdict.valid_submission and report.valid_submission
    # The documented difference: ids that are not scored are left out.
    verdict, report = _both(spec, folder, answers, scored_only)
    assert report.valid_submission and not verdict.valid_submission
    assert verdict.errors == report_missing_message()
    # A scored id left out: both refuse, with the same words (naming no id).
    verdict, report = _both(spec, folder, answers, lacking_a_scored_id)
    assert verdict.errors == report.errors == report_missing_message()


def report_missing_message() -> list[str]:
    return ["missing ids: the submission has no row for some of the ids that are scored; "
            "expected a row for every test id (which ids are scored is not disclosed)"]


def test_extra_ids_with_a_public_list_agree_on_every_submission(tmp_path: Path) -> None:
    spec, folder, answers = _extra_ids_task(tmp_path, ids_from=True)
    for text in ("id,y\na,1\nb,2\nc,3\nd,4\n", "id,y\na,1\nc,3\n", "id,y\na,1\nb,2\nd,4\nz,1\n",
                 "id,y\na,1\na,2\nc,3\nd,4\n"):
        verdict, report = _both(spec, folder, answers, text)
        assert (verdict.valid_submission, verdict.errors) == (
            report.valid_submission, report.errors)


def test_a_refusal_only_scoring_makes_is_not_made_without_the_answers(tmp_path: Path) -> None:
    """rmsle refuses predictions <= -1 while scoring; validate runs no metric on value
    columns (docs/grading.md: what only the answers tell)."""
    grading = GradingSpec(metric="rmsle", id_columns=["id"], target_columns=["y"])
    spec, folder, answers = _small_task(tmp_path, grading, "id,y\n1,1\n2,2\n",
                                        "id,y\n1,0\n2,0\n")
    verdict, report = _both(spec, folder, answers, "id,y\n1,-2\n2,2\n")
    assert verdict.valid_submission and not report.valid_submission


def test_mask_cells_are_parsed_without_refusing_good_ones(tmp_path: Path) -> None:
    """The metric's own parse of run-length cells, against empty masks, refuses what grading
    refuses and accepts every well-formed mask, for every registered mask metric that runs
    without answers columns."""
    from tambench.core.metrics import list_metrics
    from tambench.grading.verdict import cell_refusals
    from tambench.validation.answers import Answers

    checked = 0
    for metric in [m for m in list_metrics() if m.kind == "mask"]:
        grading = GradingSpec(metric=metric.id, id_columns=["id"], target_columns=["y"])
        ref = Answers(path=tmp_path, grading=grading, metric=metric, size=0,
                      params=metric.call_params(grading.metric_params))
        good = np.array(["1 3", "", "5 2 10 1"], dtype=object)
        bad = np.array(["1 3", "0 3", "5 2"], dtype=object)
        assert cell_refusals(ref, good) == []
        refusals = cell_refusals(ref, bad)
        checked += bool(refusals)
        assert all("row 2" in r for r in refusals), refusals
    assert checked >= 4  # dice, global_dice, iou_thresholds_map, rle_f_beta, ...


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
def test_a_table_gets_the_verdict_of_the_file_it_would_be(kind: str, tmp_path: Path) -> None:
    case = next(c for c in CASES if c.id == "table-13-rows_shuffled")
    _, _, sub = build_prepared(case, tmp_path)
    rows = [line.split(",") for line in sub.read_text().splitlines()[1:]]
    rows[2][1] = "not a number"
    ids, ys = [r[0] for r in rows], [r[1] for r in rows]
    if kind == "pandas":
        import pandas as pd

        table: object = pd.DataFrame({"id": ids, "y": ys})
    elif kind == "polars":
        import polars as pl

        table = pl.DataFrame({"id": ids, "y": ys})
    else:
        import pyarrow as pa

        table = pa.table({"id": ids, "y": ys})
    from_table = tambench.validate(table, case.spec, data_dir=tmp_path / "data")
    bad = tmp_path / "bad.csv"
    bad.write_text("id,y\n" + "".join(f"{i},{y}\n" for i, y in zip(ids, ys, strict=True)))
    from_file = tambench.validate(bad, case.spec, data_dir=tmp_path / "data")
    assert from_table.errors == from_file.errors and len(from_file.errors) == 1
    assert "not a number" in from_file.errors[0]


def test_the_command_exits_0_when_valid_1_when_not_with_one_json_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = next(c for c in CASES if c.id == "table-15-missing_row")
    folder, _, sub = build_prepared(case, tmp_path)
    catalogue = tmp_path / "catalogue"
    (catalogue / "test" / "value").mkdir(parents=True)
    save_taskspec(case.spec, catalogue / "test" / "value" / "task.json")
    base = ["--task", "test/value", "--catalogue", str(catalogue), "--data-dir",
            str(tmp_path / "data")]
    assert main(["validate", str(sub), *base, "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["valid_submission"] is False and len(document["errors"]) == 2
    assert main(["validate", str(folder / "public" / "sample_submission.csv"), *base]) == 0
    assert capsys.readouterr().out == "test/value: submission valid\n"
    assert main(["validate", str(sub), *base]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "test/value: submission invalid (2 problem(s)):"
    assert out[1] == "  - 9 rows; expected 10 (one per answer id)"


def test_a_label_task_without_a_label_set_warns_as_grading_does(tmp_path: Path) -> None:
    grading = GradingSpec(metric="accuracy", id_columns=["id"], target_columns=["y"])
    spec, folder, answers = _small_task(tmp_path, grading, "id,y\n1,cat\n2,dog\n",
                                        "id,y\n1,x\n2,x\n")
    verdict, report = _both(spec, folder, answers, "id,y\n1,cat\n2,True\n")
    assert verdict.valid_submission and report.valid_submission
    assert verdict.warnings == [w for w in report.warnings if "declares no label set" in w]
    assert len(verdict.warnings) == 1 and "exact strings" in verdict.warnings[0]
    assert verdict.result_text().startswith("Submission is valid.\nwarning: task local/small")


def test_an_agents_public_mount_is_enough_without_the_private_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`validate --public-dir` (and the API, and the server's task) needs the task's spec and
    its public files only: the folder of prepared tasks with the private answers may be absent,
    as it is in an agent's container."""
    spec = TaskSpec(id="kaggle/tiny-public", platform="kaggle", status="complete",
                    grading=GradingSpec(metric="rmse", id_columns=["id"], target_columns=["y"],
                                        submission_header=["id", "y"]))
    catalogue = tmp_path / "catalogue"
    save_taskspec(spec, catalogue / "kaggle" / "tiny-public" / "task.json")
    public = tmp_path / "mount"
    public.mkdir()
    (public / "sample_submission.csv").write_text("id,y\n1,0\n2,0\n")
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n1,0.5\n2,1.5\n")
    monkeypatch.chdir(tmp_path)  # no ./tambench-data here, and no --data-dir
    monkeypatch.delenv("TAMBENCH_DATA_DIR", raising=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["validate", str(sub), "--task", spec.id, "--catalogue", str(catalogue),
                   "--public-dir", str(public), "--json"])
    assert rc == 0, err.getvalue()
    assert json.loads(out.getvalue())["valid_submission"] is True
    verdict = tambench.validate(sub, task=spec.id, catalogue=catalogue, public_dir=public)
    assert verdict.valid_submission
