"""``tambench serve validate``: MLE-bench's validation server, answered from public files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from tambench.cli.validate_cmd import (
    CATALOGUE_OPTION,
    DATA_DIR_OPTION,
    PUBLIC_DIR_OPTION,
    SAMPLE_OPTION,
    TASK_OPTION,
)

serve_app = typer.Typer(help="Servers for agents' containers.", no_args_is_help=True)


@serve_app.command("validate")
def serve_validate(
    task: str = TASK_OPTION,
    data_dir: Path | None = DATA_DIR_OPTION,
    catalogue: Path | None = CATALOGUE_OPTION,
    public_dir: Path | None = PUBLIC_DIR_OPTION,
    sample: str | None = SAMPLE_OPTION,
    host: str | None = typer.Option(
        None, "--host", help="Address to listen on [default: 127.0.0.1 (setting serve_host, "
        "loopback only)]. An address beyond this machine (0.0.0.0, a LAN address) is served "
        "only when given here."),
    port: int | None = typer.Option(None, "--port", min=0, max=65535,
                                    help="Port [default: 5000, MLE-bench's; 0: any free]."),
    runs_dir: Path | None = typer.Option(
        None, "--runs-dir", help="Count validations per run in <D>/<run>/validations.json."),
    run: str | None = typer.Option(
        None, "--run", help="The run a request counts for when it names none (form field "
        "`run` or header X-Run), e.g. agent/task/run-1."),
    max_upload_mb: float | None = typer.Option(
        None, "--max-upload-mb", min=0.001, help="Largest upload in MiB [default: the task's "
        "submission size cap, at least 256 MiB]."),
    upload_timeout: float = typer.Option(60.0, "--upload-timeout", min=0.1,
                                         help="Seconds an upload may take to arrive."),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.1,
                                         help="Seconds the request headers may take."),
    workers: int = typer.Option(2, "--workers", min=1, max=64,
                                help="Submissions validated at once."),
) -> None:
    """Answer POST /validate and GET /health as MLE-bench's grading server does, without the
    answers: the verdict and every problem, never a score."""
    from tambench.cli._echo import echo
    from tambench.grading.verdict import resolve_public_task
    from tambench.runs.server.config import UploadLimits, is_loopback
    from tambench.runs.server.run import ValidationServer, describe

    limits = UploadLimits(
        max_bytes=None if max_upload_mb is None else int(max_upload_mb * 1024**2),
        body_seconds=upload_timeout, header_seconds=header_timeout, workers=workers)
    config = _config(host, port, catalogue, data_dir, limits, runs_dir, run)
    resolved = resolve_public_task(task, catalogue=catalogue, data_dir=data_dir,
                                   public_dir=public_dir)
    server = ValidationServer(resolved, config, sample=sample,
                              log=lambda line: echo(line, err=True))

    def ready(srv: ValidationServer) -> None:
        for line in describe(srv):
            echo(line, err=True)
        if not is_loopback(config.host):
            echo(f"warning: listening on {config.host!r}, not a loopback address: any machine "
                 "that reaches this port can validate submissions (never see answers or "
                 "scores)", err=True)

    server.serve_forever(on_ready=ready)
    echo("validation server stopped", err=True)


def _config(host: str | None, port: int | None, catalogue: Path | None, data_dir: Path | None,
            limits: Any, runs_dir: Path | None, run: str | None) -> Any:
    """The server's configuration: an address from the settings must be a loopback one; an
    explicit --host may be any."""
    from tambench.config import load_settings
    from tambench.runs.server.config import ServerConfig, check_bind_address

    settings = load_settings(catalogue=catalogue, data_dir=data_dir)
    chosen = host if host is not None else settings.serve_host
    if host is None:
        check_bind_address(chosen, allow_remote=False,
                           source="setting serve_host (TAMBENCH_SERVE_HOST or the config file)")
    return ServerConfig(host=chosen, port=settings.serve_port if port is None else port,
                        allow_remote=host is not None, runs_dir=runs_dir, run=run,
                        limits=limits)


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(serve_app, name="serve")
