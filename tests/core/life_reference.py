"""A cell-by-cell Game of Life step: the reference the Life metric's tests compare against."""

from __future__ import annotations

import numpy as np


def life_step_by_cells(board: np.ndarray) -> np.ndarray:
    """Conway's rules cell by cell on a wrapping board: an implementation independent of the
    metric's shifted sums."""
    rows, cols = board.shape
    out = np.zeros_like(board)
    for r in range(rows):
        for c in range(cols):
            alive = sum(int(board[(r + dr) % rows, (c + dc) % cols])
                        for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
            out[r, c] = 1 if alive == 3 or (board[r, c] == 1 and alive == 2) else 0
    return out
