"""A batch's report files are replaced as one set: a kill between two writes leaves the
previous set whole (and the interrupted one recognisable), readers never see files of two
batches together, and the folder named by ``--out`` keeps working as the published path."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tambench.cli.main import main
from tambench.grading.batch import BatchReport, write_batch_outputs
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, _grade, make_env, put

REPO = Path(__file__).resolve().parents[2]

#: Runs grade-runs in a child whose N-th file write kills it (SIGKILL, as a crash would).
_KILLED_AT_WRITE = """
import os, signal, sys
import tambench.fileio as fileio
from tambench.cli.main import main
real, count, at = fileio.write_bytes_atomic, [0], int(sys.argv[1])
def faulty(*args, **kwargs):
    count[0] += 1
    if count[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
fileio.write_bytes_atomic = faulty
sys.exit(main(sys.argv[2:]))
"""


def _set_of(folder: Path) -> dict[str, Any]:
    """What a reader of ``folder`` gets: the manifest checked against every file, and the runs
    each of grades.json and grades.csv describes."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], f"{name} is not the set's"
    assert set(manifest["files"]) | {"manifest.json"} == set(os.listdir(folder))
    rows = json.loads((folder / "grades.json").read_text())["rows"]
    csv_rows = list(csv.DictReader(io.StringIO((folder / "grades.csv").read_text())))
    runs = sorted(f"{r['agent']}/{r['run']}" for r in rows)
    assert runs == sorted(f"{r['agent']}/{r['run']}" for r in csv_rows)
    return {"batch_id": manifest["batch_id"], "runs": runs}


def _grade_runs_argv(runs: Path, cat: Path, data: Path, out: Path) -> list[str]:
    return ["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
            "--executor", "serial", "--out", str(out)]


@pytest.mark.parametrize("killed_at", [2, 3, 4])  # after grades.json, .csv, report.html
def test_a_kill_between_two_report_files_leaves_the_previous_set_whole(
    killed_at: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, runs = make_env(tmp_path)
    out = tmp_path / "report"
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    assert main(_grade_runs_argv(runs, cat, data, out)) == 0
    first = _set_of(out)
    assert first["runs"] == ["a/r1"]

    put(runs, "b", "value", "r2", perfect_text(TASKS["value"]))
    child = subprocess.run(
        [sys.executable, "-c", _KILLED_AT_WRITE, str(killed_at),
         *_grade_runs_argv(runs, cat, data, out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr  # the fault did fire
    assert _set_of(out) == first  # the published set is the previous one, whole
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".report.staging-")]
    assert not (left / "manifest.json").exists()  # an interrupted set: no manifest

    capsys.readouterr()
    assert main(_grade_runs_argv(runs, cat, data, out)) == 0
    assert _set_of(out)["runs"] == ["a/r1", "b/r2"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report.")] == []


def test_a_kill_at_the_swap_leaves_one_whole_set(tmp_path: Path) -> None:
    """Staged completely, then killed just before the swap: the old set is published; the
    staged one carries its manifest, so it is recognisable as whole but never swapped in."""
    cat, data, runs = make_env(tmp_path)
    out = tmp_path / "report"
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    assert main(_grade_runs_argv(runs, cat, data, out)) == 0
    first = _set_of(out)
    put(runs, "b", "value", "r2", perfect_text(TASKS["value"]))
    script = _KILLED_AT_WRITE.replace("fileio.write_bytes_atomic = faulty",
                                      "fileio.exchange_paths = lambda *a: faulty()")
    child = subprocess.run(
        [sys.executable, "-c", script, "1", *_grade_runs_argv(runs, cat, data, out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert _set_of(out) == first
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".report.staging-")]
    assert _set_of(left)["runs"] == ["a/r1", "b/r2"]


_KILLED_IN_PLACE = """
import os, signal, sys
from pathlib import Path
from tambench.cli.main import main
out = Path(sys.argv[1])
os.path.ismount = lambda p: Path(p) == out      # as a bind-mounted folder is
real = os.replace
def faulty(src, dst, *args, **kwargs):
    if Path(dst) == out / "grades.csv":           # grades.json already moved in
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)
os.replace = faulty
sys.exit(main(sys.argv[2:]))
"""


def test_a_folder_that_cannot_be_swapped_is_updated_in_place_without_a_manifest_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A mount point cannot be renamed: its set is replaced file by file, the manifest removed
    first and written last, so a set caught half-way has no manifest."""
    cat, data, runs = make_env(tmp_path)
    out = tmp_path / "report"
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    assert main(_grade_runs_argv(runs, cat, data, out)) == 0
    inode = out.stat().st_ino
    put(runs, "b", "value", "r2", perfect_text(TASKS["value"]))
    child = subprocess.run(
        [sys.executable, "-c", _KILLED_IN_PLACE, str(out), *_grade_runs_argv(runs, cat, data, out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert not (out / "manifest.json").exists()  # caught half-way: recognisably not a set
    assert out.stat().st_ino == inode  # updated in place, never renamed

    monkeypatch.setattr(os.path, "ismount", lambda p: Path(p) == out)
    capsys.readouterr()
    assert main(_grade_runs_argv(runs, cat, data, out)) == 0
    assert _set_of(out)["runs"] == ["a/r1", "b/r2"] and out.stat().st_ino == inode
    assert [p for p in os.listdir(out) if p.startswith(".")] == []


def _two_reports(tmp_path: Path) -> tuple[BatchReport, BatchReport]:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    one = _grade(runs, cat, data)
    put(runs, "b", "label", "r2", perfect_text(TASKS["label"]))
    return one, _grade(runs, cat, data)


def _read_through_folder(out: Path) -> dict[str, Any] | None:
    """One reader's view: the folder opened once, every file read relative to it; None when
    the folder or a file of it is gone (a set being replaced), never half of two sets."""
    try:
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return None
    try:
        def read(name: str) -> bytes:
            with open(name, "rb", opener=lambda p, f: os.open(p, f, dir_fd=fd)) as fh:
                return fh.read()

        manifest = json.loads(read("manifest.json"))
        for name, entry in manifest["files"].items():
            assert hashlib.sha256(read(name)).hexdigest() == entry["sha256"], "a mixed set"
        return {"batch_id": manifest["batch_id"]}
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def _rendered(report: BatchReport, folder: Path) -> tuple[dict[str, bytes], bytes]:
    """A report's set as bytes (rendered once), and its manifest."""
    paths = write_batch_outputs(report, folder)
    members = {p.name: p.read_bytes() for k, p in paths.items() if k != "manifest"}
    return members, paths["manifest"].read_bytes()


@pytest.mark.parametrize("exchange", [True, False], ids=["atomic exchange", "two renames"])
def test_readers_never_see_files_of_two_batches(exchange: bool, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import tambench.fileio as fileio
    from tambench.grading.batch.writers import replace_folder

    one, two = _two_reports(tmp_path)
    sets = [_rendered(one, tmp_path / "one"), _rendered(two, tmp_path / "two")]
    if not exchange:
        monkeypatch.setattr(fileio, "exchange_paths", lambda a, b: False)
    out = tmp_path / "report"
    replace_folder(out, *sets[0])
    seen: set[str] = set()
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        try:
            while not done.is_set():
                view = _read_through_folder(out)
                if view is not None:
                    seen.add(view["batch_id"])
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for i in range(60):
            replace_folder(out, *sets[(i + 1) % 2])
    finally:
        done.set()
        thread.join()
    assert errors == []
    assert len(seen) == 2  # the reader saw both batches, each whole
    assert _set_of(out)["runs"] == ["a/r1"]


def test_the_report_folder_holds_only_a_report_set(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine\n")
    assert main(_grade_runs_argv(runs, cat, data, busy)) == 1
    assert "busy holds files that are not part of a report set (notes.txt)" in \
        capsys.readouterr().err
    assert os.listdir(busy) == ["notes.txt"]
    # A folder an older tambench wrote (the three files, no manifest) is replaced.
    old = tmp_path / "old"
    old.mkdir()
    for name in ("grades.json", "grades.csv", "report.html"):
        (old / name).write_text("from an older run\n")
    assert main(_grade_runs_argv(runs, cat, data, old)) == 0
    assert _set_of(old)["runs"] == ["a/r1"]


@pytest.mark.parametrize("manifest", [
    {"files": {"notes.txt": {"bytes": 5}}},  # another tool's, listing its own files
    {"batch_id": "b", "created_at": "2024", "runs": 1,
     "files": {"notes.txt": {"bytes": 5, "sha256": "0" * 64}}},  # ours in shape, not in size
    {"name": "my-dataset", "version": 3},
])
def test_a_folder_holding_another_tools_manifest_is_refused_and_kept_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], manifest: dict[str, object],
) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "manifest.json").write_text(json.dumps(manifest))
    if "files" in manifest:
        (theirs / "notes.txt").write_text("mine, not a report\n")
    before = {p.name: p.read_bytes() for p in theirs.iterdir()}
    assert main(_grade_runs_argv(runs, cat, data, theirs)) == 1
    err = capsys.readouterr().err
    assert "theirs holds files that are not part of a report set (" in err
    if "batch_id" not in manifest:
        assert "manifest.json, not a tambench report manifest" in err
    if "files" in manifest:
        assert "notes.txt" in err
    assert {p.name: p.read_bytes() for p in theirs.iterdir()} == before


def test_a_linked_report_folder_stays_a_link_to_the_new_set(tmp_path: Path) -> None:
    one, two = _two_reports(tmp_path)
    real = tmp_path / "real-report"
    write_batch_outputs(one, real)
    link = tmp_path / "report"
    link.symlink_to(real.name)
    paths = write_batch_outputs(two, link)
    assert link.is_symlink() and os.readlink(link) == real.name
    assert _set_of(link)["runs"] == ["a/r1", "b/r2"] and paths["json"].parent == real


def test_mle_bench_report_in_the_same_folder_joins_the_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    out = tmp_path / "report"
    for _ in range(2):
        assert main([*_grade_runs_argv(runs, cat, data, out), "--output-dir", str(out)]) == 0
    names = set(json.loads((out / "manifest.json").read_text())["files"])
    assert len([n for n in names if n.endswith("-GMT_grading_report.json")]) == 1
    assert {"grades.json", "grades.csv", "report.html"} < names
    _set_of(out)
    capsys.readouterr()


def test_the_manifest_names_the_batch(tmp_path: Path) -> None:
    one, _ = _two_reports(tmp_path)
    paths = write_batch_outputs(one, tmp_path / "out")
    manifest = json.loads(paths["manifest"].read_text())
    digest = hashlib.sha256(paths["json"].read_bytes()).hexdigest()
    assert manifest["batch_id"] == f"{FIXED:%Y%m%dT%H%M%S}-{digest[:12]}"
    assert manifest["created_at"] == FIXED.isoformat() and manifest["runs"] == 1
    assert manifest["files"]["grades.csv"]["bytes"] == paths["csv"].stat().st_size
