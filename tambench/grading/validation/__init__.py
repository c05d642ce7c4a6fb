"""The steps of submission validation, one module per concern.

The entry points are in :mod:`tambench.grading.validate`; the modules here, in the order a
submission meets them:

* :mod:`.answers`: the private answers, loaded and checked once per task;
* :mod:`.tabular`: a CSV submission's columns and rows (format checks in
  :mod:`tambench.grading.csvio`);
* :mod:`.ids` and :mod:`.idindex`: ids matched exactly, rows aligned to the answers' order;
* :mod:`.columns`: one checker per metric input kind for the target values;
* :mod:`.structured` and :mod:`.textfiles`: JSON and line-file submissions;
* :mod:`.arrays` and :mod:`.messages`: arrow-to-numpy helpers and how rows and ids are named.
"""
