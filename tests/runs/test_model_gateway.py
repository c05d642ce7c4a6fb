"""--model-gateway: the agent's SDK talks plain HTTP inside the sandbox to a model API the
harness reaches over verified TLS; JSON and streamed responses are counted and priced, nothing
but the upstream is reachable, and the agent's key is passed on but never recorded."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tambench.errors import ConfigError
from tambench.runs.gateway import CA_ENV, env_name, parse_gateways
from tests.runs.env import host_listener, run_command

KEY = "sk-planted-gateway-secret-0123456789"

AGENT = """
import json, os, sys, time, urllib.request, urllib.error
import httpx, openai
base = os.environ["OPENAI_BASE_URL"]
assert base == os.environ["TAMBENCH_GATEWAY_OPENAI"], base
client = openai.OpenAI()
reply = client.chat.completions.create(model="gpt-4o-mini",
                                       messages=[{"role": "user", "content": "hi"}])
print("model said", reply.choices[0].message.content)
stream = client.chat.completions.create(model="gpt-4o-mini", stream=True,
                                        messages=[{"role": "user", "content": "hi"}])
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        print("chunk", chunk.choices[0].delta.content, time.monotonic(), flush=True)
gateway = base.rsplit("/", 1)[0]
for url in (gateway + "/other/v1/models", gateway + "/"):
    try:
        print("other", urllib.request.urlopen(url, timeout=10).status)
    except urllib.error.HTTPError as exc:
        print("other", exc.code)
    except OSError as exc:
        print("other failed", type(exc).__name__)
r = httpx.get(sys.argv[1], proxy=gateway, timeout=10)
print("absolute", r.status_code)
"""


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (cert, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def _event(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body)}\n\n".encode()


@contextlib.contextmanager
def tls_upstream(folder: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A TLS model API on 127.0.0.1: (its https base URL, the requests it received). A stream
    sends two chunks a second apart, then a usage event."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:  # noqa: N802
            seen.append({"path": self.path, "headers": dict(self.headers)})
            self.send_response(404)
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "headers": dict(self.headers), "body": body})
            base = {"id": "c1", "object": "chat.completion", "created": 1, "model": body["model"]}
            usage = {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}
            self.send_response(200)
            if not body.get("stream"):
                data = json.dumps({**base, "usage": usage, "choices": [{
                    "index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "hello"}}]}).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            chunk = {**base, "object": "chat.completion.chunk"}
            for i, word in enumerate(("first", "second")):
                if i:
                    time.sleep(1.5)
                self.wfile.write(_event({**chunk, "choices": [
                    {"index": 0, "delta": {"content": word}, "finish_reason": None}]}))
                self.wfile.flush()
            self.wfile.write(_event({**chunk, "choices": [], "usage": {
                "prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}))
            self.wfile.write(b"data: [DONE]\n\n")

    cert, key = _certificate(folder)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=lambda: server.serve_forever(poll_interval=0.01),
                              daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def test_gateway_relays_over_tls_streams_and_counts(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with host_listener() as (other_port, hits), tls_upstream(tmp_path) as (url, seen):
        monkeypatch.setenv(CA_ENV, str(tmp_path / "cert.pem"))
        job, record = run_command(
            tmp_path, f"cat > agent.py <<'EOF'\n{AGENT}\nEOF\n"
                      f"python3 agent.py http://127.0.0.1:{other_port}/",
            gateways=parse_gateways([f"openai={url}"]), agent_env={"OPENAI_API_KEY": KEY},
            prices={"gpt-4o-mini": (1e6, 2e6)})
    log = (job.folder / "agent.log").read_text()
    assert "model said hello" in log, log
    times = [float(line.split()[2]) for line in log.splitlines() if line.startswith("chunk")]
    assert [line.split()[1] for line in log.splitlines() if line.startswith("chunk")] \
        == ["first", "second"], log
    assert times[1] - times[0] > 1.0, "the stream was not relayed as it came"
    assert log.count("other 404") == 2 and "absolute 404" in log, log
    assert hits == []
    # only the upstream's chat path was reached, with the agent's own key
    assert [r["path"] for r in seen] == ["/v1/chat/completions"] * 2
    assert all(r["headers"]["Authorization"] == f"Bearer {KEY}" for r in seen)
    assert all(r["headers"]["Host"] == url.split("/")[2] for r in seen)
    usage = record["usage"]["models"]["gpt-4o-mini"]
    assert usage == {"requests": 2, "prompt_tokens": 15, "completion_tokens": 27,
                     "cost_usd": 15 + 2 * 27}
    assert record["model_gateways"] == {"openai": url}
    for path in (tmp_path / "runs").rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


def test_untrusted_certificate_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CA_ENV, raising=False)
    with tls_upstream(tmp_path) as (url, seen):
        job, record = run_command(
            tmp_path, "python3 -c \"import os, urllib.request, urllib.error\n"
                      "try: urllib.request.urlopen(os.environ['OPENAI_BASE_URL'] + '/models')\n"
                      "except urllib.error.HTTPError as e: print('status', e.code, e.read())\"",
            gateways=parse_gateways([f"local={url}"]))
    log = (job.folder / "agent.log").read_text()
    assert "status 502" in log and "CERTIFICATE_VERIFY_FAILED" in log, log
    assert seen == []
    assert record["model_gateways"] == {"local": url}


def test_gateway_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CA_ENV, str(tmp_path / "missing.pem"))
    with pytest.raises(ConfigError, match="no such CA bundle"):
        parse_gateways(["https://api.openai.com/v1"])
    monkeypatch.delenv(CA_ENV)
    assert parse_gateways(["https://api.openai.com/v1/", "my_llm=https://h.example:8443"]) \
        == (("openai", "https://api.openai.com/v1"), ("my_llm", "https://h.example:8443"))
    assert env_name("my-llm") == "TAMBENCH_GATEWAY_MY_LLM"
    for bad, message in (("http://api.openai.com/v1", "https://"),
                         ("https://user:sk-x@api.openai.com/v1", "no credentials"),
                         ("a=https://x.com,a=https://y.com", "https://"),
                         ("Bad Name=https://x.com", "not a unique short name"),
                         ("https://127.0.0.1:8443/v1", "give one as NAME=URL")):
        with pytest.raises(ConfigError, match=message):
            parse_gateways([bad])
    with pytest.raises(ConfigError, match="not a unique"):
        parse_gateways(["a=https://x.com", "a=https://y.com"])
    with pytest.raises(ConfigError, match="needs a sandbox"):
        parse_gateways(["https://api.openai.com/v1"], sandboxed=False)
