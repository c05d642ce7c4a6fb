"""The metric registry: every metric id with its declared direction, value range and input kind.

Looking a metric up (:func:`get_metric`, ``METRICS[...]``) registers every built-in metric.

Naming rule (checked by a test over the whole registry): ids are ``lower_snake_case``; an id
ending in ``_error`` or ``_loss`` is lower-is-better and one ending in ``_score`` is
higher-is-better. Every other id is the metric's common name in the field (``rmse``, ``qwk``,
``map_at_k``): its direction is declared at registration, shown by ``tambench metrics`` and
never guessed from the name.
"""

from tambench.core.metrics.base import METRICS, Metric, get_metric, register


def list_metrics() -> list[Metric]:
    """Every registered metric, sorted by id."""
    return [METRICS[k] for k in sorted(METRICS)]


__all__ = ["METRICS", "Metric", "get_metric", "list_metrics", "register"]
