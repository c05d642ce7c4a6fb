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
    "tambench.cli.grade_cmd",
    "tambench.cli.difficulty_cmd",
    "tambench.cli.tasks_cmd",
    "tambench.cli.subsets_cmd",
    "tambench.cli.acquire_cmd",
    "tambench.cli.site_cmd",
    "tambench.cli.protocol_cmd",
    "tambench.cli.judge_cmd",
    "tambench.cli.split_cmd",
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
    """Entry point: run the app; our own errors become a message on stderr and exit code 1."""
    try:
        app(args=argv, prog_name="tambench")
    except SystemExit as exc:  # click ends every standalone run this way (usage errors: 2)
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except TambenchError as exc:
        from rich.markup import escape

        from tambench.cli._console import err_console

        err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
