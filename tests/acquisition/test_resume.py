"""Kill-and-resume: a crawl killed at random moments refetches nothing it finished."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tambench.acquisition.pipeline import acquire_competitions_async
from tambench.acquisition.snapshots import Snapshot, SnapshotStore
from tambench.testing.site import RunningSite

from .conftest import BrowserHarness

REFS = ["kaggle:aerial-cactus-identification", "biendata:spaceship-titanic"]


def _done(store: SnapshotStore) -> dict[str, Snapshot]:
    out = {}
    if store.records.is_dir():
        for p in store.records.glob("*.json"):
            snap = Snapshot.model_validate_json(p.read_text())
            out[snap.url] = snap
    return out


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _hits(site: RunningSite, url: str) -> int:
    with site.state.lock:
        return site.state.hits.get(_path_of(url), 0)


def _outputs(catalogue: Path) -> dict[str, str]:
    """Every output file's text, fetch times blanked (they are when, not what)."""
    out = {}
    for p in sorted(catalogue.rglob("*")):
        if not p.is_file() or ".acquire" in p.parts or p.name == "acquisition.json":
            continue
        text = p.read_text()
        if p.name == "task.json":
            data = json.loads(text)
            for page in data["provenance"]["pages"]:
                page["fetched_at"] = ""
            # The command computes difficulty after acquisition; the clean run here is the
            # library call alone.
            data.pop("difficulty", None)
            text = json.dumps(data, sort_keys=True)
        out[str(p.relative_to(catalogue))] = text
    return out


def _kill_and_resume(site: RunningSite, tmp: Path, kills: int, seed: int) -> tuple[Path, int]:
    rng = random.Random(seed)
    catalogue, state = tmp / "catalogue", tmp / "state"
    store = SnapshotStore(state)
    base_urls = [f"--base-url={k}={v}" for k, v in site.base_urls.items()]
    cmd = [sys.executable, "-m", "tambench.cli.main", "acquire", *REFS,
           "--catalogue", str(catalogue), "--state-dir", str(state), "--hermetic",
           "--concurrency", "2", *base_urls]
    # Chromium's singleton socket path must stay under the 108-byte Unix limit: a short TMPDIR.
    short_tmp = tempfile.mkdtemp(prefix="tbk-")
    env = {**os.environ, "TMPDIR": short_tmp}
    killed = 0
    for attempt in range(kills + 1):
        tmp.mkdir(parents=True, exist_ok=True)
        log = tmp / f"run-{attempt}.log"
        with log.open("wb") as fh:
            proc = subprocess.Popen(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        if attempt < kills:
            deadline = time.monotonic() + rng.uniform(1.5, 5.0)
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
        if proc.poll() is None and attempt < kills:
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: driver and Chromium too
            proc.wait()
            killed += 1
            done = _done(store)
            hits = {u: _hits(site, u) for u in done}
            assert store.verify() == []
            for p in catalogue.rglob("*.json"):
                json.loads(p.read_text())  # no half-written file
            snapshots_after_kill.append((done, hits))
            continue
        assert proc.wait(timeout=300) == 0, log.read_text()[-3000:]
        break
    shutil.rmtree(short_tmp, ignore_errors=True)
    return catalogue, killed


snapshots_after_kill: list[tuple[dict[str, Snapshot], dict[str, int]]] = []


@pytest.mark.parametrize("kills", [pytest.param(3, id="3-kills", marks=pytest.mark.long),
                                   pytest.param(20, id="20-kills", marks=pytest.mark.slow)])
def test_killed_crawl_resumes_without_refetching_and_matches_a_clean_run(
        kills: int, site: RunningSite, harness: BrowserHarness, tmp_path: Path) -> None:
    snapshots_after_kill.clear()
    catalogue, killed = _kill_and_resume(site, tmp_path / "killed", kills, seed=kills)
    assert killed >= 1
    store = SnapshotStore(tmp_path / "killed" / "state")
    for done, hits in snapshots_after_kill:
        for url, n in hits.items():
            assert _hits(site, url) == n, f"{url} was fetched again after it was done"
            assert store.get(url) == done[url]  # the record was never rewritten
    assert store.verify() == []

    clean = tmp_path / "clean"
    settings = dataclasses.replace(harness.settings, concurrency=2)
    report = harness.run(acquire_competitions_async(
        REFS, clean / "catalogue", base_urls=site.base_urls, concurrency=2, settings=settings,
        state_dir=clean / "state", browser=harness.browser))
    assert report.ok
    resumed, fresh = _outputs(catalogue), _outputs(clean / "catalogue")
    assert len(resumed) == len(REFS) * 6  # 4 pages, leaderboard.csv, task.json per competition
    assert resumed == fresh
