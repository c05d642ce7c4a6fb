"""Tasks: TaskSpecs on disk -> catalogue, importers, Lite/Medium/Full subsets."""
