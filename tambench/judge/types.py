"""Names shared by the judge's modules: modes, verdict statuses, the prompt version."""

from __future__ import annotations

from typing import Literal

#: Bumped whenever the prompt or the verdict rules change; part of the cache key.
PROMPT_VERSION = "judge-v1"

JudgeMode = Literal["strict", "paper"]
JUDGE_MODES: tuple[JudgeMode, ...] = ("strict", "paper")

VerdictStatus = Literal["pass", "fail", "needs_review", "unparseable", "error", "not_judged"]

#: Statuses that are stored in the cache (a transport error or an unparseable reply is retried
#: on the next run instead).
CACHED_STATUSES: frozenset[str] = frozenset({"pass", "fail", "needs_review"})

#: Characters of a raw model reply kept in a verdict (for review).
RAW_REPLY_CHARS = 2000
