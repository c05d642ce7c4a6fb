"""validation: is a submission well formed, and which prediction goes with which answer row?

This room takes a submission file and a task's answers (or its public reference) and returns
either every problem found, naming each, or the predictions aligned to the answers' rows, ready
for a metric. It never scores and never ranks (that is :mod:`tambench.grading`); grading, the
validation server (:mod:`tambench.runs.server`) and ``tambench validate`` call it. The entry
points are in :mod:`.validate`. A submission meets the modules in this order, each once:

* :mod:`.loading` (once per task): the answers, through :mod:`.policies` (what the spec
  declares), the reading layer, :mod:`.truths` (the scored rows' targets and ids) and
  :mod:`.labelsets` (labels and id lists from the task, never the answers), into
  :class:`.answers.Answers`;
* :mod:`.reading`: the file-reading layer (opening, bytes and encodings, CSV layout and body,
  compressed forms), called downward only;
* :mod:`.tabular`: a CSV submission, stage by stage: :mod:`.header`, :mod:`.rows`,
  :mod:`.ids` (with :mod:`.idindex`: ids matched exactly, rows aligned to the answers' order),
  :mod:`.columns` and :mod:`.labels` (one checker per metric input kind for the target values);
* :mod:`.structured` and :mod:`.textfiles`: JSON and line-file submissions;
* :mod:`.reference`: the public reference the validation server checks against;
* :mod:`.arrays` and :mod:`.messages`: arrow-to-numpy helpers and how rows and ids are named.
"""
