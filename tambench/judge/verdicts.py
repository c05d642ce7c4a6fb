"""Reading a model's reply into a checked verdict; nothing unclear is ever a pass."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from tambench.core.bounded import parse_json
from tambench.errors import JudgeError
from tambench.judge.types import VerdictStatus


class StrictVerdict(BaseModel):
    """The strict-mode reply: exactly these four fields, exact types."""

    model_config = ConfigDict(extra="forbid", strict=True)

    nonce: StrictStr
    """Must equal the request's nonce (proves the object was written for this request)."""

    answer: Literal["yes", "no"]
    """Whether the code complies."""

    reason: StrictStr
    """One or two sentences."""

    cited_lines: list[StrictInt]
    """Line numbers of the code that support the answer."""


@dataclass(frozen=True)
class ReadVerdict:
    """A reply after parsing and checking."""

    status: VerdictStatus
    answer: Literal["yes", "no"] | None
    reason: str
    cited_lines: list[int]
    problems: list[str]


_FENCE_RE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)
_PAPER_RE = re.compile(r"^Answer:\s*(Yes|No)\s*\nReason:\s*(\S.*)$", re.IGNORECASE)
_VIOLATION_RE = re.compile(
    r"\bviolat(?:e|es|ed|ing|ion|ions)\b"
    r"|\bdo(?:es)?(?: not|n't) compl(?:y|ies)\b"
    r"|\b(?:not|non-?)\s?complian(?:t|ce)\b"
    r"|\bfails? to (?:comply|meet|satisfy|follow|respect|adhere)\b"
    r"|\bdo(?:es)?(?: not|n't) (?:meet|satisfy|follow|respect|adhere to) (?:the|this) "
    r"(?:constraint|requirement|instruction|rule)",
    re.IGNORECASE,
)
_NEGATION_RE = re.compile(r"\b(?:not|never|no|without|nothing)\b[^.;]{0,20}$|n't\s+$",
                          re.IGNORECASE)


def says_violation(reason: str) -> bool:
    """Whether a reason states that the code violates the constraint (a negated "violates",
    as in "does not violate", does not count).

    >>> says_violation("The code violates the constraint."), says_violation("It does not violate it.")
    (True, False)
    """
    for m in _VIOLATION_RE.finditer(reason):
        word = m.group(0).lower()
        if word.startswith("violat") and _NEGATION_RE.search(reason[: m.start()]):
            continue
        return True
    return False


def code_line_numbers(code: str) -> set[int]:
    """Lines holding executable code: not blank, not only comments, not only strings
    (docstrings), not a statement that only binds or prints literal text. Python is tokenized;
    other text falls back to a line rule ("#" and "//" comments).

    >>> sorted(code_line_numbers("'''Doc.'''\\nimport os  # ok\\nnote = 'uses X'\\nprint('done')"))
    [2]
    """
    lines = code.splitlines()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER, tokenize.STRING}
    skip |= {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
             if hasattr(tokenize, n)}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {i for i, ln in enumerate(lines, 1)
                if ln.strip() and not ln.lstrip().startswith(("#", "//"))}
    out: set[int] = set()
    for tok in tokens:
        if tok.type in skip:
            continue
        out.update(range(tok.start[0], tok.end[0] + 1))
    out -= _string_statement_lines(code)
    return {i for i in out if 1 <= i <= len(lines)}


def _is_text(node: ast.expr | None) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))


def _string_statement_lines(code: str) -> set[int]:
    """Lines of statements that only hold text: ``name = "..."``, a bare string, or
    ``print("...")`` with only literal text. They carry words, not behaviour, so they are not
    evidence of compliance."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr):
            continue
        value = node.value
        text_only = _is_text(value) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id == "print" and not value.keywords
            and all(_is_text(a) for a in value.args)
        )
        if text_only:
            out.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return out


def read_strict_reply(content: str | None, *, nonce: str, code: str) -> ReadVerdict:
    """Parse and check a strict-mode reply (see the module docstring for the rules)."""
    if content is None:
        return ReadVerdict("unparseable", None, "", [], ["the reply has no text content"])
    text = content.strip()
    fenced = _FENCE_RE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = parse_json(text, "the reply", error=JudgeError)
    except JudgeError as exc:  # not JSON, or beyond the loader's bounds: never a verdict
        return ReadVerdict("unparseable", None, "", [],
                           ["expected exactly one JSON object {nonce, answer, reason, "
                            f"cited_lines}}, got {content[:120]!r} ({str(exc)[:200]})"])
    try:
        v = StrictVerdict.model_validate(data)
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}"
                         for e in exc.errors())
        return ReadVerdict("unparseable", None, "", [], [f"verdict does not validate: {errs}"])
    if v.nonce != nonce:
        return ReadVerdict("unparseable", None, v.reason, list(v.cited_lines), [
            "the verdict does not carry this request's nonce (text echoed from the code, or "
            "written for another request)"])
    problems: list[str] = []
    n_lines = len(code.splitlines())
    missing = [n for n in v.cited_lines if not 1 <= n <= n_lines]
    if missing:
        problems.append(f"cited line(s) {missing} do not exist (the code has {n_lines} lines)")
    if v.answer == "yes":
        if not v.cited_lines:
            problems.append("a yes must cite the code lines that show compliance; none cited")
        elif not missing and not set(v.cited_lines) & code_line_numbers(code):
            problems.append("a yes cites only comments, strings or blank lines, which are not "
                            "evidence")
        if says_violation(v.reason):
            problems.append("contradictory: the answer is yes but the reason says the code "
                            "violates the constraint")
    status: VerdictStatus = "needs_review" if problems else (
        "pass" if v.answer == "yes" else "fail")
    return ReadVerdict(status, v.answer, v.reason, list(v.cited_lines), problems)


def read_paper_reply(content: str | None) -> ReadVerdict:
    """Parse a paper-mode reply: exactly ``Answer: Yes|No`` then ``Reason: ...``."""
    if content is None:
        return ReadVerdict("unparseable", None, "", [], ["the reply has no text content"])
    text = "\n".join(ln.strip() for ln in content.strip().splitlines() if ln.strip())
    m = _PAPER_RE.match(text)
    if m is None or "\n" in m.group(2):
        return ReadVerdict("unparseable", None, "", [], [
            f"expected two lines 'Answer: Yes|No' and 'Reason: ...', got {content[:120]!r}"])
    answer: Literal["yes", "no"] = "yes" if m.group(1).lower() == "yes" else "no"
    reason = m.group(2).strip()
    if answer == "yes" and says_violation(reason):
        return ReadVerdict("needs_review", answer, reason, [], [
            "contradictory: the answer is yes but the reason says the code violates the "
            "constraint"])
    return ReadVerdict("pass" if answer == "yes" else "fail", answer, reason, [], [])
