"""Hostile pages and the mappers: only visible text is read, conflicting scoring sentences leave
the metric empty, a header hidden in a comment is never the submission header, and every
pattern run on page text is free of the shapes that make regular expressions super-linear.

Mapping time on megabytes of hostile text is measured by ``bench/bench_mapping.py --hostile``
(not here: tests are not timed).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest

import tambench.schema.mapping as mapping_pkg
from tambench.schema.mapping import MappingResult, map_pages
from tambench.schema.mapping.metric_terms import FamilyTerm
from tambench.schema.mapping.visible import visible_text
from tambench.schema.mapping.wordre import WordPattern
from tambench.testing.fake_openai import FakeOpenAIServer

from .regex_audit import audit

PLANTED = "Submissions are evaluated on accuracy."
REAL = "Submissions are scored on the root mean squared error."


def _page(before: str = "", *, after: str = "", submission: str = "") -> str:
    return (f"## Overview\n\nPredict the target.\n\n## Evaluation\n\n{before}\n\n{REAL}\n\n"
            f"{after}\n\n## Submission File\n\n{submission}The file should have the following "
            "format:\n\n```\nid,target\n1,0.5\n```\n")


def _map(text: str) -> MappingResult:
    return map_pages({"all": text}, task_id="kaggle/hostile")


def _metric(result: MappingResult) -> str:
    return result.spec.grading.metric if result.spec.grading is not None else ""


# --- 9: only what a reader sees is page text -----------------------------------------------


HIDDEN = [
    f"<!-- {PLANTED} -->",
    f"<!--\n{PLANTED}\n-->",
    f"<div hidden>{PLANTED}</div>",
    f'<span aria-hidden="true">{PLANTED}</span>',
    f'<p style="display: none">{PLANTED}</p>',
    f"<p style='visibility:hidden'>{PLANTED}</p>",
    f'<div style="opacity:0">{PLANTED}</div>',
    f'<span style="font-size: 0px">{PLANTED}</span>',
    f'<div class="note sr-only">{PLANTED}</div>',
    f"<template><p>{PLANTED}</p></template>",
    f"<noscript>{PLANTED}</noscript>",
    f"<script>var s = '{PLANTED}';</script>",
    f"<style>/* {PLANTED} */</style>",
    f'<img src="x.png" alt="{PLANTED}">',
    f"![{PLANTED}](x.png)",
    f'<div hidden>\n<div>nested</div>\n{PLANTED}\n</div>',
    f"<DIV HIDDEN>{PLANTED}</DIV>",
]


@pytest.mark.parametrize("hidden", HIDDEN)
def test_text_a_reader_does_not_see_never_names_the_metric(hidden: str) -> None:
    result = _map(_page(hidden))
    assert _metric(result) == "rmse"
    assert PLANTED not in " ".join(result.evidence.values())
    assert not any("two different metrics" in n for n in result.spec.provenance.notes)


def test_hidden_text_is_reported_and_images_are_noted() -> None:
    result = _map(_page(f"<!-- {PLANTED} --><div hidden>x</div>![alt]({PLANTED})"))
    assert any("does not see: 1 HTML comment, 1 hidden element" in w for w in result.warnings)
    assert any("image alt text not read" in n for n in result.spec.provenance.notes)


def test_visible_markup_keeps_its_text_and_code_stays_literal() -> None:
    text = ('<a href="x" title="Scored on AUC">Scored on RMSE</a>, <b>bold</b>, '
            "`<!-- inline code -->`, train/<image_id>.png, <https://x.org/a>\n"
            "```html\n<!-- fenced -->\n<div hidden>shown as code</div>\n```\n<br>after")
    seen = visible_text(text).text
    assert "Scored on RMSE, bold," in seen and "Scored on AUC" not in seen
    assert "`<!-- inline code -->`" in seen and "<image_id>" in seen and "<https://x.org/a>" in seen
    assert "<!-- fenced -->\n<div hidden>shown as code</div>" in seen
    assert seen.endswith("\nafter")


def test_an_unclosed_comment_or_hidden_element_hides_the_rest_of_the_page() -> None:
    assert visible_text("kept <!-- Scored on AUC.\n\nScored on RMSE.").text == "kept "
    assert visible_text("kept <div hidden>\nScored on AUC.\n").text == "kept "


def test_a_page_whose_text_is_all_hidden_is_refused() -> None:
    from tambench.errors import SchemaMappingError

    with pytest.raises(SchemaMappingError, match="no page text.*hidden from a reader"):
        _map(f"<!-- {REAL} -->\n<div hidden>{PLANTED}</div>")


# --- 10: conflicting scoring sentences ------------------------------------------------------


@pytest.mark.parametrize("order", ["planted first", "planted last"])
def test_two_scoring_sentences_naming_different_metrics_leave_it_empty(order: str) -> None:
    page = _page(PLANTED) if order == "planted first" else _page(after=PLANTED)
    result = _map(page)
    assert result.spec.grading is None and "grading.metric" in result.unfilled
    pending = result.spec.provenance.pending_grading
    assert pending is not None and pending.metric_id == ""
    assert PLANTED in pending.reason and REAL in pending.reason
    assert pending.submission_header == ["id", "target"]  # the rest is kept
    assert any(w.startswith("conflicting scoring sentences") for w in result.warnings)


def test_sentences_describing_parts_of_the_score_are_no_conflict() -> None:
    page = _page(after="The score is the mean of the accuracy of each fold. Higher RMSE is "
                       "worse; the Dice coefficient is not used.")
    assert _metric(_map(page)) == "rmse"


def test_restating_the_same_metric_is_no_conflict() -> None:
    assert _metric(_map(_page(after="Submissions are evaluated on RMSE."))) == "rmse"


def test_a_page_stating_its_score_too_often_is_not_trusted() -> None:
    result = _map(_page("\n".join(["Submissions are scored on RMSE."] * 30)))
    assert result.spec.grading is None
    assert "more than 24 sentences" in result.spec.provenance.pending_grading.reason  # type: ignore[union-attr]


# --- 11: a header in a comment --------------------------------------------------------------


def test_a_header_inside_an_html_comment_never_becomes_the_submission_header() -> None:
    planted = "<!--\nThe file should have the following format:\n\n```\nid,accuracy\n1,1\n```\n-->\n"
    result = _map(_page(submission=planted))
    assert result.spec.grading is not None
    assert result.spec.grading.submission_header == ["id", "target"]
    only_hidden = ("## Evaluation\n\nScored on RMSE.\n\n## Submission File\n\n<!--\n```\n"
                   "id,accuracy\n1,1\n```\n-->\nSee the sample file.\n")
    result = _map(only_hidden)
    assert "grading.submission_header" in result.unfilled


# --- the LLM mapper reads the same visible text -----------------------------------------------


def _llm(text: str, reply: dict[str, Any]) -> tuple[MappingResult, FakeOpenAIServer]:
    with FakeOpenAIServer(replies=[reply]) as srv:
        result = map_pages({"all": text}, task_id="kaggle/hostile", llm="fake-model",
                           base_url=srv.base_url)
    return result, srv


def _metric_reply(metric_id: str, evidence: str) -> dict[str, Any]:
    return {"metric": {"metric_id": metric_id, "params": [], "metric_name": metric_id,
                       "reason": "", "evidence": evidence}}


@pytest.fixture()
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-real")


@pytest.mark.usefixtures("_key")
@pytest.mark.parametrize("hidden", [HIDDEN[0], HIDDEN[2], HIDDEN[13]])
def test_the_model_is_shown_only_visible_text_and_cannot_quote_hidden_text(hidden: str) -> None:
    result, srv = _llm(_page(hidden), _metric_reply("accuracy", PLANTED))
    prompt = " ".join(str(m.get("content", "")) for r in srv.requests
                      for m in r.get("messages", []))
    assert REAL in prompt and PLANTED not in prompt
    assert _metric(result) == "rmse"
    assert any("grading.metric rejected: its quote is not in the pages" in w
               for w in result.warnings)


@pytest.mark.usefixtures("_key")
def test_the_model_cannot_pick_one_of_two_conflicting_metrics() -> None:
    result, _ = _llm(_page(PLANTED), _metric_reply("rmse", REAL))
    assert result.spec.grading is None
    assert any("scoring sentences naming different metrics" in w for w in result.warnings)


# --- 12: every pattern run on page text is linear -------------------------------------------


@pytest.mark.parametrize(("pattern", "problem"), [
    (r"!?\[([^\]]*)\]\([^)]*\)", "rescan"),          # unbalanced "[" scanned to the end each time
    (r"^\s{0,3}(#{1,6})\s*(.*?)\s*#*\s*$", "adjacent"),
    (r"\$([^$\n]*\\(?:frac|sum)[^$\n]*)\$", "adjacent"),
    (r"\bshare[\s_]*of[\s_]*(?:\w+\s+){0,4}?correct", "nested"),
    (r"(?:ab)+c", "group"),
])
def test_the_audit_finds_each_shape_that_backtracks(pattern: str, problem: str) -> None:
    assert any(p.startswith(problem) for p in audit(re.compile(pattern)))


@pytest.mark.parametrize("pattern", [
    r"(?:!\[|\[)([^\[\]\n]{0,1000})\]\([^()\n]{0,2000}\)",
    r"(?<=[.!?])\s+(?=[A-Z])",                           # a lookbehind guards the run
    r"\bfor each\s+(\w+)\s+and\s+(\w+)",                 # \b never holds inside a run
    r"^\s*\d+[.)]\s",                                    # anchored
    r"[^\S\n]{2,}|x",                                    # a run at the tail always matches
])
def test_the_audit_accepts_linear_shapes(pattern: str) -> None:
    assert audit(re.compile(pattern)) == []


def _patterns_in(obj: Any, name: str) -> dict[str, re.Pattern[str]]:
    if isinstance(obj, re.Pattern):
        return {name: obj}
    if isinstance(obj, WordPattern):
        return {f"{name} (as written)": obj.exact, f"{name} (scan)": obj.scan}
    if isinstance(obj, FamilyTerm):
        out = _patterns_in(obj.words, f"{name}:{obj.family}")
        return out | (_patterns_in(obj.cased, f"{name}:{obj.family}:cased") if obj.cased else {})
    if isinstance(obj, dict):
        return {k: v for key, item in obj.items() for k, v in _patterns_in(item, f"{name}[{key}]").items()}
    if isinstance(obj, (tuple, list)):
        return {k: v for i, item in enumerate(obj) for k, v in _patterns_in(item, f"{name}[{i}]").items()}
    return {}


def _mapping_patterns() -> list[tuple[str, re.Pattern[str], bool]]:
    """Every pattern of the mapping package: module-level ones (anchored when the module only
    ever calls .match on them) and literal ones passed to re.search / re.sub / ... inside
    functions."""
    found: list[tuple[str, re.Pattern[str], bool]] = []
    for info in pkgutil.iter_modules(mapping_pkg.__path__):
        module = importlib.import_module(f"{mapping_pkg.__name__}.{info.name}")
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        tree = ast.parse(source)
        uses: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                uses.setdefault(node.value.id, set()).add(node.attr)
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr != "compile" and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                flags = re.I if "I" in ast.unparse(node) else 0
                found.append((f"{info.name}:{node.lineno}", re.compile(node.args[0].value, flags),
                              node.func.attr in ("match", "fullmatch")))
        for key, value in vars(module).items():
            anchored = uses.get(key, set()) <= {"match", "fullmatch", "pattern", "flags"}
            found += [(n, p, anchored and bool(uses.get(key)))
                      for n, p in _patterns_in(value, f"{info.name}.{key}").items()]
    return found


def test_every_pattern_the_mapper_runs_on_page_text_is_linear() -> None:
    from tambench.schema.mapping.visible import _closing

    patterns = _mapping_patterns() + [("visible._closing('div')", _closing("div"), False)]
    assert len(patterns) > 150  # the families' terms, cues, headers, markdown, visible text
    problems = {name: p for name, pattern, anchored in patterns
                if (p := audit(pattern, anchored=anchored))}
    assert problems == {}


@pytest.mark.parametrize("unit", ["[", "[a](", "(", "*", "**a _b ", "`", "| a ", "_",
                                  "$\\frac{a} ", "(2020). a ", "<!-- ", "<div hidden>", "# a #",
                                  "Submissions are evaluated on x ", "share of ____ "])
def test_hostile_runs_do_not_hide_the_real_metric(unit: str) -> None:
    body = (unit * (20_000 // len(unit)))
    result = _map(f"## Evaluation\n\n{REAL}\n\n{body}\n")
    assert _metric(result) == "rmse"
