"""prepare reports its steps on stderr, and Ctrl-C says what was kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tambench.splits.audit as audit_pkg
import tambench.splits.prepare as prep
from tambench.errors import QuarantinedTaskError
from tambench.splits.prepare import PrepareJob, prepare_many, prepare_task
from tambench.splits.quarantine import AUDIT_PENDING, check_gradable, read_quarantine
from tests.splits.helpers import make_spec, tabular


def test_the_steps_of_one_prepare_are_reported_on_stderr(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tabular(tmp_path / "raw", n=300)
    prepare_task(make_spec("steps", {"strategy": "random"}), tmp_path / "raw", tmp_path / "data",
                 progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "prepare kaggle/steps: 4/4 (passed)" in captured.err


def test_ctrl_c_during_a_first_prepare_says_nothing_was_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    tabular(tmp_path / "raw", n=300)

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(prep, "write_checksums", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prepare_task(make_spec("stop", {"strategy": "random"}), tmp_path / "raw",
                     tmp_path / "data", progress=True)
    err = capsys.readouterr().err
    assert ("interrupted after prepare kaggle/stop: 2/4; nothing was written for kaggle/stop "
            "(its staging folder was removed)") in err
    assert list((tmp_path / "data/kaggle").iterdir()) == []


def test_ctrl_c_during_a_rebuild_says_the_previous_folder_is_unchanged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    tabular(tmp_path / "raw", n=300)
    spec = make_spec("again", {"strategy": "random"})
    first = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    before = (first.task_dir / "checksums.json").read_bytes()

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(prep, "set_modes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data", force=True, progress=True)
    assert f"{first.task_dir} is unchanged" in capsys.readouterr().err
    assert (first.task_dir / "checksums.json").read_bytes() == before
    assert [p.name for p in (tmp_path / "data/kaggle").iterdir()] == ["again"]


def test_many_tasks_are_counted_as_they_finish(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    tabular(tmp_path / "a", n=200)
    tabular(tmp_path / "b", n=200, seed=1)
    jobs = [PrepareJob(make_spec(s, {"strategy": "random"}), str(tmp_path / s),
                       str(tmp_path / "data")) for s in ("a", "b")]
    outcomes = prepare_many(jobs, executor="serial", progress=True)
    assert [o.status for o in outcomes] == ["prepared", "prepared"]
    assert "tasks prepared: 2/2" in capsys.readouterr().err


def test_ctrl_c_during_the_audit_leaves_the_task_quarantined_until_an_audit_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    tabular(tmp_path / "raw", n=300)
    spec = make_spec("unaudited", {"strategy": "random"})

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(audit_pkg, "audit_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data", progress=True)
    assert "its audit did not finish, so it stays quarantined" in capsys.readouterr().err
    folder = tmp_path / "data/kaggle/unaudited"
    marker = read_quarantine(folder)
    assert marker is not None and marker.reason == AUDIT_PENDING
    with pytest.raises(QuarantinedTaskError, match="has not finished"):
        check_gradable(folder)
    monkeypatch.undo()
    assert prepare_task(spec, tmp_path / "raw", tmp_path / "data").status == "up_to_date"
    assert read_quarantine(folder) is None  # the audit passed: gradable


def test_a_prepare_without_audit_is_not_quarantined(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=300)
    res = prepare_task(make_spec("noaudit", {"strategy": "random"}), tmp_path / "raw",
                       tmp_path / "data", run_audit=False)
    assert read_quarantine(res.task_dir) is None
