"""grading: submission -> validate -> score -> rank/medals -> report; judge; protocols."""
