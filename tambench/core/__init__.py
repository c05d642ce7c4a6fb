"""core: what every stage shares. It imports no stage.

* :mod:`~tambench.core.metrics`: the metric registry (ids, direction, range, input kind).
* :mod:`~tambench.core.leaderboard`: leaderboards of every known format -> one normalised table.
* :mod:`~tambench.core.rank`: a score's place on a leaderboard, and Kaggle's medals.
"""
