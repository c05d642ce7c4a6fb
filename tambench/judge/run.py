"""Judging one solution: constraints -> checkable ones -> cached or fresh verdicts -> result."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tambench.core.llm import ChatConfig, ChatModel, invoke_text, make_chat_model
from tambench.errors import ConfigError, JudgeError, LLMError
from tambench.judge.applicability import split_checkable
from tambench.judge.cache import cache_key, read_cached, verdict_from_cache, write_cached
from tambench.judge.constraints import Constraint, parse_instructions
from tambench.judge.prompt import build_messages, choose_nonce, verdict_json_schema
from tambench.judge.results import ConstraintVerdict, JudgeResult, NotApplicable
from tambench.judge.types import JUDGE_MODES, RAW_REPLY_CHARS, JudgeMode
from tambench.judge.verdicts import read_paper_reply, read_strict_reply
from tambench.schema.taskspec import TaskSpec


@dataclass
class _Run:
    """One judging run: the settings, the code, and the model built on first need."""

    model: str
    config: ChatConfig
    mode: JudgeMode
    code: str
    code_sha: str
    preamble: str
    cache: Path | None
    chat: ChatModel | None = None

    def verdict(self, c: Constraint) -> ConstraintVerdict:
        """The cached verdict on ``c``, else a fresh one (cached when worth keeping)."""
        key = cache_key(self.model, c.text, self.code_sha, mode=self.mode, preamble=self.preamble)
        if self.cache is not None:
            entry = read_cached(self.cache, key)
            if entry is not None:
                return verdict_from_cache(c.number, c.text, entry)
        if self.chat is None:
            self.chat = make_chat_model(self.config)
        verdict = judge_one(self.chat, c, self.code, self.mode, self.preamble)
        if self.cache is not None:
            write_cached(self.cache, key, mode=self.mode, model=self.model, constraint=c.text,
                         code_sha256=self.code_sha, verdict=verdict)
        return verdict


def _constraints_of(spec_or_instructions: TaskSpec | str | Sequence[Constraint]
                    ) -> tuple[list[Constraint], str]:
    if isinstance(spec_or_instructions, TaskSpec):
        parsed = parse_instructions(spec_or_instructions.special_instructions)
        return parsed.constraints, parsed.preamble
    if isinstance(spec_or_instructions, str):
        parsed = parse_instructions(spec_or_instructions)
        return parsed.constraints, parsed.preamble
    return list(spec_or_instructions), ""


def judge_solution(
    spec_or_instructions: TaskSpec | str | Sequence[Constraint],
    code: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    cache_dir: str | Path | None = None,
    mode: JudgeMode = "strict",
    timeout: float = 120.0,
    max_retries: int = 2,
    judge_all: bool = False,
    api_key_env: str | None = None,
) -> JudgeResult:
    """Judge the checkable constraints of a task against one solution's final code.

    Args:
        spec_or_instructions: A TaskSpec (its ``special_instructions`` are parsed), the
            instructions text, or already parsed constraints.
        code: The final solution code (e.g. ``best_solution.py``).
        model: Model reference (``"provider:model"`` or a bare OpenAI-compatible model name,
            see :mod:`tambench.core.llm`); None or "" means no model: every checkable
            constraint is ``not_judged`` and the pass rate is None.
        base_url: The provider's endpoint (OpenAI-compatible: None means ``OPENAI_BASE_URL``
            or OpenAI's).
        cache_dir: Folder of cached verdicts; None disables the cache.
        mode: ``strict`` (structured, checked verdicts) or ``paper`` (the paper's two lines).
        timeout: Seconds per request.
        max_retries: Retries of a failed request (by the client, with backoff).
        judge_all: Judge every constraint, as the paper does, instead of setting aside those
            no code can show (accounts, teams, deadlines, ...).
        api_key_env: Environment variable holding the key (default: the provider's own).

    Returns:
        The verdicts; ``passed``, ``total`` and ``pass_rate`` fill a grading report's
        constraint columns. ``not_applicable`` lists the constraints set aside.

    Raises:
        ConfigError: an unknown mode or provider, or no API key for a remote endpoint.
        JudgeError: the code is not text, or a cache entry is corrupt.
    """
    if mode not in JUDGE_MODES:
        raise ConfigError(f"unknown judge mode {mode!r}; expected one of {list(JUDGE_MODES)}")
    if not isinstance(code, str):
        raise JudgeError(f"code must be text, got {type(code).__name__}")
    constraints, preamble = _constraints_of(spec_or_instructions)
    checkable, set_aside = ((constraints, []) if judge_all else split_checkable(constraints))
    not_applicable = [NotApplicable(number=c.number, text=c.text, category=a.category,
                                    reason=a.reason) for c, a in set_aside]
    code_sha = hashlib.sha256(code.encode("utf-8")).hexdigest()
    if not model:
        verdicts = [ConstraintVerdict(number=c.number, text=c.text, status="not_judged",
                                      problems=["no model configured (set llm_model or --model)"])
                    for c in checkable]
    else:
        run = _Run(model, ChatConfig(model=model, base_url=base_url, api_key_env=api_key_env,
                                     timeout_s=timeout, max_retries=max_retries),
                   mode, code, code_sha, preamble, Path(cache_dir) if cache_dir else None)
        verdicts = [run.verdict(c) for c in checkable]
    return JudgeResult(model=model or None, mode=mode, code_sha256=code_sha, verdicts=verdicts,
                       preamble=preamble, not_applicable=not_applicable)


def judge_one(chat: ChatModel, c: Constraint, code: str, mode: JudgeMode,
              preamble: str) -> ConstraintVerdict:
    """Ask the model about one constraint and read its reply (never a pass unless checked)."""
    nonce = choose_nonce(code)
    messages = [(m["role"], m["content"])
                for m in build_messages(c, code, nonce, mode=mode, preamble=preamble)]
    schema = verdict_json_schema() if mode == "strict" else None
    try:
        content = invoke_text(chat, messages, json_schema=schema, schema_name="constraint_verdict")
    except LLMError as exc:
        return ConstraintVerdict(number=c.number, text=c.text, status="error",
                                 problems=[str(exc)])
    read = (read_strict_reply(content, nonce=nonce, code=code) if mode == "strict"
            else read_paper_reply(content))
    raw = content[:RAW_REPLY_CHARS] if content is not None else None
    return ConstraintVerdict(number=c.number, text=c.text, status=read.status,
                             answer=read.answer, reason=read.reason, cited_lines=read.cited_lines,
                             problems=read.problems, raw_reply=raw)
