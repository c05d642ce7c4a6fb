"""Recipes and raw fixtures for the real downloads: the media group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
"""

from __future__ import annotations

from typing import Any

LAYOUTS: dict[str, dict[str, Any]] = {}
