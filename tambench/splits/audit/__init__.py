"""The leakage audit: can anything in public/ reveal the private test labels?

Checks, each reported as pass / fail / skipped with its findings:

* ``checksums`` - the files still match ``checksums.json``;
* ``ids_disjoint`` - train and test ids share nothing; public test ids equal the answers' ids;
* ``groups_disjoint`` - group splits share no group between train and test;
* ``time_order`` - time splits put every test row after every train row;
* ``no_target_in_public`` - no public file but train.csv (and the sample submission's
  placeholders) has a target column;
* ``no_private_file_in_public`` - no private file is in public/, by name or by content;
* ``duplicate_rows`` - no test row has an identical labelled row in train.csv (byte for byte,
  or after normalising whitespace and case in text columns);
* ``feature_leakage`` - no single column of a public table keyed by the test ids reaches
  AUROC >= 0.99 (|Spearman| >= 0.99 for numeric targets) against the test labels, equals the
  label, or determines it;
* ``row_order`` - the row order of public/test.csv carries no label signal;
* ``id_leakage`` - the test ids do not give their labels away, whatever their shape
  (prefixes, tokens, the label or a hash of it written inside, sort order, numbers);
* ``sample_submission`` - the sample submission has the expected header and ids, validates,
  and scores what prepare recorded.
"""

from tambench.splits.audit.report import AuditReport, CheckResult
from tambench.splits.audit.run import audit_task
from tambench.splits.audit.stats import auroc, spearman

__all__ = ["AuditReport", "CheckResult", "audit_task", "auroc", "spearman"]
