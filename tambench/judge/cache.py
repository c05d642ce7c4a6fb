"""Verdicts cached on disk by (prompt version, mode, model, constraint, preamble, code hash)."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tambench.config import fallback_dir, home_dir
from tambench.core.bounded import parse_json
from tambench.errors import JudgeError
from tambench.fileio import write_text_atomic
from tambench.judge.results import ConstraintVerdict
from tambench.judge.types import CACHED_STATUSES, PROMPT_VERSION, JudgeMode


class CachedVerdict(BaseModel):
    """A verdict stored on disk."""

    model_config = ConfigDict(extra="forbid")

    prompt_version: str
    """The prompt version that produced it."""

    mode: str
    """strict or paper."""

    model: str
    """The model name."""

    constraint: str
    """The constraint text."""

    code_sha256: str
    """SHA-256 of the judged code."""

    status: str
    """pass, fail or needs_review."""

    answer: Literal["yes", "no"] | None
    """The model's answer."""

    reason: str
    """The model's reason."""

    cited_lines: list[int]
    """The lines it cited."""

    problems: list[str]
    """Why a verdict needs review."""

    created_at: datetime
    """When it was judged (UTC)."""


def cache_key(model: str, constraint: str, code_sha256: str, *, mode: JudgeMode = "strict",
              preamble: str = "") -> str:
    """SHA-256 naming a verdict: prompt version, mode, model, constraint, preamble, code hash."""
    blob = json.dumps([PROMPT_VERSION, mode, model, constraint, preamble, code_sha256],
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/tambench/judge`` (``~/.cache/tambench/judge`` by default; without a
    home directory, a private temporary folder kept for this process only)."""
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "tambench" / "judge"
    home = home_dir()
    return home / ".cache" / "tambench" / "judge" if home is not None else fallback_dir("judge")


def _cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key[:2] / f"{key}.json"


def read_cached(cache_dir: Path, key: str) -> CachedVerdict | None:
    path = _cache_path(cache_dir, key)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        entry = CachedVerdict.model_validate(parse_json(text, "the entry", error=ValueError))
    except ValueError as exc:  # the loader's refusal or pydantic's ValidationError
        raise JudgeError(f"judge cache entry {path} is corrupt; delete it to re-judge: {exc}") \
            from exc
    if entry.status not in CACHED_STATUSES:
        raise JudgeError(f"judge cache entry {path} has status {entry.status!r}; expected one "
                         f"of {sorted(CACHED_STATUSES)}")
    return entry


def write_cached(cache_dir: Path, key: str, *, mode: JudgeMode, model: str, constraint: str,
                 code_sha256: str, verdict: ConstraintVerdict) -> None:
    """Store a verdict whose status is worth keeping (see ``CACHED_STATUSES``)."""
    if verdict.status not in CACHED_STATUSES:
        return
    entry = CachedVerdict(
        prompt_version=PROMPT_VERSION, mode=mode, model=model, constraint=constraint,
        code_sha256=code_sha256, status=verdict.status, answer=verdict.answer,
        reason=verdict.reason, cited_lines=verdict.cited_lines, problems=verdict.problems,
        created_at=datetime.now(UTC),
    )
    write_text_atomic(_cache_path(cache_dir, key), entry.model_dump_json(indent=2) + "\n")


def verdict_from_cache(number: int, text: str, entry: CachedVerdict) -> ConstraintVerdict:
    """The verdict a cache entry holds, marked as cached."""
    return ConstraintVerdict(number=number, text=text, status=entry.status,
                             answer=entry.answer, reason=entry.reason,
                             cited_lines=entry.cited_lines, problems=entry.problems, cached=True)

