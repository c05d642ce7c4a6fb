"""tambench prepare / audit / check-split through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.schema.io import save_taskspec
from tests.splits.helpers import make_spec, read, tabular


def _task(tmp_path: Path, slug: str = "cli-task") -> Path:
    tabular(tmp_path / "raw", n=400, n_classes=2)
    path = tmp_path / "task.json"
    save_taskspec(make_spec(slug, {"strategy": "stratified", "test_size": 0.25}), path)
    return path


def test_prepare_then_audit_succeed_and_print_json(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    task = _task(tmp_path)
    data = tmp_path / "data"
    assert main(["prepare", str(task), "--raw", str(tmp_path / "raw"), "--data-dir", str(data),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["ok"] is True and out[0]["rows"]["test"] == 100
    split_report = json.loads((data / "kaggle/cli-task/split_report.json").read_text())
    score = split_report["sample_submission"]["score"]
    assert isinstance(score, float)  # the command passes the grader: the sample is scored
    assert main(["audit", str(task), "--data-dir", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True
    (sample,) = [c for c in report["checks"] if c["name"] == "sample_submission"]
    assert sample["detail"] == f"score {score}"


def test_audit_exits_1_and_names_the_leak(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    task = _task(tmp_path)
    data = tmp_path / "data"
    assert main(["prepare", str(task), "--raw", str(tmp_path / "raw"), "--data-dir",
                 str(data)]) == 0
    pub = data / "kaggle/cli-task/public"
    (pub / "answers.csv").write_bytes((data / "kaggle/cli-task/private/answers.csv").read_bytes())
    capsys.readouterr()
    assert main(["audit", str(task), "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err
    assert "public/answers.csv is a byte-identical copy of private/answers.csv" in err
    assert "fix: " in err


def test_prepare_needs_exactly_one_source(tmp_path: Path) -> None:
    task = _task(tmp_path)
    assert main(["prepare", str(task), "--data-dir", str(tmp_path / "d")]) == 2


def test_check_split_reports_local_and_official_scores_and_their_correlation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    rows = ["task,submission,official_score"]
    for k in range(3):
        raw = tmp_path / f"raw{k}"
        tabular(raw, n=400, n_classes=2, seed=k)
        task = tmp_path / f"task{k}.json"
        save_taskspec(make_spec(f"chk{k}", {"strategy": "random"}), task)
        assert main(["prepare", str(task), "--raw", str(raw), "--data-dir", str(data)]) == 0
        sample = data / f"kaggle/chk{k}/public/sample_submission.csv"
        answers = read(data / f"kaggle/chk{k}/private/answers.csv")
        official = float((answers["label"] == read(sample)["label"][0]).mean())
        rows.append(f"{task},{sample},{official + 0.01 * k}")
    rows.append(f"{tmp_path / 'task0.json'},{tmp_path / 'missing.csv'},0.5")
    (tmp_path / "check.csv").write_text("\n".join(rows) + "\n")
    capsys.readouterr()
    rc = main(["check-split", str(tmp_path / "check.csv"), "--data-dir", str(data), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 3  # the missing submission row failed; the others were scored
    scored = [r for r in out["rows"] if not r["error"]]
    assert len(scored) == 3
    for r in scored:
        assert r["abs_error"] == pytest.approx(abs(r["local_score"] - r["official_score"]))
        assert r["abs_error"] < 0.03
    assert out["pearson"] is not None and out["pearson"] > 0.85
    assert out["rows"][3]["error"]
