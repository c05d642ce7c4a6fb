"""cli: a thin typer front end; one module per command group, heavy imports inside commands."""
