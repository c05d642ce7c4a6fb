"""Done when: a run group and the submissions.jsonl made from it the way MLE-bench's own scripts
make them, over data prepared as MLE-bench prepares it, grade unchanged to the values
``mlebench grade`` gives.

The case is generated (:mod:`tests.grading.mlebench_case`). The expected values below are
``mlebench grade``'s own: they were obtained by running MLE-bench (openai/mle-bench at 783b15a,
in a separate environment) on the same generated files: its ``prepare.py`` of both
competitions on the generated downloads (which wrote the same rows as
:func:`write_prepared`), its ``experiments/make_submission.py --metadata`` on the run group,
and ``mlebench grade --submission submissions.jsonl --data-dir DATA`` with the catalogue's
leaderboards in place of its Git LFS pointers (the same scores as the files those pointers
name: the catalogue records their SHA-256).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.grading.batch import grade_runs
from tambench.grading.batch.writers import mle_bench_report_data
from tambench.tasks.catalogue import bundled_catalogue_dir
from tests.grading.mlebench_case import (
    RUN_GROUP,
    SPACESHIP,
    VOLCANO,
    make_submission_jsonl,
    write_prepared,
    write_run_group,
)

SPACE_BOARD = (0.82066, 0.81388, 0.80967, 0.79565)
VOLCANO_BOARD = (3971366.0, 4808057.0, 4999330.0, 6300677.0)
#: (competition, score, board, any, gold, silver, bronze, above median, exists, valid, lower)
MLEBENCH_ROWS = [
    (SPACESHIP, 1.0, SPACE_BOARD, True, True, False, False, True, True, True, False),
    (SPACESHIP, 0.775, SPACE_BOARD, False, False, False, False, False, True, True, False),
    (SPACESHIP, None, SPACE_BOARD, False, False, False, False, False, False, False, False),
    (SPACESHIP, 1.0, SPACE_BOARD, True, True, False, False, True, True, True, False),
    (VOLCANO, 2929817.0, VOLCANO_BOARD, True, True, False, False, True, True, True, True),
    (VOLCANO, 12196713.0, VOLCANO_BOARD, False, False, False, False, False, True, True, True),
    (VOLCANO, None, VOLCANO_BOARD, False, False, False, False, False, True, False, True),
]
MLEBENCH_TOTALS = {"total_runs": 7, "total_runs_with_submissions": 6,
                   "total_valid_submissions": 5, "total_medals": 3, "total_gold_medals": 3,
                   "total_silver_medals": 0, "total_bronze_medals": 0, "total_above_median": 3}
FIELDS = ("competition_id", "score", "board", "any_medal", "gold_medal", "silver_medal",
          "bronze_medal", "above_median", "submission_exists", "valid_submission",
          "is_lower_better")


def _as_rows(report: dict[str, object]) -> list[tuple[object, ...]]:
    out = []
    for cr in report["competition_reports"]:  # type: ignore[attr-defined]
        board = tuple(cr[k] for k in ("gold_threshold", "silver_threshold",
                                      "bronze_threshold", "median_threshold"))
        out.append(tuple(board if f == "board" else cr[f] for f in FIELDS))
    return out


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    data = tmp_path / "data"
    answers = write_prepared(data)
    group = write_run_group(tmp_path / "runs", answers)
    monkeypatch.chdir(tmp_path)  # make_submission.py was run here, with a relative --metadata
    jsonl = tmp_path / "submissions.jsonl"
    make_submission_jsonl(Path("runs") / RUN_GROUP / "metadata.json", jsonl)
    return data, group, jsonl


def test_the_jsonl_and_the_run_group_grade_to_mle_benchs_values(
    study: tuple[Path, Path, Path]
) -> None:
    data, group, jsonl = study
    lines = [json.loads(x) for x in jsonl.read_text().splitlines()]
    assert lines[2]["submission_path"] is None  # the run without a submission
    assert not Path(lines[0]["submission_path"]).is_absolute()
    for source in (jsonl, group):
        report = grade_runs(source, catalogue=bundled_catalogue_dir(), data_dir=data,
                            extra_columns="ignore")
        ours = mle_bench_report_data(report)
        if source == jsonl:  # the lines' order; a run group's runs come in name order
            assert _as_rows(ours) == MLEBENCH_ROWS
        assert sorted(_as_rows(ours), key=repr) == sorted(MLEBENCH_ROWS, key=repr), source
        assert {k: ours[k] for k in MLEBENCH_TOTALS} == MLEBENCH_TOTALS
        assert not report.warnings or all("leaderboard" in w for w in report.warnings)
        assert report.n_failed == 0


def test_the_command_writes_mle_benchs_report_from_the_files_as_they_are(
    study: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _, jsonl = study
    rc = main(["grade-runs", str(jsonl.name), "--catalogue", str(bundled_catalogue_dir()),
               "--data-dir", str(data), "--output-dir", "out", "--executor", "serial",
               "--extra-columns", "ignore"])
    err = capsys.readouterr().err
    assert rc == 0, err
    (written,) = (tmp_path / "out").glob("*_grading_report.json")
    report = json.loads(written.read_text())
    assert _as_rows(report) == MLEBENCH_ROWS
    assert {k: report[k] for k in MLEBENCH_TOTALS} == MLEBENCH_TOTALS
    # by default the extra column is refused (Kaggle's rule): the one run MLE-bench grades
    rc = main(["grade-runs", str(jsonl.name), "--catalogue", str(bundled_catalogue_dir()),
               "--data-dir", str(data), "--executor", "serial", "--json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    refused = [r for r in rows if r["status"] == "invalid_submission"]
    assert rc == 0 and len(refused) == 2  # the volcano's short file, and the extra column
    assert any("unexpected column(s) (1 of 1): ['note']" in r["errors"][0] for r in refused)
