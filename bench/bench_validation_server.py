"""The validation server under hostile clients: a 2 GB upload, a client sending a byte a second,
and valid requests answered meanwhile.

The real command (``tambench serve validate``, default limits unless given) serves a prepared
10,000-row task in its own process. While it runs:

* a client streams a 2 GiB upload without declaring its size (chunked): refused at the size
  cap; another declares 2 GiB with ``Expect: 100-continue`` (curl's way): refused before it
  sends a byte; a third declares 2 GiB and sends anyway;
* a client sends its headers, then its body one byte a second: refused at the upload deadline;
  another sends its request headers one byte a second: disconnected at the header deadline;
* a valid submission is posted every half second, from the start until every hostile client is
  done: each answer's latency is recorded.

Reported: each hostile client's outcome, time to refusal and bytes it got to send; the valid
requests' latencies; the server's peak resident memory and the peak size of its temporary
folder (polled every 10 ms); the load average. Figures go to stdout and
``bench/results/bench_validation_server.json``.

Usage::

    python bench/bench_validation_server.py [--rows 10000] [--upload-timeout 60]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
TWO_GIB = 2 * 1024**3
CHUNK = b"1,2.5\n" * (1024**2 // 6)


def make_task(root: Path, rows: int) -> tuple[Path, Path, bytes]:
    """A prepared task (catalogue, public sample, private answers) and a valid submission."""
    cat = root / "catalogue" / "local" / "bench"
    cat.mkdir(parents=True)
    (cat / "task.json").write_text(json.dumps({
        "id": "local/bench", "platform": "local",
        "grading": {"metric": "rmse", "id_columns": ["id"], "target_columns": ["y"]}}))
    task = root / "data" / "local" / "bench"
    (task / "public").mkdir(parents=True)
    (task / "private").mkdir()
    ids = [f"r{i:07d}" for i in range(rows)]
    (task / "public" / "sample_submission.csv").write_text(
        "id,y\n" + "".join(f"{i},0\n" for i in ids))
    (task / "private" / "answers.csv").write_text(
        "id,y\n" + "".join(f"{i},{k % 97 / 7:.4f}\n" for k, i in enumerate(ids)))
    valid = ("id,y\n" + "".join(f"{i},{k % 89 / 7:.4f}\n" for k, i in enumerate(ids))).encode()
    return root / "catalogue", root / "data", valid


def start_server(cat: Path, data: Path, tmp: Path, extra: list[str]) -> tuple[Any, str]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tambench.cli.main", "serve", "validate", "--task",
         "local/bench", "--catalogue", str(cat), "--data-dir", str(data), "--port", "0",
         *extra], stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    while first and not first.startswith("validating submissions for "):
        first = proc.stderr.readline()
    if " at http://" not in first:
        proc.kill()
        raise SystemExit(f"the server did not start: {first}{proc.stderr.read()}")
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, first.split(" at ")[1].split("/validate")[0]


def proc_memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak resident size) in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(line.split()[1])
    return out


def folder_bytes(root: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    return total


def timed(name: str, results: dict[str, Any], fn: Callable[[], dict[str, Any]]) -> None:
    start = time.monotonic()
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - reported, not raised: the figure is the outcome
        out = {"outcome": f"{type(exc).__name__}: {exc}"[:200]}
    out["seconds"] = round(time.monotonic() - start, 3)
    results[name] = out


def chunked_2gib(url: str) -> dict[str, Any]:
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        yield (b'--bb\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\n\r\n'
               b"id,y\n")
        while sent < TWO_GIB:
            sent += len(CHUNK)
            yield CHUNK

    try:
        resp = httpx.post(url + "/validate", content=body(), timeout=120,
                          headers={"Content-Type": "multipart/form-data; boundary=bb"})
        outcome = f"{resp.status_code} {resp.json().get('error')}"
    except httpx.TransportError as exc:
        outcome = f"connection closed by the server ({type(exc).__name__})"
    return {"outcome": outcome, "bytes_sent": sent}


def raw_request(url: str, head: bytes, body: Iterator[bytes] | None,
                wait_reply: float = 120) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=wait_reply) as s:
        s.sendall(head)
        reply = b""
        try:
            for piece in body or ():
                s.sendall(piece)
                sent += len(piece)
                s.settimeout(0.0)
                try:
                    got = s.recv(65536)
                    if got == b"":
                        break
                    reply += got
                    if b"\r\n\r\n" in reply and not reply.startswith(b"HTTP/1.1 100"):
                        break
                except BlockingIOError:
                    pass
                s.settimeout(wait_reply)
        except OSError:
            pass
        s.settimeout(wait_reply)
        try:
            while b"\r\n\r\n" not in reply or reply.startswith(b"HTTP/1.1 100 Continue\r\n\r\n") \
                    and reply.count(b"\r\n\r\n") < 2:
                got = s.recv(65536)
                if not got:
                    break
                reply += got
        except OSError:
            pass
    status = reply.split(b"\r\n", 1)[0].decode(errors="replace") if reply else "closed"
    return {"outcome": status, "bytes_sent": sent}


def declared(url: str, expect: bool) -> dict[str, Any]:
    head = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(TWO_GIB).encode()
            + b"\r\nContent-Type: multipart/form-data; boundary=bb\r\n"
            + (b"Expect: 100-continue\r\n" if expect else b"") + b"\r\n")

    def body() -> Iterator[bytes]:
        total = 0
        while total < TWO_GIB:
            total += len(CHUNK)
            yield CHUNK

    return raw_request(url, head, None if expect else body())


def byte_a_second(url: str, what: str, seconds: float) -> dict[str, Any]:
    form = b'--bb\r\nContent-Disposition: form-data; name="file"\r\n\r\nid,y\n1,2\n--bb--\r\n'
    headers = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(len(form)).encode()
               + b"\r\nContent-Type: multipart/form-data; boundary=bb\r\n\r\n")

    def trickle(data: bytes) -> Iterator[bytes]:
        for b in data:
            yield bytes([b])
            time.sleep(1.0)

    if what == "body":
        return raw_request(url, headers, trickle(form * 100), wait_reply=seconds + 30)
    return raw_request(url, b"", trickle(headers * 100), wait_reply=seconds + 30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--upload-timeout", type=float, default=60.0)
    ap.add_argument("--header-timeout", type=float, default=10.0)
    record("bench_validation_server", run, ap.parse_args())


def record(name: str, bench: Callable[[Path, argparse.Namespace], dict[str, Any]],
           ns: argparse.Namespace) -> None:
    """Run ``bench`` in a scratch folder (removed after) and write its figures to stdout and
    ``bench/results/<name>.json``."""
    root = Path(tempfile.mkdtemp(prefix=f"tambench-{name}-"))
    try:
        results = bench(root, ns)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


def run(root: Path, ns: argparse.Namespace) -> dict[str, Any]:
    cat, data, valid = make_task(root, ns.rows)
    tmp = root / "server-tmp"
    tmp.mkdir()
    load_before = [round(x, 2) for x in os.getloadavg()]
    proc, url = start_server(cat, data, tmp, ["--upload-timeout", str(ns.upload_timeout),
                                              "--header-timeout", str(ns.header_timeout)])
    try:
        return _scenarios(proc, url, tmp, valid, ns, load_before)
    finally:
        proc.terminate()
        proc.wait(30)


def _scenarios(proc: Any, url: str, tmp: Path, valid: bytes, ns: argparse.Namespace,
               load_before: list[float]) -> dict[str, Any]:
    memory_start = proc_memory(proc.pid)
    hostile: dict[str, Any] = {}
    runs = {
        "2GiB_chunked_stream": lambda: chunked_2gib(url),
        "2GiB_declared_with_expect": lambda: declared(url, expect=True),
        "2GiB_declared_sent_anyway": lambda: declared(url, expect=False),
        "body_one_byte_a_second": lambda: byte_a_second(url, "body", ns.upload_timeout),
        "headers_one_byte_a_second": lambda: byte_a_second(url, "headers", ns.header_timeout),
    }
    threads = [threading.Thread(target=timed, args=(name, hostile, fn)) for name, fn in
               runs.items()]
    peak_tmp = 0
    latencies: list[float] = []
    verdicts: set[str] = set()
    with httpx.Client(timeout=30) as client:
        for t in threads:
            t.start()
        next_probe = time.monotonic()
        while any(t.is_alive() for t in threads):
            peak_tmp = max(peak_tmp, folder_bytes(tmp))
            if time.monotonic() >= next_probe:
                start = time.monotonic()
                resp = client.post(url + "/validate", files={"file": ("s.csv", valid)})
                latencies.append(time.monotonic() - start)
                verdicts.add(resp.json().get("result", resp.text)[:40])
                next_probe = start + 0.5
            time.sleep(0.01)
    memory_end = proc_memory(proc.pid)
    return {
        "server": "tambench serve validate (aiohttp), defaults except the given timeouts",
        "rows": ns.rows, "upload_timeout_s": ns.upload_timeout,
        "header_timeout_s": ns.header_timeout,
        "hostile_clients": hostile,
        "valid_requests": {
            "count": len(latencies), "answers": sorted(verdicts),
            "median_s": round(statistics.median(latencies), 4),
            "max_s": round(max(latencies), 4),
            "under_one_second": sum(x < 1.0 for x in latencies)},
        "server_memory_kib": {"rss_at_start": memory_start.get("VmRSS"),
                              "peak_rss": memory_end.get("VmHWM")},
        "peak_private_tmp_bytes": peak_tmp,
        "tmp_bytes_after": folder_bytes(tmp),
        "load_avg_before": load_before,
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    main()
