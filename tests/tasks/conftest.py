"""Fixtures shared with the difficulty tests (temporary metrics, the Lite catalogue)."""

from tests.difficulty.conftest import lite_catalogue, lite_metrics, temp_metric

__all__ = ["lite_catalogue", "lite_metrics", "temp_metric"]
