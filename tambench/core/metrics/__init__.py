"""The metric registry: every metric id with its declared direction, value range and input kind.

Importing this package registers every metric. Naming follows scikit-learn: ``*_score`` and
plain names are higher-is-better unless declared otherwise; ``*_error`` / ``*_loss`` lower.
"""

from tambench.core.metrics.base import METRICS, Metric, get_metric, register


def list_metrics() -> list[Metric]:
    """Every registered metric, sorted by id."""
    return [METRICS[k] for k in sorted(METRICS)]


__all__ = ["METRICS", "Metric", "get_metric", "list_metrics", "register"]
