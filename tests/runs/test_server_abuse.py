"""The validation server under abuse (reliability round 3): malformed multipart headers are
answered 400 with the reason, a FIFO planted where the counts are written never freezes the
server, and a stop signal ends an upload in progress within seconds, its folder removed."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.runs.test_validation_server import Running, _catalogue, _perfect, table_server

pytest.importorskip("aiohttp")


@pytest.fixture()
def one(tmp_path: Path) -> Iterator[Running]:
    """A server of the table's value task, taking uploads of up to 256 KiB (a 100,000-character
    file name fits)."""
    running = table_server(tmp_path, max_bytes=256 * 1024, body_seconds=5.0, header_seconds=2.0)
    yield running
    running.server.close()


def _raw_post(url: str, part_head: bytes, content: bytes) -> tuple[int, dict[str, str]]:
    """POST a one-part form whose part headers are ``part_head``, byte for byte (no client
    library sends them malformed); the status and the JSON answer."""
    host, port = url.removeprefix("http://").split(":")
    body = b"--zz\r\n" + part_head + b"\r\n\r\n" + content + b"\r\n--zz--\r\n"
    head = (f"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
            "Content-Type: multipart/form-data; boundary=zz\r\nConnection: close\r\n\r\n")
    reply = b""
    with socket.create_connection((host, int(port)), timeout=20) as s:
        s.sendall(head.encode() + body)
        while chunk := s.recv(65536):
            reply += chunk
    status = int(reply.split(b" ", 2)[1])
    return status, json.loads(reply.split(b"\r\n\r\n", 1)[1])


@pytest.mark.parametrize(("part_head", "reason"), [
    (b'Content-Disposition: form-data; name="file"; filename="a\x00b.csv"', "InvalidHeader"),
    (b'Content-Type: text/csv\r\nContent-Disposition: form-data; name="file"; '
     b'filename="a.csv\r\nContent-Type: text/html"', "BadHttpMessage"),  # CR LF in the name
    (b'Content-Disposition: form-data; name="file"; filename="' + b"n" * 100_000 + b'.csv"',
     "LineTooLong"),
])
def test_malformed_part_headers_are_a_400_naming_the_problem(
    one: Running, part_head: bytes, reason: str,
) -> None:
    status, answer = _raw_post(one.url, part_head, _perfect(one))
    assert status == 400, answer
    assert answer["error"] == "bad request"
    assert answer["details"].startswith("the multipart form could not be read: a part's "
                                        f"headers are malformed ({reason}")
    assert len(answer["details"]) < 400  # the 100,000-character name is not echoed
    assert not any("internal error" in line for line in one.logs), one.logs
    assert httpx.get(one.url + "/health").json() == {"status": "running"}


def test_a_nested_multipart_field_is_a_400_not_a_bug(one: Running) -> None:
    status, answer = _raw_post(one.url, b'Content-Disposition: form-data; name="file"; '
                               b'filename="a.csv"\r\nContent-Type: multipart/mixed; boundary=qq',
                               _perfect(one))
    assert (status, answer["error"]) == (400, "bad request"), answer
    assert answer["details"].startswith("a form field is itself a multipart body")
    assert not any("internal error" in line for line in one.logs), one.logs


def test_a_form_without_the_field_file_is_told_to_use_file(one: Running) -> None:
    for content in (b"id,y\n1,2\n", _perfect(one) * 20):  # small, and over a field's limit
        resp = httpx.post(one.url + "/validate", files={"submission": ("s.csv", content)})
        assert resp.status_code == 400
        details = resp.json()["details"]
        assert "'submission'" in details, details
        assert 'send the submission in the field "file"' in details, details


@pytest.mark.parametrize("planted", ["fifo", "link to a fifo", "socket"])
def test_a_special_file_where_the_counts_go_never_freezes_the_server(
    one: Running, tmp_path: Path, planted: str,
) -> None:
    """The runs folder is the agent's to write: a FIFO at ``validations.json`` used to be
    opened for reading, which waits for a writer that never comes, in the server's loop."""
    folder = one.tmp / "runs" / "a" / "value" / "r1"
    folder.mkdir(parents=True)
    counts = folder / "validations.json"
    holder: socket.socket | None = None
    if planted == "fifo":
        os.mkfifo(counts)
    elif planted == "link to a fifo":
        os.mkfifo(tmp_path / "elsewhere")
        counts.symlink_to(tmp_path / "elsewhere")
    else:
        holder = socket.socket(socket.AF_UNIX)
        holder.bind(str(counts))
    try:
        resp = httpx.post(one.url + "/validate", files={"file": ("s.csv", _perfect(one))},
                          data={"run": "a/value/r1"}, timeout=10)
        assert resp.json() == {"result": "Submission is valid."}
        assert httpx.get(one.url + "/health", timeout=5).json() == {"status": "running"}
        written = json.loads(counts.read_text())  # replaced by a counts file of ours
        assert (written["requests"], written["valid"]) == (1, 1)
    finally:
        for fifo in (counts, tmp_path / "elsewhere"):  # let a reader stuck on it go
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        if holder is not None:
            holder.close()


def test_a_link_loop_planted_as_a_run_folder_costs_the_count_not_the_answer(
    one: Running,
) -> None:
    folder = one.tmp / "runs" / "a" / "value"
    folder.mkdir(parents=True)
    (folder / "r1").symlink_to("r1")
    resp = httpx.post(one.url + "/validate", files={"file": ("s.csv", _perfect(one))},
                      data={"run": "a/value/r1"}, timeout=10)
    assert resp.json() == {"result": "Submission is valid."}
    assert any("validations of run 'a/value/r1' not written" in line and "Symlink loop" in line
               for line in one.logs), one.logs


def test_a_stop_signal_ends_an_upload_in_progress_and_removes_its_folder(
    tmp_path: Path,
) -> None:
    """A container stop sends SIGTERM and kills 10 s later: an upload still arriving is ended
    at once (not at its 60 s deadline), and the server's temporary folder is removed."""
    _, argv = _catalogue(tmp_path)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "tambench.cli.main", *argv, "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    while line and not line.startswith("validating submissions for "):
        line = proc.stderr.readline()
    url = line.split(" at ")[1].split("/validate")[0]
    host, port = url.removeprefix("http://").split(":")
    client = socket.create_connection((host, int(port)), timeout=30)
    stop = threading.Event()

    def trickle() -> None:
        try:
            client.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
                           b"Content-Type: multipart/form-data; boundary=zz\r\n\r\n--zz\r\n"
                           b'Content-Disposition: form-data; name="file"; filename="s.csv"'
                           b"\r\n\r\nid,y\n")
            while not stop.wait(0.2):
                client.sendall(b"1,2\n")
        except OSError:
            pass

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        deadline = time.monotonic() + 20
        while not list(tmp_path.glob("tambench-validate-*/req-*/submission.csv")):
            assert time.monotonic() < deadline, "the upload never started"
            time.sleep(0.05)
        sent_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(10)
        took = time.monotonic() - sent_at
    finally:
        stop.set()
        sender.join(5)
        client.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc == 0
    assert took < 6, f"{took:.1f} s from SIGTERM to exit"
    assert not list(tmp_path.glob("tambench-validate-*"))


def test_a_body_compressed_as_a_whole_is_refused_before_it_is_expanded(one: Running) -> None:
    """aiohttp expands a ``Content-Encoding: gzip`` body before the server counts it: a small
    request would become a large upload (and a damaged one was a 500). No form client sends
    one; a compressed submission is a file named .gz in the form."""
    import gzip

    form = (b'--zz\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\n\r\n'
            + b"0" * (4 * 1024**2) + b"\r\n--zz--\r\n")
    host, port = one.url.removeprefix("http://").split(":")
    for body in (gzip.compress(form), b"not gzip at all"):
        head = (f"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
                "Content-Type: multipart/form-data; boundary=zz\r\nContent-Encoding: gzip\r\n"
                "Connection: close\r\n\r\n").encode()
        reply = b""
        with socket.create_connection((host, int(port)), timeout=20) as s:
            s.sendall(head + body)
            while chunk := s.recv(65536):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 415 "), reply[:200]
        assert b"the request body is compressed (Content-Encoding: 'gzip')" in reply
    assert not one.uploads
    assert not any("internal error" in line for line in one.logs), one.logs
