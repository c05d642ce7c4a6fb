"""Shared rich consoles: results on stdout, progress and errors on stderr."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False)


def print_json(data: Any) -> None:
    """Print strict JSON (NaN and inf refused) on stdout."""
    typer_safe = json.dumps(data, indent=2, allow_nan=False, ensure_ascii=False)
    print(typer_safe)
