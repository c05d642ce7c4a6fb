"""The first process inside a sandbox: local ports to the harness's services, then the agent.

Run as a script by the sandbox's Python (standard library only: nothing of tambench is
mounted inside)::

    python3 inside.py --forward 5000=/run/tambench/validate.sock -- bash start.sh

Each ``--forward PORT=SOCKET`` listens on 127.0.0.1:PORT in the sandbox's own network
namespace and relays every connection to a Unix socket the harness serves outside (the
validation server; the proxy to allowed hosts). The agent runs as a child; this process exits
with its status (128 + signal number when a signal ended it), and the sandbox, with it.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading

_CHUNK = 65536


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(_CHUNK):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (dst, src):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
    _pipe(client, upstream)


def _listen(port: int, path: str) -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(64)

    def accept() -> None:
        while True:
            client, _ = server.accept()
            threading.Thread(target=_relay, args=(client, path), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="inside")
    parser.add_argument("--forward", action="append", default=[])
    parser.add_argument("--cwd", default=None)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    for spec in args.forward:
        port, _, path = spec.partition("=")
        _listen(int(port), path)
    child = subprocess.Popen(args.command, cwd=args.cwd)

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    status = child.wait()
    sys.stdout.flush()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except FileNotFoundError as exc:
        print(f"tambench sandbox: cannot start the agent: {exc}", file=sys.stderr)
        code = 127
    os._exit(code)
