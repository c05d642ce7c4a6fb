"""CLI of the foundation: schema export, leaderboard normalize/show, rank, metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_schema_export_writes_the_json_schema(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, _ = run(capsys, "schema", "export")
    assert rc == 0
    schema = json.loads(out)
    assert schema["title"] == "TaskSpec" and "grading" in schema["properties"]
    target = tmp_path / "schema.json"
    rc, _, _ = run(capsys, "schema", "export", "--out", str(target))
    assert rc == 0 and json.loads(target.read_text()) == schema


def test_schema_convert_and_validate(capsys: pytest.CaptureFixture[str], tam_lite_dir: Path,
                                     tmp_path: Path) -> None:
    out_file = tmp_path / "task.json"
    rc, _, _ = run(capsys, "schema", "convert", str(tam_lite_dir / "pst" / "schema.json"),
                   "--id", "biendata/pst", "--out", str(out_file))
    assert rc == 0
    rc, out, _ = run(capsys, "schema", "validate", str(out_file))
    assert rc == 0 and "biendata/pst" in out
    bad = tmp_path / "future.json"
    bad.write_text(json.dumps({"schema_version": 99, "id": "kaggle/x", "platform": "kaggle"}))
    rc, out, _ = run(capsys, "schema", "validate", str(bad), str(out_file))
    # Every file is checked; one that cannot be read is named and the exit code is 3.
    assert rc == 3 and f"error: {bad}: " in out and "schema_version 99" in out
    assert "ok  biendata/pst" in out


def test_leaderboard_normalize_and_show(capsys: pytest.CaptureFixture[str], tam_lite_dir: Path,
                                        tmp_path: Path) -> None:
    src = tam_lite_dir / "new-york-city-taxi-fare-prediction" / "leaderboard.csv"
    out_file = tmp_path / "lb.csv"
    rc, _, _ = run(capsys, "leaderboard", "normalize", str(src), str(out_file))
    assert rc == 0
    assert out_file.read_text().startswith("rank,team,score,entries,submitted_at")
    rc, out, _ = run(capsys, "leaderboard", "show", str(src), "--metric", "rmse", "--json")
    data = json.loads(out)
    assert rc == 0 and data["rows"] == 1485 and data["order_inversions"] == 0
    assert {"row": 1485, "rule": "outlier"}.items() <= data["junk"][0].items()
    rc, out, _ = run(capsys, "leaderboard", "show", str(src))
    assert "junk[outlier] 1 row(s)" in out


def test_rank_prints_rank_percentage_medal_and_thresholds(capsys: pytest.CaptureFixture[str],
                                                          tam_lite_dir: Path) -> None:
    lb = tam_lite_dir / "mlsp-2013-birds" / "leaderboard.csv"
    rc, out, _ = run(capsys, "rank", "--leaderboard", str(lb), "--score", "0.96",
                     "--metric", "roc_auc" if _has("roc_auc") else "accuracy", "--json")
    data = json.loads(out)
    assert rc == 0
    assert (data["rank"], data["n_teams"], data["gold_medal"], data["any_medal"]) == (
        1, 81, True, True)
    assert data["rank_pct"] == pytest.approx(100 / 81)
    assert set(data) >= {"gold_threshold", "silver_threshold", "bronze_threshold",
                         "median_threshold", "above_median", "is_lower_better"}
    rc, out, _ = run(capsys, "rank", "--leaderboard", str(lb), "--score", "0.5",
                     "--lower-is-better", "--json")
    assert json.loads(out)["rank"] == 3  # only 0.42235 and 0.47507 are lower


def test_rank_without_direction_or_with_nan_is_an_error(capsys: pytest.CaptureFixture[str],
                                                        tam_lite_dir: Path) -> None:
    lb = str(tam_lite_dir / "mlsp-2013-birds" / "leaderboard.csv")
    rc, _, err = run(capsys, "rank", "--leaderboard", lb, "--score", "0.5")
    assert rc == 1 and "direction is unknown" in err
    rc, _, err = run(capsys, "rank", "--leaderboard", lb, "--score", "nan", "--higher-is-better")
    assert rc == 1 and "never ranked" in err
    rc, _, _ = run(capsys, "rank", "--leaderboard", lb, "--score", "0.5", "--metric", "nope")
    assert rc == 1


def test_metrics_lists_direction_and_range(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "metrics", "--json")
    rows = {m["id"]: m for m in json.loads(out)}
    assert rc == 0
    assert rows["rmse"]["direction"] == "lower" and rows["rmse"]["upper_bound"] is None
    assert rows["accuracy"]["bounded"] and rows["accuracy"]["upper_bound"] == 1.0


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, _ = run(capsys, "rank", "--no-such-option")
    assert rc == 2


def _has(metric_id: str) -> bool:
    from tambench.core.metrics import METRICS

    return metric_id in METRICS


def test_rank_drops_junk_rows_like_grading_unless_asked_to_keep_them(
    capsys: pytest.CaptureFixture[str], tam_lite_dir: Path
) -> None:
    lb = str(tam_lite_dir / "new-york-city-taxi-fare-prediction" / "leaderboard.csv")
    rc, out, _ = run(capsys, "rank", "--leaderboard", lb, "--score", "1000", "--metric", "rmse",
                     "--json")
    assert rc == 0 and json.loads(out)["n_teams"] == 1484  # the 2.5e7 outlier is not a competitor
    rc, out, _ = run(capsys, "rank", "--leaderboard", lb, "--score", "1000", "--metric", "rmse",
                     "--keep-junk", "--json")
    data = json.loads(out)
    assert (data["n_teams"], data["rank"]) == (1485, 1485)
