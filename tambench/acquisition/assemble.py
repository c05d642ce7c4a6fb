"""Pages, leaderboard and API metadata in, one task folder out (the last step of acquisition).

:func:`assemble_task` maps the pages' Markdown to a TaskSpec (offline rules or an LLM), fills
what the platform's API said (title, dates, metric name), suggests a split when the mapper gave
none, and writes ``<catalogue>/<platform>/<slug>/``: ``pages/<kind>.md``, ``leaderboard.csv``,
``api.json`` (when an API was read) and, last, ``task.json``. Difficulty is not computed here:
the ``acquire`` command (or the demo) computes it through :mod:`tambench.difficulty` once the
folder exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tambench.acquisition.kaggle_client import CompetitionMetadata
from tambench.acquisition.snapshots import sha256_hex
from tambench.core.layout import LEADERBOARD_FILE, PAGES_DIR, TASK_FILE
from tambench.core.leaderboard import Leaderboard, leaderboard_to_csv
from tambench.fileio import write_text_atomic
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import SourcePage, TaskSpec

API_FILE = "api.json"


@dataclass
class Collected:
    """Everything read about one competition, ready to become a task folder."""

    task_id: str
    url: str
    markdown: dict[str, str]
    sources: list[SourcePage]
    leaderboard: Leaderboard
    metadata: CompetitionMetadata | None = None
    metadata_source: SourcePage | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Assembled:
    """What was written."""

    spec: TaskSpec
    unfilled: list[str]
    complete: bool
    problems: list[str]


def first_heading(md: str) -> str:
    """The text of the first ``#`` heading of a Markdown page ('' when there is none)."""
    for line in md.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _api_update(spec: TaskSpec, meta: CompetitionMetadata | None) -> tuple[dict[str, object],
                                                                              list[str]]:
    if meta is None:
        return {}, []
    update: dict[str, object] = {}
    if meta.title:
        update["title"] = meta.title
    if meta.enabled and spec.start_date is None:
        update["start_date"] = meta.enabled
    if meta.deadline and spec.end_date is None:
        update["end_date"] = meta.deadline
    if meta.evaluation_metric and not spec.metric.metric_name:
        update["metric"] = spec.metric.model_copy(update={"metric_name": meta.evaluation_metric})
    note = (f"kaggle API: category {meta.category or '-'}; tags {', '.join(meta.tags) or '-'}; "
            f"metric {meta.evaluation_metric or '-'}; {meta.team_count} teams; "
            f"{len(meta.files)} data files")
    return update, [note]


def _split_note(spec: TaskSpec) -> tuple[object, list[str]]:
    if spec.split is not None:
        return spec.split, []
    # start-up: saves 4 ms (the metric registry)
    from tambench.schema.suggest import suggest_split_spec

    split = suggest_split_spec(spec)
    if split is None:
        return None, []
    return split, [f"split: a default {split.strategy} split of {split.test_size:.0%} was "
                   "suggested from the grading spec; review it before preparing"]


def assemble_task(collected: Collected, folder: Path, *, llm: str | None = None,
                  llm_base_url: str | None = None) -> Assembled:
    """Map, complete and write one task folder (see the module docstring)."""
    # start-up: saves 21 ms (the page mapper)
    from tambench.schema.mapping import map_pages

    pages = {k: v for k, v in collected.markdown.items() if v.strip()}
    mapped = map_pages(pages, task_id=collected.task_id, url=collected.url, llm=llm,
                       base_url=llm_base_url)
    spec = mapped.spec
    clean = collected.leaderboard.clean()
    api_fields, api_notes = _api_update(spec, collected.metadata)
    split, split_notes = _split_note(spec)
    complete = spec.grading is not None and len(clean) > 0
    sources = list(collected.sources)
    if collected.metadata_source is not None:
        sources.append(collected.metadata_source)
    spec = spec.model_copy(update={
        "title": spec.title or first_heading(collected.markdown.get("overview", "")),
        "split": split, "url": spec.url or collected.url,
        "status": "complete" if complete else "incomplete", "n_teams": len(clean),
        **api_fields,
        "provenance": spec.provenance.model_copy(update={
            "pages": sources, "unfilled": list(mapped.unfilled),
            "notes": [*spec.provenance.notes, *api_notes, *split_notes, *collected.notes],
        }),
    })
    spec = TaskSpec.model_validate(spec.model_dump())
    _write(folder, collected, spec)
    problems = []
    if spec.grading is None:
        problems.append("the mapper could not fill the grading fields")
    if not clean.rows:
        problems.append("the leaderboard has no usable rows")
    return Assembled(spec, list(mapped.unfilled), complete, problems)


def _write(folder: Path, collected: Collected, spec: TaskSpec) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for kind, md in collected.markdown.items():
        write_text_atomic(folder / PAGES_DIR / f"{kind}.md", md)
    write_text_atomic(folder / LEADERBOARD_FILE, leaderboard_to_csv(collected.leaderboard))
    if collected.metadata is not None:
        write_text_atomic(folder / API_FILE, metadata_json(collected.metadata))
    save_taskspec(spec, folder / TASK_FILE)


def metadata_json(meta: CompetitionMetadata) -> str:
    """``api.json``'s text (its SHA-256 is what provenance records)."""
    return meta.model_dump_json(indent=2) + "\n"


def text_sha(text: str) -> str:
    """SHA-256 of a text written as UTF-8."""
    return sha256_hex(text.encode("utf-8"))
