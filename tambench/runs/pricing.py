"""The cost of a run's model traffic: tokens counted by the proxy times a price table.

The built-in table holds a few models' list prices in US dollars per million tokens (input,
output), as their providers published them; prices change, so a run's record keeps the
tokens, and the user's table (a JSON file, ``{"model": {"input": 2.5, "output": 10}}``)
extends or replaces entries. A model's name matches an entry exactly, or by the longest entry
that starts it (``gpt-4o-2024-08-06`` uses ``gpt-4o``). A model with no price gets no cost,
and the record says which models those were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tambench.core.bounded import CONFIG_BOUNDS, load_json
from tambench.errors import ConfigError

#: USD per million tokens (input, output).
BUILT_IN: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "o3-mini": (1.10, 4.40),
}


def load_prices(path: Path | None) -> dict[str, tuple[float, float]]:
    """The built-in table extended by the user's file."""
    table = dict(BUILT_IN)
    if path is None:
        return table
    try:
        doc = load_json(path, error=ConfigError, bounds=CONFIG_BOUNDS)
    except (OSError, ConfigError) as exc:
        raise ConfigError(f"price table {path} cannot be read as JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise ConfigError(f"price table {path} must map model names to prices")
    for model, entry in doc.items():
        try:
            table[str(model)] = (float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise ConfigError(f"price table {path}: {model!r} needs numbers 'input' and "
                              "'output' (USD per million tokens)") from None
    return table


def price_of(model: str, table: dict[str, tuple[float, float]]) -> tuple[float, float] | None:
    """A model's prices (exact name, else the longest entry it starts with).

    >>> price_of("gpt-4o-2024-08-06", BUILT_IN)
    (2.5, 10.0)
    >>> price_of("my-model", BUILT_IN) is None
    True
    """
    if model in table:
        return table[model]
    starts = [k for k in table if model.startswith(k)]
    return table[max(starts, key=len)] if starts else None


def add_costs(record: dict[str, Any], table: dict[str, tuple[float, float]]) -> None:
    """Put the cost (USD) of each model's tokens, and the total, in a record's usage."""
    usage = record.get("usage")
    if not isinstance(usage, dict) or not usage.get("models"):
        return
    total, unpriced = 0.0, []
    for model, row in usage["models"].items():
        price = price_of(model, table)
        if price is None:
            unpriced.append(model)
            continue
        row["cost_usd"] = (row["prompt_tokens"] * price[0]
                           + row["completion_tokens"] * price[1]) / 1e6
        total += row["cost_usd"]
    usage["cost_usd"] = total
    usage["unpriced_models"] = unpriced
