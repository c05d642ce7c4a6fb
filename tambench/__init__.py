"""tambench: turn real ML competitions into a benchmark for ML agents, and grade the agents.

Data flows one way through the stage subpackages:
URL -> ``acquisition`` (pages + leaderboard) -> ``schema`` (TaskSpec) -> ``tasks`` (catalogue,
subsets) -> ``difficulty`` (tier) -> ``splits`` (public/private) -> ``grading`` (report).
"""

__version__ = "0.1.0"
