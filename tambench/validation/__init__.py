"""validation: is a submission well formed, and which prediction goes with which answer row?

This room takes a submission file and a task's answers (or its public reference) and returns
either every problem found, naming each, or the predictions aligned to the answers' rows, ready
for a metric. It never scores and never ranks (that is :mod:`tambench.grading`); grading, the
validation server (:mod:`tambench.runs.server`) and ``tambench validate`` call it. The entry
points are in :mod:`.validate`; the modules, in the order a submission meets them:

* :mod:`.reading`: the file-reading layer (bytes, encodings, CSV layout, compressed forms),
  called downward only;
* :mod:`.answers` and :mod:`.policies`: the private answers, loaded and checked once per task,
  and the task's declared value policies;
* :mod:`.tabular`: a CSV submission's columns and rows;
* :mod:`.ids` and :mod:`.idindex`: ids matched exactly, rows aligned to the answers' order;
* :mod:`.columns` and :mod:`.labels`: one checker per metric input kind for the target values;
* :mod:`.structured` and :mod:`.textfiles`: JSON and line-file submissions;
* :mod:`.reference`: the public reference the validation server checks against;
* :mod:`.arrays` and :mod:`.messages`: arrow-to-numpy helpers and how rows and ids are named.
"""
