"""Peak memory of `grade`, `validate` and the validation server on compressed bombs.

Each bomb is a submission of a small prepared task (``local/bench``: a valid header, then one
byte repeated) that expands to ``--expand-mb`` MiB (1,280 by default: the 1.25 GiB of the
reliability report), in every compressed form a submission may take:

* ``gzip``: ``submission.csv.gz``;
* ``zip-deflate``, ``zip-bzip2``, ``zip-lzma``: ``submission.zip`` of one member compressed
  with that method (zipfile writes them; over the size cap, their declared size refuses them);
* the same three ``-understated``: their headers declare 255 MiB (under the cap), so the
  member is decompressed, and stopped by the bytes it produces;
* ``zip-bzip2-1KiB-declared``: the bzip2 zip whose headers declare 1 KiB.

For each, ``tambench grade`` and ``tambench validate`` run in a fresh interpreter (peak RSS
from ``wait4``), and the bomb is posted to a fresh ``tambench serve validate`` process after
one valid submission (its peak RSS while answering the bomb, ``VmHWM`` reset through
``/proc/<pid>/clear_refs``, and its RSS once it has answered). A plain valid submission gives each its baseline. Reported per bomb and tool: the peak RSS, its excess over
the baseline, the answer's first words, and the documented bound of decompression,
min(size cap, max(10 MiB, 200 x the compressed size)) + 1 MiB, and whether the excess stays
within what docs/grading.md promises: twice that bound + 1 MiB (the bytes let out, an LZMA
dictionary no larger, one step of input). Figures go to stdout and
``bench/results/bench_bombs.json``.

Usage::

    python bench/bench_bombs.py [--expand-mb 1280] [--rows 10000]
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validation_server import make_task, proc_memory, record, start_server  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MIB = 1024**2
#: compressed.py's bounds, restated so that the bench checks the documentation's figures.
RATIO, FLOOR, STEP = 200, 10 * MIB, MIB


def _fill(write: Any, head: bytes, total: int) -> None:
    write(head)
    block = b"0" * MIB
    for _ in range(max(0, total - len(head)) // MIB):
        write(block)


def make_bombs(head: bytes, expand: int) -> dict[str, tuple[str, bytes]]:
    """Every bomb kind: (file name, bytes)."""
    out: dict[str, tuple[str, bytes]] = {}
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as gz:
        _fill(gz.write, head, expand)
    out["gzip"] = ("submission.csv.gz", buf.getvalue())
    for name, method in (("zip-deflate", zipfile.ZIP_DEFLATED), ("zip-bzip2", zipfile.ZIP_BZIP2),
                         ("zip-lzma", zipfile.ZIP_LZMA)):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as zf, \
                zf.open("submission.csv", "w", force_zip64=True) as fh:
            _fill(fh.write, head, expand)
        out[name] = ("submission.zip", buf.getvalue())
    for name in ("zip-deflate", "zip-bzip2", "zip-lzma"):  # headers under the size cap
        out[f"{name}-understated"] = ("submission.zip", _declaring(out[name][1], 255 * MIB))
    out["zip-bzip2-1KiB-declared"] = ("submission.zip", _declaring(out["zip-bzip2"][1], 1024))
    return out


def _declaring(data: bytes, size: int) -> bytes:
    """A one-member zip whose central directory declares ``size`` uncompressed bytes (zipfile
    wrote the real size there, four bytes, for a member of less than 4 GiB)."""
    out = bytearray(data)
    central = out.rfind(b"PK\x01\x02")
    out[central + 24:central + 28] = size.to_bytes(4, "little")
    return bytes(out)


def bound(packed: int, cap: int) -> int:
    """The most decompression may hold, in bytes (docs/grading.md)."""
    return min(cap, max(FLOOR, RATIO * packed)) + STEP


def run_cli(argv: list[str]) -> dict[str, Any]:
    """A tambench command in a fresh interpreter: its peak RSS (wait4), exit code, first line."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "tambench.cli.main", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = out.decode("utf-8", "replace")
    lines = [x.strip() for x in text.splitlines() if x.strip()] or [""]
    line = next((x for x in lines if "expands" in x), lines[-1])
    return {"peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "exit": proc.returncode,
            "seconds": round(time.monotonic() - start, 2), "answer": line[:160]}


def serve_one(cat: Path, data: Path, tmp: Path, valid: bytes, name: str,
              blob: bytes) -> dict[str, Any]:
    """A fresh server: one valid submission posted (what validation loads is loaded), then
    ``blob``; the server's peak RSS while answering it (VmHWM, reset before through
    /proc/<pid>/clear_refs, else the peak since the start)."""
    server, url = start_server(cat, data, tmp, [])
    try:
        httpx.post(url + "/validate", files={"file": ("submission.csv", valid)}, timeout=120)
        try:
            Path(f"/proc/{server.pid}/clear_refs").write_text("5")
            reset = True
        except OSError:
            reset = False
        start = time.monotonic()
        resp = httpx.post(url + "/validate", files={"file": (name, blob)}, timeout=120)
        seconds = round(time.monotonic() - start, 2)
        memory = proc_memory(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    answer = resp.json().get("result") or resp.json().get("details", "")
    return {"peak_rss_mib": round(memory["VmHWM"] / 1024, 1), "peak_reset": reset,
            "rss_after_mib": round(memory["VmRSS"] / 1024, 1),
            "status": resp.status_code, "seconds": seconds,
            "answer": " ".join(str(answer).split())[:160]}


def run(root: Path, ns: argparse.Namespace) -> dict[str, Any]:
    cat, data, valid = make_task(root, ns.rows)
    head = valid[: valid.index(b"\n", 200) + 1]  # a header and a few rows
    started = time.monotonic()
    bombs = make_bombs(head, ns.expand_mb * MIB)
    built = round(time.monotonic() - started, 1)
    subs = root / "subs"
    task = ["--task", "local/bench", "--catalogue", str(cat), "--data-dir", str(data)]
    cap = max(256 * MIB, 8 * len(valid))
    kinds: dict[str, Any] = {}
    tmp = root / "server-tmp"
    tmp.mkdir()
    for kind, (name, blob) in {"plain (baseline)": ("submission.csv", valid), **bombs}.items():
        path = subs / kind.split()[0] / name
        path.parent.mkdir(parents=True)
        path.write_bytes(blob)
        kinds[kind] = {
            "compressed_bytes": len(blob), "expands_to_mib": ns.expand_mb,
            "bound_mib": round(bound(len(blob), cap) / MIB, 1),
            "grade": run_cli(["grade", str(path), *task]),
            "validate": run_cli(["validate", str(path), *task]),
            "server": serve_one(cat, data, tmp, valid, name, blob)}
    base = kinds["plain (baseline)"]
    for got in kinds.values():
        for tool in ("grade", "validate", "server"):
            got[tool]["over_baseline_mib"] = round(
                got[tool]["peak_rss_mib"] - base[tool]["peak_rss_mib"], 1)
            got[tool]["within_promise"] = (got[tool]["over_baseline_mib"]
                                           <= 2 * got["bound_mib"] + STEP / MIB)
    return {"expand_mb": ns.expand_mb, "rows": ns.rows, "bombs_built_s": built,
            "size_cap_mib": cap / MIB, "kinds": kinds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expand-mb", type=int, default=1280)
    ap.add_argument("--rows", type=int, default=10_000)
    record("bench_bombs", run, ap.parse_args())


if __name__ == "__main__":
    main()
