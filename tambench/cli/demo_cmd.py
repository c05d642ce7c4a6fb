"""``tambench demo``: the main job end to end on bundled data."""

from __future__ import annotations

import typer


def demo() -> None:
    """Run the demo pipeline and print where its report is."""
    from tambench.demo import run_demo

    run_demo()


def register(app: typer.Typer) -> None:
    """Attach the command."""
    app.command("demo")(demo)
