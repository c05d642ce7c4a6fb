"""Agents: a command, or an MLE-bench agent folder used unchanged.

A **command** is run by ``/bin/sh -c`` in the run's workspace (``/home/workspace``), e.g.
``python /home/workspace/../code/solve.py`` or ``my-agent --task /home/data``.

An **MLE-bench agent folder** holds ``start.sh`` and ``config.yaml`` (``<id>: {start:
<folder>/start.sh, env_vars: {...}}``). The adapter copies the folder for each run to
``/home/agent`` (so the agent may write into it, as it does in its container), sets MLE-bench's
variables (``AGENT_DIR``, ``SUBMISSION_DIR``, ``CODE_DIR``, ``LOGS_DIR``) and the entry's
``env_vars``, and runs ``bash /home/agent/<start script>``. MLE-bench's images activate a
conda environment called ``agent`` in start.sh; where the sandbox has no ``conda``, a small
stand-in is put on the PATH whose ``conda shell.bash hook`` prints nothing, whose
``activate``/``deactivate`` do nothing and whose ``conda run -n ENV CMD`` runs CMD: the agent
then uses the harness's Python and its packages. Other ``config.yaml`` keys (``dockerfile``,
``kwargs``) belong to MLE-bench's image build and are not used.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from tambench.errors import ConfigError, InputError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")

#: The conda stand-in put on the PATH of an MLE-bench agent when the sandbox has no conda.
CONDA_SHIM = """#!/bin/sh
# tambench's stand-in for conda inside a sandbox without one: the agent's environment is the
# harness's Python.
case "$1" in
  shell.*) exit 0 ;;
  activate|deactivate) exit 0 ;;
  run)
    shift
    while [ $# -gt 0 ]; do
      case "$1" in
        -n|--name|-p|--prefix) shift 2 ;;
        --no-capture-output|--live-stream) shift ;;
        *) break ;;
      esac
    done
    exec "$@" ;;
  *) echo "conda (tambench stand-in): '$1' is not available in this sandbox" >&2; exit 1 ;;
esac
"""


@dataclass(frozen=True)
class AgentSpec:
    """One agent (picklable)."""

    name: str
    command: tuple[str, ...]
    """What runs inside the sandbox."""
    folder: str | None = None
    """An MLE-bench agent folder, copied to /home/agent for each run."""
    env: dict[str, str] = field(default_factory=dict)

    @property
    def mle_bench(self) -> bool:
        return self.folder is not None


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise ConfigError(f"agent name {name!r} must be letters, digits, '.', '_' or '-' "
                          "(it names the agent's folder of runs)")
    return name


def command_agent(command: str, name: str | None = None) -> AgentSpec:
    """An agent that is a shell command."""
    if not command.strip():
        raise ConfigError("the agent command is empty")
    default = Path(shlex.split(command)[0]).name if shlex.split(command) else "agent"
    return AgentSpec(name=check_name(name or re.sub(r"[^A-Za-z0-9._-]", "-", default)),
                     command=("/bin/sh", "-c", command))


def folder_agent(folder: Path, name: str | None = None, agent_id: str | None = None) -> AgentSpec:
    """An MLE-bench agent folder (start.sh and config.yaml)."""
    import yaml

    start = folder / "start.sh"
    if not start.is_file():
        raise InputError(f"{folder} has no start.sh: not an MLE-bench agent folder")
    entry: dict[str, object] = {}
    config = folder / "config.yaml"
    if config.is_file():
        try:
            doc = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise InputError(f"{config} is not valid YAML: {exc}") from exc
        if not isinstance(doc, dict):
            raise InputError(f"{config} must map agent ids to their settings")
        if agent_id is None and len(doc) > 1:
            raise ConfigError(f"{config} defines {len(doc)} agents ({', '.join(map(str, doc))});"
                              " choose one with --agent-id")
        key = agent_id or next(iter(doc), None)
        if key is not None:
            if key not in doc or not isinstance(doc[key], dict):
                raise ConfigError(f"{config} has no agent {key!r}")
            entry = doc[key]
            agent_id = str(key)
    script = Path(str(entry.get("start", "start.sh"))).name
    if not (folder / script).is_file():
        raise InputError(f"{folder} has no {script} (config.yaml's start script)")
    env = entry.get("env_vars") or {}
    if not isinstance(env, dict):
        raise InputError(f"{config}: env_vars must be a mapping")
    return AgentSpec(name=check_name(name or agent_id or folder.name),
                     command=("bash", f"/home/agent/{script}"), folder=str(folder.resolve()),
                     env={str(k): str(v) for k, v in env.items()})


def make_agent(agent: str, name: str | None = None, agent_id: str | None = None) -> AgentSpec:
    """A folder holding start.sh is an MLE-bench agent; anything else is a command."""
    path = Path(agent).expanduser()
    if path.is_dir():
        return folder_agent(path, name, agent_id)
    return command_agent(agent, name)
