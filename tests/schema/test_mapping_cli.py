"""``tambench schema map``: one Markdown file or a folder of pages -> TaskSpec."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.schema.io import load_taskspec
from tambench.testing.fake_openai import FakeOpenAIServer

DATA = Path(__file__).resolve().parents[1] / "data" / "mapping"
PAGE = DATA / "sensor_page.md"


def test_map_one_file_prints_strict_json_with_evidence(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    out = tmp_path / "task.json"
    rc = main(["schema", "map", str(PAGE), "--id", "kaggle/sensor", "--json", "--out", str(out)])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mapper"] == "rules"
    assert data["spec"]["grading"]["metric"] == "roc_auc"
    assert data["spec"]["grading"]["submission_header"] == ["sensor_id", "faulty"]
    assert data["evidence"]["grading.submission_header"] == "sensor_id,faulty"
    assert "metric.metric_formula" in data["unfilled"]
    saved = load_taskspec(out)  # the written file validates as a TaskSpec
    assert saved.id == "kaggle/sensor"
    assert saved.grading is not None and saved.grading.metric == "roc_auc"
    assert saved.provenance.evidence == data["evidence"]


def test_map_a_folder_of_pages_reads_each_kind(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    overview, data = text.split("# Data\n", 1)
    (tmp_path / "overview.md").write_text(overview, encoding="utf-8")
    (tmp_path / "data.md").write_text(data, encoding="utf-8")
    rc = main(["schema", "map", str(tmp_path), "--id", "kaggle/sensor"])
    assert rc == 0
    shown = capsys.readouterr().out
    assert "metric             roc_auc" in shown
    assert "submission_header  sensor_id,faulty" in shown


def test_map_folder_with_an_unknown_page_name_is_a_usage_error(tmp_path: Path) -> None:
    shutil.copy(PAGE, tmp_path / "faq.md")
    assert main(["schema", "map", str(tmp_path), "--id", "kaggle/sensor"]) == 2


def test_map_with_llm_uses_the_given_endpoint(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAMBENCH_TEST_KEY", "not-a-real-key")
    reply = json.loads((DATA / "reply_honest.json").read_text(encoding="utf-8"))
    with FakeOpenAIServer(replies=[reply]) as srv:
        rc = main(["schema", "map", str(PAGE), "--id", "kaggle/sensor", "--llm", "fake-model",
                   "--base-url", srv.base_url, "--api-key-env", "TAMBENCH_TEST_KEY", "--json"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mapper"] == "model:fake-model"
    assert data["spec"]["title"] == "Faulty Sensor Detection"


def test_map_with_llm_and_no_key_exits_1_naming_the_variable(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAMBENCH_TEST_KEY", raising=False)
    rc = main(["schema", "map", str(PAGE), "--id", "kaggle/sensor", "--llm", "m",
               "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "TAMBENCH_TEST_KEY"])
    assert rc == 1
    assert "TAMBENCH_TEST_KEY" in capsys.readouterr().err
