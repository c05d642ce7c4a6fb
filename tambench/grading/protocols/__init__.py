"""Scoring rules of sibling ML-agent benchmarks, reproduced so one tool can report all of them.

* :mod:`~tambench.grading.protocols.mlagentbench`: MLAgentBench's improve-over-baseline rule and
  the harness variant (``compatible`` reproduces its quirks, ``default`` corrects them).
* :mod:`~tambench.grading.protocols.mlalgo`: MLAlgo-Bench's tolerance pass rules, metric
  functions and the paper's aggregates (nScore, dScore, dTime, EScore).
* :mod:`~tambench.grading.protocols.kagglebench`: KaggleBench's evaluation of repaired
  preprocessing plans, multi-run aggregation and folder aggregates.

Each module documents where it follows the reference and where our default differs; the same
is written up for users in ``docs/protocols/``. Every protocol registers one
:class:`~tambench.grading.protocols.base.SiblingProtocol` in
:data:`~tambench.grading.protocols.base.PROTOCOLS` (``tambench protocol list``).
"""
