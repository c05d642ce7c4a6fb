"""splits: a competition's raw download becomes a prepared task an agent can be run on.

A task's recipe (:mod:`tambench.schema.splitspec`, data in its task.json) unpacks the download,
picks and transforms its tables (:mod:`.transforms`), splits the official training rows into a
local train and test set by a registered strategy (:mod:`.strategies`: random, grouped, time),
writes ``public/`` (what an agent sees, with the statement it reads: :mod:`.statement`) and
``private/`` (the answers grading reads) atomically (:mod:`.prepare`), and audits the result for
leakage (:mod:`.audit`), quarantining a task that fails (:mod:`.quarantine`).
:mod:`.like_mlebench` makes MLE-bench's own split instead, for studies that move between both.
"""
