"""What validation hands to scoring."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class ValidatedSubmission:
    """A submission that passed every check: predictions in the answers' row order."""

    y_pred: Any
    n_rows: int
    aligned_by: str
    """"order" (ids already in the answers' order), "join" (matched by id) or "position"."""
