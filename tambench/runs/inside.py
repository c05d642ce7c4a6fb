"""The first process inside a sandbox: local ports to the harness's services, then the agent.

Run as a script by the sandbox's Python (standard library only: nothing of tambench is
mounted inside)::

    python3 inside.py --forward 5000=/run/tambench/validate.sock -- bash start.sh

Each ``--forward PORT=SOCKET`` listens on 127.0.0.1:PORT in the sandbox's own network
namespace and relays every connection to a Unix socket the harness serves outside (the
validation server; the proxy to allowed hosts). The agent runs as a child; this process exits
with its status (128 + signal number when a signal ended it), and the sandbox, with it.

In bubblewrap this process is the PID namespace's first process (``--as-pid-1``): the agent
cannot kill it, it reaps the agent's orphans, and when it exits the kernel kills every process
left in the namespace. ``--lifeline FD`` is the read end of a pipe whose only write end the
supervisor holds: it reads the end of the file when the supervisor dies (``kill -9`` of the
runner included), at any moment, even before the sandbox was fully set up, and this process
then exits at once, ending the sandbox. (bubblewrap's own ``--die-with-parent`` leaves a gap:
a parent that dies while the sandbox is being set up leaves it running.)
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import threading

_CHUNK = 65536
#: Exit status when the supervisor died (the sandbox ends with this process).
ORPHANED = 70


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


def _hold_lifeline(fd: int) -> None:
    """End this process (and so the sandbox) when the supervisor holding the pipe's write end
    dies; at once when it is already gone."""
    ready, _, _ = select.select([fd], [], [], 0)
    if ready:  # only the end of the file makes it readable: nothing is ever written
        os._exit(ORPHANED)

    def wait() -> None:
        try:
            select.select([fd], [], [])
        finally:
            os._exit(ORPHANED)

    threading.Thread(target=wait, daemon=True).start()


def _reap_until(pid: int) -> int:
    """Reap every child (the agent's orphans come to the namespace's first process) until
    ``pid`` ends; returns its wait status."""
    while True:
        died, status = os.waitpid(-1, 0)
        if died == pid:
            return status


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="inside")
    parser.add_argument("--forward", action="append", default=[])
    parser.add_argument("--lifeline", type=int, default=None)
    parser.add_argument("--cwd", default=None)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    if args.lifeline is not None:
        _hold_lifeline(args.lifeline)
    for spec in args.forward:
        port, _, path = spec.partition("=")
        _listen(int(port), path)
    child = subprocess.Popen(args.command, cwd=args.cwd)

    def forward(signum: int, _frame: object) -> None:
        # os.kill, not child.send_signal: that would reap the agent here, out of the loop below
        try:
            os.kill(child.pid, signum)
        except OSError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    code = os.waitstatus_to_exitcode(_reap_until(child.pid))
    sys.stdout.flush()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except FileNotFoundError as exc:
        print(f"tambench sandbox: cannot start the agent: {exc}", file=sys.stderr)
        code = 127
    os._exit(code)
