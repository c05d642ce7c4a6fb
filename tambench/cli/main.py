"""The ``tambench`` command. Results go to stdout, progress and errors to stderr.

Exit codes: 0 success (an invalid submission is still a graded result), 1 runtime error,
2 usage error, 3 a batch finished with failed items.
"""

from __future__ import annotations

import importlib
import sys

import typer

from tambench import __version__
from tambench.errors import TambenchError

app = typer.Typer(
    name="tambench",
    help="Build ML-agent benchmarks from real competitions, and grade agents' submissions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Command modules; each exposes ``register(app)``. Adding a command group = one line here.
COMMAND_MODULES = (
    "tambench.cli.schema_cmd",
    "tambench.cli.leaderboard_cmd",
    "tambench.cli.rank_cmd",
    "tambench.cli.demo_cmd",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tambench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """tambench: competitions in, graded agents out."""


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning our own errors into a message and exit code 1."""
    try:
        rc = app(args=argv, standalone_mode=False)
    except TambenchError as exc:
        from tambench.cli._console import err_console

        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
        return 1
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        return 1
    except SystemExit as exc:  # click usage errors in non-standalone mode
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    except Exception as exc:  # noqa: BLE001 - only to map click's usage errors to exit 2
        import click

        if isinstance(exc, click.exceptions.UsageError):
            exc.show()
            return 2
        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            return exc.exit_code
        raise
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
