"""``tambench run``: run an agent on tasks x seeds in a sandbox, under the harness's limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tambench.cli._catalogue_options import catalogue_root, collection_option_ids

if TYPE_CHECKING:
    from tambench.runs.run import RunsResult

_AGENT = typer.Option(..., "--agent", help="The agent: an MLE-bench agent folder (start.sh and "
                      "config.yaml), or a shell command run in the sandbox.")
_NAME = typer.Option(None, "--name", help="The agent's name in the runs folder [default: the "
                     "folder's or the command's name].")
_AGENT_ID = typer.Option(None, "--agent-id", help="The entry of config.yaml to use when it "
                         "defines several agents.")
_COLLECTION = typer.Option(None, "--collection", help="Run every task of this collection "
                           "(e.g. lite) besides the tasks named.")
_SEEDS = typer.Option(1, "--seeds", min=1, help="Seeds per task (runs 0..N-1).")
_OUT = typer.Option(Path("runs"), "--out", help="Runs folder: <out>/<agent>/<task>/<seed>/.")
_SANDBOX = typer.Option("bubblewrap", "--sandbox", help="bubblewrap, docker or podman.")
_NO_SANDBOX = typer.Option(False, "--no-sandbox", help="Run the agent unprotected, as this "
                           "user (says what that leaves open).")
_ALLOW = typer.Option([], "--allow-host", help="A host (host or host:port) the agent may "
                      "reach through the run's proxy; repeat for several. None: no network.")
_GATEWAY = typer.Option([], "--model-gateway", help="A model API served to the agent in "
                        "plain HTTP, its tokens counted: [NAME=]https://host/base (e.g. "
                        "openai=https://api.openai.com/v1); sets OPENAI_BASE_URL and "
                        "TAMBENCH_GATEWAY_<NAME>. Repeat for several.")
_TIME = typer.Option("8h", "--time-limit", help="Wall clock per run (90, 30m, 8h).")
_MEMORY = typer.Option(None, "--memory", help="Memory per run (e.g. 16G).")
_CPUS = typer.Option(None, "--cpus", help="CPUs per run (e.g. 4, 0.5).")
_PROCS = typer.Option(1024, "--processes", help="Processes and threads alive at once per run.")
_DISK = typer.Option("50G", "--disk", help="Bytes a run may write (e.g. 50G).")
_LOG = typer.Option("100M", "--log-limit", help="Agent output kept per run; more ends the run.")
_GPUS = typer.Option(0, "--gpus", min=0, help="GPUs per run (one device set per run).")
_GPU_DEVICES = typer.Option(None, "--gpu-devices", help="GPU ids to share out, e.g. 0,1,2,3.")
_PARALLEL = typer.Option(1, "--parallel", min=1, help="Runs at once on the local pool (with "
                         "--executor ray and no address: the CPUs of the local Ray started).")
_EXECUTOR = typer.Option("local", "--executor", help="local (process pool), serial or ray.")
_ADDRESS = typer.Option(None, "--executor-address", help="Ray cluster address.")
_PRICES = typer.Option(None, "--prices", help="JSON price table extending the built-in one.")
_GRADE = typer.Option(False, "--grade", help="Grade the runs folder at the end.")
_REPORT = typer.Option(None, "--report", help="With --grade: write the report set here "
                       "[default: <out>-grades beside the runs folder].")
_NO_VALIDATION = typer.Option(False, "--no-validation", help="No validation endpoint.")
_JSON = typer.Option(False, "--json", help="Print the run records as JSON.")


def run(
    tasks: list[str] = typer.Argument(None, help="Task ids or unique slugs (prepared)."),
    agent: str = _AGENT, name: str | None = _NAME, agent_id: str | None = _AGENT_ID,
    collection: str | None = _COLLECTION, seeds: int = _SEEDS, out: Path = _OUT,
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Task catalogue."),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Prepared data folder."),
    sandbox: str = _SANDBOX, no_sandbox: bool = _NO_SANDBOX, allow_host: list[str] = _ALLOW,
    model_gateway: list[str] = _GATEWAY,
    time_limit: str = _TIME, memory: str | None = _MEMORY, cpus: float | None = _CPUS,
    processes: int = _PROCS, disk: str = _DISK, log_limit: str = _LOG, gpus: int = _GPUS,
    gpu_devices: str | None = _GPU_DEVICES, parallel: int = _PARALLEL,
    executor: str = _EXECUTOR, executor_address: str | None = _ADDRESS,
    prices: Path | None = _PRICES, grade: bool = _GRADE, report: Path | None = _REPORT,
    no_validation: bool = _NO_VALIDATION, json_out: bool = _JSON,
) -> None:
    """Run an agent on tasks x seeds, each run sandboxed and limited; rerunning skips finished
    runs. Exit 3 when a run could not be made."""
    from tambench.cli._echo import echo
    from tambench.core.progress import Progress
    from tambench.runs.agents import make_agent
    from tambench.runs.limits import Limits, parse_duration, parse_size
    from tambench.runs.run import run_agents
    from tambench.runs.sandbox import get_sandbox

    names = list(tasks or [])
    if collection is not None:
        names += sorted(collection_option_ids(catalogue_root(catalogue), collection) or ())
    if not names:
        raise typer.BadParameter("name at least one task (or --collection)", param_hint="TASKS")
    chosen = "none" if no_sandbox else sandbox
    for line in get_sandbox(chosen).unprotected():
        echo(f"warning: --no-sandbox leaves unprotected: {line}", err=True)
    limits = Limits(time=parse_duration(time_limit), memory=parse_size(memory, "memory"),
                    cpus=cpus, processes=processes, disk=parse_size(disk, "disk"),
                    log=parse_size(log_limit, "log"), gpus=gpus)
    spec = make_agent(agent, name, agent_id)
    total = len(dict.fromkeys(names)) * seeds
    with Progress("runs", total=total,
                  kept=lambda: "finished runs keep their run.json; rerun to do the rest") as bar:
        result = run_agents(
            [spec], names, seeds=seeds, out=out, catalogue=catalogue, data_dir=data_dir,
            limits=limits, sandbox=chosen, allow_hosts=allow_host, model_gateways=model_gateway,
            executor=executor, executor_address=executor_address, parallel=parallel,
            gpu_devices=[d for d in (gpu_devices or "").split(",") if d.strip()],
            validation=not no_validation, prices=prices, grade=grade,
            on_result=lambda _: bar.advance())
    _report(result, report or out.parent / f"{out.name}-grades", json_out)


def _report(result: RunsResult, report_dir: Path, json_out: bool) -> None:
    from tambench.cli._echo import echo

    records = result.records
    if json_out:
        print(json.dumps(records, indent=2, sort_keys=True))
    else:
        counts = ", ".join(f"{n} {k}" for k, n in result.counts().items())
        echo(f"{len(records)} runs in {result.out} ({result.skipped} already finished): "
             f"{counts}")
    for warning in result.warnings:
        echo(f"warning: {warning}", err=True)
    report = result.report
    if report is not None:
        from tambench.grading.batch import write_batch_outputs

        written = write_batch_outputs(report, report_dir)
        echo(f"graded: {len(report.rows)} runs; report in {written['html'].parent}", err=json_out)
    if any(r.get("state") not in ("done",) for r in records):
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Attach the command."""
    app.command("run")(run)
