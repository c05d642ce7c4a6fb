"""The snapshot store: content-addressed, atomic, and verifiable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.acquisition.snapshots import SnapshotStore, sha256_hex
from tambench.fileio import write_bytes_atomic


def test_pages_are_stored_by_content_and_found_by_url(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    a = store.put("http://x/a", b"<p>same</p>", status=200, kind="overview")
    b = store.put("http://x/b", b"<p>same</p>", status=200, kind="data")
    assert a.sha256 == b.sha256 == sha256_hex(b"<p>same</p>")
    assert len(list((tmp_path / "objects").glob("*/*.html"))) == 1
    got = store.get("http://x/b")
    assert got is not None and got.kind == "data" and store.read_html(got) == "<p>same</p>"
    assert store.get("http://x/never") is None
    assert store.verify() == []


def test_verify_reports_a_corrupt_object_and_a_corrupt_record(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    snap = store.put("http://x/a", b"<p>a</p>", status=200)
    store.object_path(snap.sha256).write_bytes(b"tampered")
    store.record_path("http://x/b").parent.mkdir(parents=True, exist_ok=True)
    store.record_path("http://x/b").write_text("{not json")
    problems = store.verify()
    assert any("does not match its name" in p for p in problems)
    assert any("unreadable record" in p for p in problems)


def test_failed_atomic_write_leaves_neither_the_file_nor_a_temp(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    with pytest.raises(TypeError):
        write_bytes_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_plan_is_persisted_and_grows(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    assert store.load_plan("kaggle/x") == []
    store.save_plan("kaggle/x", ["u1", "u2"])
    store.save_plan("kaggle/x", ["u1", "u2", "u3"])
    assert SnapshotStore(tmp_path).load_plan("kaggle/x") == ["u1", "u2", "u3"]
