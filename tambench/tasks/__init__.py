"""tasks: the catalogue of task folders (a TaskSpec, its leaderboard and provenance each), the
importers that read other benchmarks' layouts into it, and the Lite, Medium and Full subsets
regenerated from its agent-ready tasks; what every later room looks a task up in."""

