"""Threaded HTTP servers on 127.0.0.1 that start and stop promptly (tests, the demo).

``serve_forever``'s default poll interval (0.5 s) makes every ``shutdown()`` wait up to half a
second; a suite that starts many servers pays that each time. These servers poll every 20 ms.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POLL_INTERVAL_S = 0.02


class QuietServer(ThreadingHTTPServer):
    """A threading server that does not print a traceback when a client hangs up."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler], port: int = 0) -> Iterator[QuietServer]:
    """Serve ``handler`` on 127.0.0.1 in a daemon thread while the block runs."""
    server = QuietServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, args=(POLL_INTERVAL_S,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def url_of(server: QuietServer) -> str:
    """``http://127.0.0.1:PORT`` of a running server."""
    return f"http://127.0.0.1:{server.server_address[1]}"
