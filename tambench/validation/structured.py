"""Validating whole-file submissions: JSON documents and plain-text line files.

Declared policy read here: ``json_shape`` (``GradingSpec.value_policy``, JSON submissions):
``"mirror"`` (default: every key, list length and leaf type of the answers' document, no extra
keys) or ``"keys"`` (top-level keys only). A metric that declares a ``check`` function knows
its structure better and checks it instead.
"""

from __future__ import annotations

from typing import Any

from tambench.errors import InvalidSubmissionError
from tambench.schema.taskspec import SubmissionFormat
from tambench.validation.answers import Answers, answers_error
from tambench.validation.reading.csvio import decode_text_file
from tambench.validation.reading.files import ErrorFactory, RawFile, submission_error
from tambench.validation.reading.text import MAX_EXAMPLES, format_examples
from tambench.validation.result import ValidatedSubmission
from tambench.validation.textfiles import parse_json, split_lines


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    return "null"


class _ShapeCollector:
    """Collects structural differences by category, with counts and examples."""

    def __init__(self) -> None:
        self.cats: dict[str, tuple[int, list[str]]] = {}

    def add(self, cat: str, example: str) -> None:
        n, ex = self.cats.get(cat, (0, []))
        if len(ex) < MAX_EXAMPLES:
            ex.append(example)
        self.cats[cat] = (n + 1, ex)

    def messages(self) -> list[str]:
        return [
            f"{cat}: {n} {format_examples(ex, n)}" for cat, (n, ex) in self.cats.items()
        ]


def _mirror(ref: Any, sub: Any, where: str, out: _ShapeCollector, depth: int = 0) -> None:
    """Compare the shape (keys, lengths, leaf types) of ``sub`` with the answers' ``ref``."""
    if isinstance(ref, dict):
        if not isinstance(sub, dict):
            out.add("expected an object", f"{where or '<top>'} is a {_type_name(sub)}")
            return
        for k in ref:
            if k not in sub:
                out.add("missing keys", f"{where}/{k}" if where else k)
        for k in sub:
            if k not in ref:
                out.add("unexpected keys", f"{where}/{k}" if where else k)
        for k, v in ref.items():
            if k in sub:
                _mirror(v, sub[k], f"{where}/{k}" if where else k, out, depth + 1)
        return
    if isinstance(ref, list):
        if not isinstance(sub, list):
            out.add("expected a list", f"{where or '<top>'} is a {_type_name(sub)}")
            return
        if len(sub) != len(ref):
            out.add("wrong list lengths", f"{where}: {len(sub)} items, expected {len(ref)}")
            return
        for i, (r, s) in enumerate(zip(ref, sub, strict=True)):
            _mirror(r, s, f"{where}[{i}]", out, depth + 1)
        return
    rt, st = _type_name(ref), _type_name(sub)
    if rt == "number" and st == "number":
        return
    if rt != st:
        out.add(f"expected {rt} values", f"{where} is a {st}")


def validate_structured(raw: RawFile, ans: Answers) -> ValidatedSubmission:
    text = decode_text_file(raw, what="submission")
    check = ans.metric.check
    if check is not None:
        # The metric knows its structure better than a generic comparison of shapes.
        parsed: Any = (
            parse_json(text, "submission", submission_error)
            if ans.fmt == SubmissionFormat.JSON else split_lines(text)
        )
        problems = check(ans.y_true, parsed, **ans.params)
        if problems:
            raise InvalidSubmissionError(list(problems))
        n = len(parsed) if isinstance(parsed, dict | list) else 1
        return ValidatedSubmission(y_pred=parsed, n_rows=n, aligned_by="key")
    if ans.fmt == SubmissionFormat.JSON:
        sub = parse_json(text, "submission", submission_error)
        ref = ans.y_true
        shape = ans.grading.value_policy.get("json_shape", "mirror")
        out = _ShapeCollector()
        if shape == "keys" and isinstance(ref, dict):
            if not isinstance(sub, dict):
                raise InvalidSubmissionError(
                    [f"top level is a {_type_name(sub)}; expected an object keyed by id"]
                )
            _mirror({k: None for k in ref}, {k: None for k in sub}, "", out)
        else:
            if type(ref) is not type(sub) and isinstance(ref, dict | list):
                raise InvalidSubmissionError([
                    f"top level is a {_type_name(sub)}; expected a {_type_name(ref)}"
                ])
            _mirror(ref, sub, "", out)
        if out.cats:
            raise InvalidSubmissionError(out.messages())
        n = len(sub) if isinstance(sub, dict | list) else 1
        return ValidatedSubmission(y_pred=sub, n_rows=n, aligned_by="key")
    lines = split_lines(text)
    if not lines:
        raise InvalidSubmissionError([f"no lines; expected {ans.n_rows} (one per query)"])
    if len(lines) != ans.n_rows:
        raise InvalidSubmissionError(
            [f"{len(lines)} lines; expected {ans.n_rows} (one per query, in the answers' order)"]
        )
    return ValidatedSubmission(y_pred=lines, n_rows=len(lines), aligned_by="position")


def load_structured_answers(raw: RawFile, ans: Answers, what: str = "answers",
                            error: ErrorFactory = answers_error) -> None:
    """Answers of a JSON or line-file task: the parsed document or the list of lines (the
    public reference's sample takes their place for ``validate``: ``what`` and ``error``)."""
    text = decode_text_file(raw, what=what, error=error)
    if ans.grading.submission_format == SubmissionFormat.JSON:
        ans.y_true = parse_json(text, what, error)
        ans.n_rows = len(ans.y_true) if isinstance(ans.y_true, dict | list) else 1
    else:
        ans.y_true = split_lines(text)
        ans.n_rows = len(ans.y_true)
