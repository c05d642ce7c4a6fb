"""Schema mapping: a competition's page Markdown -> TaskSpec, with evidence for every field.

``map_pages`` is the one entry point. Without ``llm`` the offline rule-based mapper runs (no key,
no network); with ``llm`` a chat model fills the fields, each quote is checked against the
pages, and grading fields are cross-checked with the rules (see
:mod:`tambench.schema.mapping.llm`). Both mappers leave the metric empty, with the page's name
for it and the reason, when no registered id computes it exactly; what was read for grading is
then kept in ``provenance.pending_grading``.

Both mappers read only what a person sees on the pages (:mod:`~tambench.schema.mapping.visible`
removes HTML comments, hidden elements, image alt text and tag attributes first), so text
planted where no reader sees it can neither name the metric nor serve as evidence.

Modules: ``pageio`` (bytes -> text), ``visible`` (what a reader sees), ``markdown`` (sections,
sentences, quote checks),
``headers`` (the submission example), ``metric_terms`` / ``metric_rules`` / ``metric_find``
(the metric), ``fields`` (the descriptive fields), ``rules`` (the offline mapper),
``llm_prompt`` / ``llm`` (the LLM mapper), ``draft`` (draft -> TaskSpec).

Against a real endpoint (any LangChain provider, or an OpenAI-compatible server)::

    export OPENAI_API_KEY=...            # not needed for a local server given by --base-url
    tambench schema map pages/ --id kaggle/spaceship-titanic --llm gpt-4o --json
    tambench schema map page.md --id kaggle/x --llm anthropic:claude-sonnet-4-5
    tambench schema map page.md --id kaggle/x --llm qwen2.5-7b-instruct \\
        --base-url http://127.0.0.1:8000/v1

``bench/bench_mapping.py --llm MODEL [--base-url URL]`` measures a model on the real
descriptions and records its replies for offline replay.
"""

from __future__ import annotations

from pathlib import Path

from tambench.errors import SchemaMappingError
from tambench.schema.mapping.draft import (
    MAPPED_FIELDS,
    Draft,
    MappingResult,
    build_result,
    submission_header_of,
)
from tambench.schema.mapping.markdown import PAGE_KINDS
from tambench.schema.mapping.pageio import check_text
from tambench.schema.mapping.visible import COMMENT, HIDDEN, IMAGE_ALT, visible_text
from tambench.schema.taskspec import make_task_id


def _check_input(pages: dict[str, str], task_id: str) -> None:
    """Refuse a bad task id, unknown page kinds, non-text or oversized pages."""
    platform, _, slug = task_id.partition("/")
    try:
        make_task_id(platform, slug)
    except ValueError as exc:
        raise SchemaMappingError(str(exc)) from None
    unknown = sorted(set(pages) - set(PAGE_KINDS))
    if unknown:
        raise SchemaMappingError(
            f"unknown page kind(s) {unknown}; expected some of {list(PAGE_KINDS)}")
    for kind, text in pages.items():
        if not isinstance(text, str):
            raise SchemaMappingError(f"the {kind} page is {type(text).__name__}, not text")
        check_text(text, f"the {kind} page")


def _visible_pages(pages: dict[str, str], task_id: str) -> tuple[dict[str, str], Draft]:
    """Each page as a reader sees it, and a draft holding a warning per page that held hidden
    text (comments, hidden elements) and a note per page whose images' alt text was dropped.

    Raises:
        SchemaMappingError: no visible page text at all.
    """
    out: dict[str, str] = {}
    remarks = Draft()
    for kind, text in pages.items():
        visible = visible_text(text)
        out[kind] = visible.text
        hidden = visible.summary((COMMENT, HIDDEN))
        if hidden:
            remarks.warnings.append(f"ignored text a reader of the {kind} page does not see: "
                                    f"{hidden}")
        if visible.removed[IMAGE_ALT]:
            remarks.notes.append(f"the {kind} page's images: {visible.summary((IMAGE_ALT,))} "
                                 "not read")
    if not any(t.strip() for t in out.values()):
        hidden = "; all of it hidden from a reader" if remarks.warnings else ""
        raise SchemaMappingError(f"no page text to map for {task_id} (got kinds "
                                 f"{sorted(pages)}{hidden})")
    return out, remarks


def map_pages(
    pages: dict[str, str],
    *,
    task_id: str,
    url: str = "",
    llm: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    strict: bool = False,
    record_reply: Path | None = None,
) -> MappingResult:
    """Map a competition's pages to a TaskSpec.

    Args:
        pages: page kind ("overview", "data", "evaluation", "rules", or "all" for a single
            document) -> the page's Markdown.
        task_id: ``<platform>/<slug>``.
        url: address of the competition's overview page.
        llm: model for the LLM mapper ("provider:model" or a bare OpenAI-compatible name, see
            :mod:`tambench.core.llm`); None runs the offline rule-based mapper.
        base_url: the provider's endpoint (OpenAI-compatible default: ``OPENAI_BASE_URL``).
        api_key_env: environment variable holding the API key (default: the provider's).
        strict: LLM mapper only: raise EvidenceError when any quote is rejected instead of
            dropping the field.
        record_reply: LLM mapper only: also write the model's parsed reply to this file.

    Returns:
        The TaskSpec with its unfilled fields, per-field evidence and the mapper's name.

    Raises:
        SchemaMappingError: no page text, an unknown page kind, a page too large or binary,
            or an unusable model reply.
        EvidenceError: ``strict`` and the model quoted evidence not in the pages.
        ConfigError: ``llm`` is set and the API key variable is empty.

    >>> r = map_pages({"all": "## Evaluation\\nSubmissions are scored on RMSE."},
    ...               task_id="kaggle/demo")
    >>> r.spec.grading.metric, r.mapper, "grading.submission_header" in r.unfilled
    ('rmse', 'rules', True)
    """
    # start-up: saves 101 ms (the rule mapper)
    from tambench.schema.mapping.rules import map_rules

    _check_input(pages, task_id)
    pages, remarks = _visible_pages(pages, task_id)
    rules = map_rules(pages)
    rules.warnings[:0] = remarks.warnings
    rules.notes[:0] = remarks.notes
    if llm is None:
        return build_result(rules, task_id=task_id, url=url, mapper="rules")
    # start-up: saves 78 ms (the LLM mapper)
    from tambench.schema.mapping.llm import map_llm

    draft = map_llm(pages, task_id=task_id, llm=llm, base_url=base_url, api_key_env=api_key_env,
                    rules=rules, strict=strict, record_reply=record_reply)
    return build_result(draft, task_id=task_id, url=url, mapper=f"model:{llm}")


__all__ = ["MAPPED_FIELDS", "Draft", "MappingResult", "map_pages", "submission_header_of"]
