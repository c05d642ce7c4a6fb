"""A local fake OpenAI-compatible chat server for offline tests.

It answers ``POST /v1/chat/completions`` with scripted replies, in order, and records every
request so tests can assert what the model was shown. When a request carries ``tools`` and the
scripted reply is a dict, the reply is sent as a tool call to the first tool (how LangChain's
function-calling structured output and agent frameworks receive it); otherwise as message
content (a dict is JSON-encoded). ``GET /v1/models`` lists one model.

    with FakeOpenAIServer(replies=['{"answer": "yes"}']) as srv:
        client = OpenAI(base_url=srv.base_url, api_key="test")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tambench.core.bounded import parse_json

Reply = str | dict[str, Any] | Callable[[dict[str, Any]], str | dict[str, Any]]

#: How often the serving loop checks for a shutdown request. The standard library's 0.5 s
#: made every test that stops a server wait half a second.
POLL_INTERVAL_S = 0.01


class FakeOpenAIServer:
    """Scripted OpenAI-compatible server on 127.0.0.1 (a context manager)."""

    def __init__(self, replies: list[Reply] | None = None, *, default: Reply | None = None,
                 model: str = "fake-model") -> None:
        self.replies: list[Reply] = list(replies or [])
        self.default = default
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        """Start serving on a free port."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list",
                                     "data": [{"id": owner.model, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = parse_json(self.rfile.read(length) or b"{}", "request body")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                body["_headers"] = {k.lower(): v for k, v in self.headers.items()}
                reply = owner._next_reply(body)
                if reply is None:
                    self._send(500, {"error": {"message": "fake server: no scripted reply left"}})
                    return
                self._send(200, owner._completion(body, reply))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        server = self._server
        self._thread = threading.Thread(
            target=lambda: server.serve_forever(poll_interval=POLL_INTERVAL_S), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (returns within about one poll interval)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL to give an OpenAI client."""
        if self._server is None:
            raise RuntimeError("the fake server is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # -- replies -----------------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> str | dict[str, Any] | None:
        with self._lock:
            self.requests.append(body)
            reply = self.replies.pop(0) if self.replies else self.default
        if reply is None:
            return None
        return reply(body) if callable(reply) else reply

    def _completion(self, body: dict[str, Any], reply: str | dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "stop"
        tools = body.get("tools") or []
        if isinstance(reply, dict) and tools:
            name = tools[0].get("function", {}).get("name", "tool")
            message["tool_calls"] = [{
                "id": f"call_{len(self.requests)}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(reply)},
            }]
            finish = "tool_calls"
        else:
            message["content"] = reply if isinstance(reply, str) else json.dumps(reply)
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def prompts(self) -> list[str]:
        """Every message text sent to the server, in order (for assertions)."""
        out: list[str] = []
        for req in self.requests:
            for m in req.get("messages", []):
                c = m.get("content")
                if isinstance(c, str):
                    out.append(c)
                elif isinstance(c, list):
                    out.extend(p.get("text", "") for p in c if isinstance(p, dict))
        return out
