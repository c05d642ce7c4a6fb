"""Scoring rules of sibling ML-agent benchmarks, reproduced so one tool can report all of them.

* :mod:`~tambench.protocols.mlagentbench`: MLAgentBench's improve-over-baseline rule and
  the harness variant (``compatible`` reproduces its quirks, ``default`` corrects them).
* :mod:`~tambench.protocols.mlalgo`: MLAlgo-Bench's tolerance pass rules, metric
  functions and the paper's aggregates (nScore, dScore, dTime, EScore).
* :mod:`~tambench.protocols.kagglebench`: KaggleBench's evaluation of repaired
  preprocessing plans, multi-run aggregation and folder aggregates.

Each module documents where it follows the reference and where our default differs; the same
is written up for users in ``docs/protocols/``. Every protocol registers one
:class:`~tambench.protocols.base.SiblingProtocol` in
:data:`~tambench.protocols.base.PROTOCOLS` (``tambench protocol list``).
"""
