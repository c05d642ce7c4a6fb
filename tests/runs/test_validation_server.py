"""``tambench serve validate``: MLE-bench's routes, over a plain HTTP client (httpx).

Every case of the reliability corpus is posted, as the bytes an agent's ``curl -F
"file=@submission.csv"`` sends, to a server of its task: the verdict equals grading's validity
and problems, without the score. A second server of each task holds answers full of marker
strings: every response is byte for byte the same and holds no marker. Then the server's own
bounds: sizes, deadlines, the private temporary folder, the counts per run, the hostile run
names of tests/grading/hostile.py, and the loopback-only default address.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tambench.cli.main import main
from tambench.errors import ConfigError
from tambench.grading.grade import grade_submission
from tambench.grading.verdict import Verdict, public_task
from tambench.runs.server.config import ServerConfig, UploadLimits, check_bind_address
from tambench.runs.server.run import ValidationServer
from tests.grading.hostile import BYTES_NAME, ODD_NAMES
from tests.grading.public_tasks import CorpusCase, build_prepared, corpus_cases
from tests.validation.test_validate_public import MARK, MARK_NUMBER, _plant

pytest.importorskip("aiohttp")

CASES = corpus_cases()


class Running:
    """A server in a thread, with the lines it logged."""

    def __init__(self, folder: Path, spec: object, tmp: Path, **limits: object) -> None:
        self.logs: list[str] = []
        self.tmp = tmp
        tmp.mkdir(parents=True, exist_ok=True)
        config = ServerConfig(port=0, runs_dir=tmp / "runs", tmp_dir=tmp,
                              limits=UploadLimits(**limits))  # type: ignore[arg-type]
        self.server = ValidationServer(public_task(spec, task_dir=folder),  # type: ignore[arg-type]
                                       config, log=self.logs.append).start()
        self.url = self.server.url

    @property
    def uploads(self) -> list[Path]:
        """Everything in the server's private temporary folder."""
        assert self.server.root is not None
        return list(self.server.root.rglob("*"))


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Running,
                                                                                   Running]]]:
    """One server per corpus task with its answers, one with marker answers."""
    root = tmp_path_factory.mktemp("servers")
    out: dict[str, tuple[Running, Running]] = {}
    for case in CASES:
        if case.spec.id in out:
            continue
        key = case.spec.id.replace("/", "-")
        plain_folder, _, _ = build_prepared(case, root / "plain" / key)
        marked_folder, _, _ = _plant(case, root / "marked" / key)
        out[case.spec.id] = (Running(plain_folder, case.spec, root / "tmp-plain" / key),
                             Running(marked_folder, case.spec, root / "tmp-marked" / key))
    yield out
    for plain, marked in out.values():
        plain.server.close()
        marked.server.close()


#: One client for the whole module (kept-alive connections, as an agent's loop would use).
CLIENT = httpx.Client(timeout=60)


def _post(url: str, route: str, content: bytes, name: str = "submission.csv",
          **data: str) -> httpx.Response:
    return CLIENT.post(f"{url}/{route}", files={"file": (name, content)}, data=data)


def _postable(sub: Path) -> bool:
    """Whether an agent's curl would send the file's bytes as grading reads them: a regular
    file, not a link nor reached through one, and no other name for it."""
    try:
        st = os.lstat(sub)
    except OSError:
        return False
    return (stat.S_ISREG(st.st_mode) and st.st_nlink == 1
            and os.path.realpath(sub) == os.path.abspath(sub))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_corpus_case_posted_gets_gradings_verdict_and_no_marker(
    case: CorpusCase, tmp_path: Path, servers: dict[str, tuple[Running, Running]]
) -> None:
    _, answers, sub = build_prepared(case, tmp_path)
    report = grade_submission(sub, case.spec, answers)
    plain, marked = servers[case.spec.id]
    if not _postable(sub):
        # links, FIFOs, folders, hard links, no file: a client posts bytes, not a path; the
        # path-based checks are compared in test_validate_public.py
        assert not report.valid_submission
        return
    if sub.stat().st_size > plain.server.cap:  # the sparse multi-gigabyte files
        status, body = _expect_post(plain.url, sub.stat().st_size)
        assert status == 413 and "size cap" in body["details"]
        assert not report.valid_submission and "size cap" in report.errors[0]
        return
    content = sub.read_bytes()
    name = sub.name
    answers_seen = []
    for server in (plain, marked):
        full = _post(server.url, "verdict", content, name)
        short = _post(server.url, "validate", content, name)
        assert full.status_code == short.status_code == 200, full.text
        answers_seen.append((full.content, short.content))
    (full_body, short_body), marked_bodies = answers_seen
    verdict = Verdict.model_validate_json(full_body)
    assert (verdict.valid_submission, verdict.errors) == (report.valid_submission, report.errors)
    assert json.loads(short_body) == {"result": verdict.result_text()}
    assert (full_body, short_body) == marked_bodies  # the answers change no byte
    for body in (*marked_bodies, *marked.logs):
        text = body.decode() if isinstance(body, bytes) else body
        assert MARK not in text and MARK_NUMBER not in text
    assert not plain.uploads and not marked.uploads  # nothing kept after the answer


def test_every_case_but_those_no_client_can_post_is_posted(tmp_path: Path) -> None:
    """The corpus cases the test above does not post are exactly the paths that are not one
    regular file of their own (links, FIFOs, folders, no file), and the ones over the size
    cap are exactly the sparse multi-gigabyte files."""
    import re

    not_posted, oversize = [], []
    for n, case in enumerate(CASES):
        _, _, sub = build_prepared(case, tmp_path / str(n))
        if not _postable(sub):
            not_posted.append(case.id)
        elif sub.stat().st_size > 256 * 1024**2:
            oversize.append(case.id)
    fs_only = re.compile(r"symlink|fifo|directory|hard_link|no_file|linked_into_private")
    assert not_posted and all(fs_only.search(c) for c in not_posted), not_posted
    assert [c for c in (x.id for x in CASES) if fs_only.search(c)] == not_posted
    assert oversize and all(re.search(r"gigabyte|gib", c) for c in oversize), oversize
    assert len(CASES) - len(not_posted) - len(oversize) >= 400


def _expect_post(url: str, size: int, body: bytes = b"", run: str = "") -> tuple[int, dict]:
    """A POST declaring ``size`` bytes with ``Expect: 100-continue`` (curl's way for large
    files): the status and JSON body the server answers before any body byte is sent."""
    host, port = url.removeprefix("http://").split(":")
    boundary = "x" * 16
    head = (f"POST /validate HTTP/1.1\r\nHost: {host}\r\nContent-Length: {size}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            f"Expect: 100-continue\r\n{f'X-Run: {run}' + chr(13) + chr(10) if run else ''}\r\n")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(head.encode())
        reply = b""
        while b"\r\n\r\n" not in reply or (b"HTTP/1.1 100" in reply.split(b"\r\n")[0]
                                            and not body):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
            if reply.startswith(b"HTTP/1.1 100"):
                return 100, {}
        status = int(reply.split(b" ", 2)[1])
        rest = reply.split(b"\r\n\r\n", 1)[1]
        length = int(next(line.split(b":")[1] for line in reply.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))
        while len(rest) < length:
            rest += s.recv(65536)
    return status, json.loads(rest)


# --- the routes ------------------------------------------------------------------------------


def table_server(tmp_path: Path, **limits: object) -> Running:
    """A server of the table's value task, with the given limits."""
    case = next(c for c in CASES if c.id == "table-13-rows_shuffled")
    folder, _, _ = build_prepared(case, tmp_path / "task")
    return Running(folder, case.spec, tmp_path / "srv", **limits)


@pytest.fixture()
def one(tmp_path: Path) -> Iterator[Running]:
    """A server of the table's value task, with small limits."""
    running = table_server(tmp_path, max_bytes=64 * 1024, body_seconds=3.0, header_seconds=1.0)
    yield running
    running.server.close()


def _perfect(one: Running) -> bytes:
    return (one.server.task.public_dir / "sample_submission.csv").read_bytes()


def test_health_and_the_error_shapes_are_mle_benchs(one: Running) -> None:
    health = httpx.get(one.url + "/health")
    assert (health.status_code, health.json()) == (200, {"status": "running"})
    ok = _post(one.url, "validate", _perfect(one))
    assert (ok.status_code, ok.json()) == (200, {"result": "Submission is valid."})
    bad = _post(one.url, "validate", b"id,y\n")
    assert bad.status_code == 200 and bad.json()["result"].startswith("Submission invalid! ")
    no_file = httpx.post(one.url + "/validate", files={"other": ("a.csv", b"x")})
    not_a_form = httpx.post(one.url + "/validate", content=b"id,y\n")
    for resp in (no_file, not_a_form):
        assert resp.status_code == 400 and set(resp.json()) == {"error", "details"}
        assert 'field "file"' in resp.json()["details"]
    assert httpx.get(one.url + "/validate").status_code == 405
    assert httpx.get(one.url + "/nothing-here").status_code == 404


def test_a_bug_is_a_500_in_mle_benchs_shape_without_details(
    one: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError(f"planted {MARK}")

    monkeypatch.setattr("tambench.runs.server.app.check_submission", broken)
    resp = _post(one.url, "validate", _perfect(one))
    assert resp.status_code == 500
    assert resp.json() == {"error": "An unexpected error occurred.",
                           "details": "RuntimeError; see the validation server's log"}
    assert any("planted" in line for line in one.logs)


def test_an_upload_over_the_cap_is_refused_before_its_body_is_sent(one: Running) -> None:
    status, body = _expect_post(one.url, 2 * 1024**3, run="a/b/c")
    assert status == 413 and body["error"] == "submission too large"
    assert "2.0 GiB; expected at most 64.0 KiB" in body["details"]
    assert _expect_post(one.url, 1000, body=b"x")[0] == 100  # under the cap: go on


def test_a_streamed_upload_over_the_cap_is_cut_at_the_cap(one: Running) -> None:
    sent = 0

    def endless() -> Iterator[bytes]:
        nonlocal sent
        boundary = b"--b0undary\r\n"
        yield boundary + b'Content-Disposition: form-data; name="file"; filename="s.csv"\r\n\r\n'
        while sent < 64 * 1024**2:
            sent += 1024**2
            yield b"1," * (1024**2 // 2)

    try:
        resp = httpx.post(one.url + "/validate", content=endless(), timeout=30,
                          headers={"Content-Type": "multipart/form-data; boundary=b0undary"})
        assert resp.status_code == 413 and "size cap" in resp.json()["details"]
    except httpx.TransportError:  # the server closed the connection while we were sending
        pass
    assert sent < 64 * 1024**2  # refused long before the end
    assert not one.uploads
    assert any("413 submission too large" in line for line in one.logs)


def test_a_client_sending_a_byte_a_second_is_cut_off_and_stalls_no_one(one: Running) -> None:
    host, port = one.url.removeprefix("http://").split(":")
    outcome: dict[str, object] = {}

    def slow() -> None:
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                      b"Content-Type: multipart/form-data; boundary=zz\r\n\r\n")
            try:
                for b in b"--zz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n1,2":
                    s.sendall(bytes([b]))
                    time.sleep(0.25)
            except OSError:
                pass
            outcome["reply"] = s.recv(65536)
            outcome["slow_done"] = time.monotonic()

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.3)
    ok = _post(one.url, "validate", _perfect(one))
    fast_done = time.monotonic()
    thread.join(20)
    assert ok.json() == {"result": "Submission is valid."}
    assert b" 408 " in outcome["reply"] and b"upload too slow" in outcome["reply"]
    assert fast_done < outcome["slow_done"]  # answered while the slow client was still sending


def test_a_client_trickling_its_headers_is_disconnected(one: Running) -> None:
    host, port = one.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        closed = False
        for b in b"POST /validate HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40:
            try:
                s.sendall(bytes([b]))
            except OSError:
                closed = True
                break
            s.settimeout(0.1)
            try:
                if s.recv(100) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
            except OSError:  # a reset (our unread bytes were still in the server's buffer) is a drop too
                closed = True
                break
        assert closed


def test_uploads_live_in_a_private_folder_and_are_gone_after_the_answer(
    one: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tambench.runs.server.app as app_module

    seen: list[tuple[int, int, int, Path]] = []
    real = app_module.check_submission

    def watching(path: Path, *args: object, **kw: object) -> object:
        seen.append((stat.S_IMODE(os.stat(path).st_mode), stat.S_IMODE(os.stat(path.parent)
                                                                         .st_mode),
                     stat.S_IMODE(os.stat(path.parent.parent).st_mode), path))
        return real(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(app_module, "check_submission", watching)
    _post(one.url, "validate", _perfect(one), name="../../../etc/evil.csv")
    ((file_mode, request_mode, root_mode, path),) = seen
    assert (file_mode, request_mode, root_mode) == (0o600, 0o700, 0o700)
    assert path.parent.parent == one.server.root and path.name == "submission.csv"
    assert not path.exists() and not one.uploads
    assert not (one.tmp.parent / "etc").exists()


def test_validations_are_counted_per_run_beside_the_run(one: Running) -> None:
    good, bad = _perfect(one), b"id,y\n"
    _post(one.url, "validate", good, run="agent1/value/r1")
    _post(one.url, "verdict", bad, run="agent1/value/r1")
    httpx.post(one.url + "/validate", files={"file": ("s.csv", good)},
               headers={"X-Run": "agent1/value/r1"})
    _expect_post(one.url, 10**9, run="agent1/value/r1")  # refused: too large
    _post(one.url, "validate", good, run="agent2/value/r9")
    runs = one.tmp / "runs"
    counts = json.loads((runs / "agent1/value/r1/validations.json").read_text())
    assert {k: counts[k] for k in ("run", "task_id", "requests", "validations", "valid",
                                   "invalid", "refused")} == {
        "run": "agent1/value/r1", "task_id": "test/value", "requests": 4, "validations": 3,
        "valid": 2, "invalid": 1, "refused": 1}
    assert json.loads((runs / "agent2/value/r9/validations.json").read_text())["valid"] == 1
    assert sorted(p.name for p in (runs / "agent1/value/r1").iterdir()) == ["validations.json"]


def test_a_restarted_server_continues_a_runs_count(one: Running, tmp_path: Path) -> None:
    _post(one.url, "validate", _perfect(one), run="a/value/r1")
    again = Running(one.server.task.public_dir.parent, one.server.task.spec, one.tmp)
    try:
        _post(again.url, "validate", _perfect(one), run="a/value/r1")
    finally:
        again.server.close()
    counts = json.loads((one.tmp / "runs/a/value/r1/validations.json").read_text())
    assert (counts["requests"], counts["valid"]) == (2, 2)


def test_hostile_run_names_are_counted_inside_the_runs_folder_or_refused(one: Running) -> None:
    """Run names an agent chooses (tests/grading/hostile.py): never a folder outside the runs
    folder, never a 500."""
    runs = (one.tmp / "runs").resolve()
    names = [*ODD_NAMES, BYTES_NAME.decode("latin-1"), "../../escape", "/abs/path", "a/../../b",
             "a\x00b", "x/" * 10, ".hidden/r1", "ok/name/r1"]
    for name in names:
        resp = httpx.post(one.url + "/validate", files={"file": ("s.csv", _perfect(one))},
                          data={"run": name})
        assert resp.status_code in (200, 400), (name, resp.text)
        if resp.status_code == 400:
            assert "run name" in resp.json()["details"]
    assert "ok/name/r1" in {str(p.parent.relative_to(runs))
                            for p in runs.rglob("validations.json")}
    for path in runs.rglob("*"):
        assert path.resolve().is_relative_to(runs)
    assert not (one.tmp / "escape").exists() and not Path("/abs/path").exists()


def test_curl_as_mle_benchs_script_calls_it(one: Running, tmp_path: Path) -> None:
    """validate_submission.sh runs ``curl -X POST -F "file=@FILE" URL``."""
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    sub = tmp_path / "submission.csv"
    sub.write_bytes(_perfect(one))
    out = subprocess.run([curl, "-s", "-X", "POST", "-F", f"file=@{sub}", one.url + "/validate"],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    assert json.loads(out) == {"result": "Submission is valid."}


# --- where it listens ---------------------------------------------------------------------------


def test_only_loopback_addresses_are_served_unless_asked_for(tmp_path: Path) -> None:
    for host in ("127.0.0.1", "::1", "localhost"):
        check_bind_address(host, allow_remote=False)
    for host in ("0.0.0.0", "", "::", "192.0.2.7"):
        with pytest.raises(ConfigError, match="not a loopback address"):
            check_bind_address(host, allow_remote=False)
        check_bind_address(host, allow_remote=True)
    case = CASES[0]
    folder, _, _ = build_prepared(case, tmp_path)
    with pytest.raises(ConfigError, match="refusing to listen on '0.0.0.0'"):
        ValidationServer(public_task(case.spec, task_dir=folder), ServerConfig(host="0.0.0.0"))


def _catalogue(tmp_path: Path) -> tuple[CorpusCase, list[str]]:
    from tambench.schema.io import save_taskspec

    case = CASES[0]
    build_prepared(case, tmp_path)
    task_file = tmp_path / "catalogue" / case.spec.platform / case.spec.slug / "task.json"
    task_file.parent.mkdir(parents=True)
    save_taskspec(case.spec, task_file)
    return case, ["serve", "validate", "--task", case.spec.id, "--catalogue",
                  str(tmp_path / "catalogue"), "--data-dir", str(tmp_path / "data")]


def test_the_command_refuses_a_non_loopback_address_from_settings_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, argv = _catalogue(tmp_path)
    started: list[ServerConfig] = []
    monkeypatch.setattr(ValidationServer, "serve_forever",
                        lambda self, on_ready=None: started.append(self.config))
    monkeypatch.setenv("TAMBENCH_SERVE_HOST", "0.0.0.0")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "refusing to listen on '0.0.0.0' (from setting serve_host" in err
    assert "give --host on the command line" in err and not started
    # given explicitly, it is served, with a warning
    assert main([*argv, "--host", "0.0.0.0", "--port", "0"]) == 0
    assert started[-1].host == "0.0.0.0" and started[-1].allow_remote
    monkeypatch.delenv("TAMBENCH_SERVE_HOST")
    assert main([*argv, "--port", "0"]) == 0
    assert (started[-1].host, started[-1].port, started[-1].allow_remote) == (
        "127.0.0.1", 0, False)
    assert main([*argv[:2], *argv[2:]]) == 0 and started[-1].port == 5000  # MLE-bench's port


def test_the_command_serves_until_terminated(tmp_path: Path) -> None:
    """The real command, in a process: it says where it listens, answers, and stops on
    SIGTERM (docker stop) with exit 0 and its temporary folder removed."""
    import signal
    import sys

    _, argv = _catalogue(tmp_path)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "tambench.cli.main", *argv, "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        while first and not first.startswith("validating submissions for "):
            first = proc.stderr.readline()
        assert first.startswith("validating submissions for test/value at http://127.0.0.1:")
        url = first.split(" at ")[1].split("/validate")[0]
        assert httpx.get(url + "/health").json() == {"status": "running"}
        assert list(tmp_path.glob("tambench-validate-*"))
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(30)
    assert rc == 0
    assert not list(tmp_path.glob("tambench-validate-*"))


def test_the_hostile_batch_submissions_posted_get_gradings_verdict(tmp_path: Path) -> None:
    """tests/grading/hostile.py's run kinds, one of each: what a client can post of them (an
    echo bomb, a CR hiding a formula, a 3 GB file, odd folder names) gets grading's verdict;
    the rest are paths no client posts (links, FIFOs, folders, unreadable folders)."""
    from tests.grading.hostile import HOSTILE_KINDS, build_hostile_batch
    from tests.grading.public_tasks import write_public

    batch = build_hostile_batch(tmp_path / "batch", len(HOSTILE_KINDS), hostile_share=1.0)
    assert sorted(batch.hostile) == sorted(HOSTILE_KINDS)
    spec = CASES[0].spec  # test/value, the batch's task of every hostile run
    folder = batch.data / "test" / "value"
    answers = folder / "private" / "answers.csv"
    write_public(spec, folder)
    running = Running(folder, spec, tmp_path / "srv")
    posted = 0
    try:
        for sub in sorted(batch.runs.rglob("submission.csv")):
            if not _postable(sub):
                continue
            report = grade_submission(sub, spec, answers)
            if sub.stat().st_size > running.server.cap:
                assert _expect_post(running.url, sub.stat().st_size)[0] == 413
                assert not report.valid_submission
            else:
                verdict = Verdict.model_validate_json(
                    _post(running.url, "verdict", sub.read_bytes(), sub.name).content)
                assert (verdict.valid_submission, verdict.errors) == (
                    report.valid_submission, report.errors)
            posted += 1
    finally:
        running.server.close()
    assert posted >= 6


def test_a_client_that_hangs_up_mid_upload_leaves_nothing_and_no_error(one: Running) -> None:
    host, port = one.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n"
                  b"Content-Type: multipart/form-data; boundary=zz\r\n\r\n"
                  b'--zz\r\nContent-Disposition: form-data; name="file"\r\n\r\nid,y\n1,2\n')
        time.sleep(0.2)
    time.sleep(0.5)
    ok = _post(one.url, "validate", _perfect(one))
    assert ok.json() == {"result": "Submission is valid."}
    assert not one.uploads
    assert not any("internal error" in line for line in one.logs), one.logs
    assert any("400 upload interrupted" in line for line in one.logs), one.logs


def test_counts_that_cannot_be_written_do_not_cost_the_answer(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.id == "table-13-rows_shuffled")
    folder, _, _ = build_prepared(case, tmp_path / "task")
    running = Running(folder, case.spec, tmp_path / "srv")
    (tmp_path / "srv" / "runs").write_text("a file where the runs folder should be")
    try:
        resp = _post(running.url, "validate", _perfect(running), run="a/b/c")
    finally:
        running.server.close()
    assert resp.json() == {"result": "Submission is valid."}
    assert any("validations of run 'a/b/c' not written" in line for line in running.logs)


def test_without_the_server_extra_the_install_line_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from tambench.errors import MissingDependencyError

    case = CASES[0]
    folder, _, _ = build_prepared(case, tmp_path)
    monkeypatch.setitem(sys.modules, "aiohttp.web", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'tambench\[server\]'"):
        ValidationServer(public_task(case.spec, task_dir=folder), ServerConfig(port=0))


@pytest.mark.parametrize("name", ["submission.csv.gz", "submission.zip", "submission.csv"])
def test_a_compressed_upload_is_read_as_grading_reads_a_file_of_that_name(
    name: str, one: Running, tmp_path: Path
) -> None:
    """Grading reads a compressed submission by its name (``.gz``, ``.zip``), so an upload
    keeps its suffix; the verdict is grading's on a file of the same name."""
    import gzip
    import io
    import zipfile

    plain = _perfect(one)
    if name.endswith(".gz"):
        content = gzip.compress(plain)
    else:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("submission.csv", plain)
        content = buf.getvalue()
    sub = tmp_path / name
    sub.write_bytes(content)
    task = one.server.task
    answers = task.answers_path
    assert answers is not None
    report = grade_submission(sub, task.spec, answers)
    verdict = Verdict.model_validate_json(_post(one.url, "verdict", content, name).content)
    assert (verdict.valid_submission, verdict.errors) == (report.valid_submission, report.errors)
