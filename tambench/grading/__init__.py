"""grading: a submission goes in, a grade comes out; many submissions become a report.

:mod:`.grade` walks one submission through the rooms below it (the answers and the submission
checked by :mod:`tambench.validation`), then scores it (:mod:`.score`), places it on the task's
leaderboard with rank and medals (:mod:`.board`, over :mod:`tambench.core.rank`) and writes the
report (:mod:`.report`); :mod:`.resolve` finds a task's spec, answers and board. :mod:`.verdict`
is the same check answered from public files only (what the validation server and ``tambench
validate`` say). :mod:`.batch` grades many runs, with the constraint judge
(:mod:`tambench.judge`) where asked, and writes the report set; :mod:`.check_split` grades a
prepared split's own reference submissions. Nothing here serves agents (:mod:`tambench.runs`)
or reproduces another benchmark's rules (:mod:`tambench.protocols`).
"""

