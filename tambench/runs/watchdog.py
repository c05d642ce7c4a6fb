"""The host-side watchdog of a container run (docker, podman): ends the container when the
harness process running the run dies, however it dies.

A container cannot be handed the supervisor's lifeline pipe (it lives in the engine's
daemon), so this small process holds the pipe's read end instead. It is started in a session
of its own, so that what ends the runner (``kill -9``, Ctrl-C to its process group) does not
end it. It blocks reading the pipe: when the supervisor ends the run normally it writes a byte
first (disarmed) and the watchdog exits without a word to the engine; the end of the file
with nothing read means the supervisor died, and the watchdog ends the container by name
(``kill``, then ``rm -f``; once more after a pause, for a container whose creation was on its
way when the supervisor died). Every engine call has a timeout; failures go to the run's log.

Run as a script by the supervisor (:class:`tambench.runs.supervise.Watchdog`), with the
standard library only: ``watchdog.py ENGINE NAME FD LOG``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

#: How long one call of the engine may take.
CALL_SECONDS = 30.0
#: The pause before the second round (a container created as the supervisor died).
AGAIN_SECONDS = 2.0


def _note(log: str, text: str) -> None:
    try:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"\n[tambench watchdog: {text}]\n")
    except OSError:
        pass


def _call(engine: str, args: list[str], log: str, quiet: bool) -> None:
    try:
        done = subprocess.run([engine, *args], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=CALL_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _note(log, f"`{engine} {' '.join(args)}` failed: {exc}")
        return
    if done.returncode != 0 and not quiet:
        err = done.stderr.decode(errors="replace").strip()[:300]
        _note(log, f"`{engine} {' '.join(args)}` exited with {done.returncode}: {err}")


def end_container(engine: str, name: str, log: str) -> None:
    """Kill and remove the container, twice (the second time quietly)."""
    _note(log, f"the harness process of this run died; ending container {name}")
    _call(engine, ["kill", name], log, quiet=False)
    _call(engine, ["rm", "-f", name], log, quiet=True)
    time.sleep(AGAIN_SECONDS)
    _call(engine, ["rm", "-f", name], log, quiet=True)


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        sys.stderr.write("usage: watchdog.py ENGINE NAME FD LOG\n")
        return 2
    engine, name, fd, log = argv[1], argv[2], int(argv[3]), argv[4]
    disarmed = False
    while True:
        try:
            chunk = os.read(fd, 64)
        except OSError:
            break
        if not chunk:
            break
        disarmed = True
    if not disarmed:
        end_container(engine, name, log)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
