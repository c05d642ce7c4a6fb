"""prepare writes the agent's view: public/description.md and public/instructions.txt, and
nothing private reaches public/ through them."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tambench.acquisition.statement_pages import parse_pages_from
from tambench.schema.taskspec import PageSource
from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec

SLUG = "denoising-dirty-documents"
PAGE_PATH = f"mlebench/competitions/{SLUG}/description.md"


def _raw_with_markers(raw: Path, n: int = 400) -> list[str]:
    """A table whose every label is a unique marker; returns the markers."""
    rng = np.random.default_rng(5)
    markers = [f"ZQX{i:05d}MARK" for i in range(n)]
    raw.mkdir(parents=True)
    pl.DataFrame({"id": [f"r{i:04d}" for i in range(n)],
                  "feature": [f"{v:.3f}" for v in rng.normal(size=n)],
                  "label": markers}).write_csv(raw / "train.csv")
    return markers


def _spec(page: bytes | None = None):  # type: ignore[no-untyped-def]
    spec = make_spec(SLUG, {"strategy": "random", "test_size": 0.25})
    sources = [PageSource(kind="repository", source="github:openai/mle-bench",
                          commit="b" * 40, path=PAGE_PATH,
                          sha256=hashlib.sha256(page).hexdigest())] if page else []
    return spec.model_copy(update={"title": "Denoising Dirty Documents",
                                   "page_sources": sources})


def _public_text(task: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted((task / "public").rglob("*"))
                     if p.is_file())


def test_the_page_then_the_benchmarks_section_and_no_answer_in_public(
        tmp_path: Path, shared_dir: Path) -> None:
    page = (shared_dir / "data/competition-descriptions" / f"{SLUG}.md").read_bytes()
    page_with_board = page + b"\n## Leaderboard\n\n| 1 | BOARDTEAM | 0.01 |\n"
    checkout = tmp_path / "mle-bench"
    (checkout / PAGE_PATH).parent.mkdir(parents=True)
    (checkout / PAGE_PATH).write_bytes(page_with_board)
    markers = _raw_with_markers(tmp_path / "raw")
    res = prepare_task(_spec(page_with_board), tmp_path / "raw", tmp_path / "data",
                       pages=parse_pages_from([f"mle-bench={checkout}"]))
    task = res.task_dir
    desc = (task / "public/description.md").read_text()
    assert desc.startswith("# Denoising Dirty Documents")
    assert "between the cleaned pixel intensities" in desc  # the page itself
    assert "BOARDTEAM" not in desc and "Scripts for Swag" not in desc
    assert "100 rows, 2 columns" in desc and "300 rows, 3 columns" in desc
    with open(task / "public/sample_submission.csv", newline="") as fh:
        header, first = list(csv.reader(fh))[:2]
    assert f"```\n{','.join(header)}\n{','.join(first)}\n```" in desc
    assert "Its header must be exactly: `id,label`" in desc
    assert "`accuracy`" in desc and "higher is better" in desc
    assert "the local setup holds" in desc.lower()
    instructions = (task / "public/instructions.txt").read_text()
    for needle in ("/home/data", "/home/submission/submission.csv", "/home/code",
                   "/home/logs", "http://localhost:5000/validate", "by hand",
                   "public solutions"):
        assert needle in instructions
    # the leak test: the test rows' labels (the answers) appear nowhere in public/
    answers = {r["label"] for r in csv.DictReader(open(task / "private/answers.csv"))}
    assert len(answers) == 100 and answers <= set(markers)
    public = _public_text(task)
    assert not [m for m in answers if m in public]
    assert "answers.csv" not in public and "private" not in desc.lower()
    assert res.page_problems == []
    kept = (task / "pages/description.md").read_text()
    assert "BOARDTEAM" not in kept and "Scripts for Swag" not in kept


def test_without_the_page_the_statement_comes_from_the_schema(tmp_path: Path) -> None:
    _raw_with_markers(tmp_path / "raw")
    spec = _spec(b"a page nobody has").model_copy(update={
        "goal_description": "Predict each row's label.",
        "special_instructions": "1. One submission file."})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", pages=None)
    desc = (res.task_dir / "public/description.md").read_text()
    assert "original page was not available" in desc
    assert "## Goal\n\nPredict each row's label." in desc
    assert "## Rules\n\n1. One submission file." in desc
    assert not (res.task_dir / "pages").exists()
    res2 = prepare_task(spec, tmp_path / "raw", tmp_path / "data", force=True,
                        pages=parse_pages_from([f"mle-bench={tmp_path}"]))
    assert "mlebench/competitions" in res2.page_problems[0]
    assert "holds no" in res2.page_problems[0]


def test_kept_pages_survive_a_rebuild_and_are_not_in_the_checksums(
        tmp_path: Path, shared_dir: Path) -> None:
    page = (shared_dir / "data/competition-descriptions" / f"{SLUG}.md").read_bytes()
    checkout = tmp_path / "co"
    (checkout / PAGE_PATH).parent.mkdir(parents=True)
    (checkout / PAGE_PATH).write_bytes(page)
    _raw_with_markers(tmp_path / "raw")
    prepare_task(_spec(page), tmp_path / "raw", tmp_path / "data",
                 pages=parse_pages_from([f"mle-bench={checkout}"]))
    res = prepare_task(_spec(page), tmp_path / "raw", tmp_path / "data", force=True)
    assert "between the cleaned pixel intensities" in (
        res.task_dir / "public/description.md").read_text()
    sums = (res.task_dir / "checksums.json").read_text()
    assert "public/description.md" in sums and "pages/" not in sums


@pytest.mark.parametrize("name", ["description.md", "instructions.txt"])
def test_a_raw_file_cannot_take_the_statements_name(tmp_path: Path, name: str) -> None:
    _raw_with_markers(tmp_path / "raw")
    (tmp_path / "raw" / name).write_text("planted")
    spec = make_spec("x", {"strategy": "random", "extra_public_files": [name]})
    with pytest.raises(Exception, match=name):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")


def test_an_extra_public_file_is_listed_with_its_rows(tmp_path: Path) -> None:
    _raw_with_markers(tmp_path / "raw")
    (tmp_path / "raw/meta.csv").write_text("key,value\na,1\nb,2\nc,3")  # no final newline
    spec = make_spec("extra", {"strategy": "random", "extra_public_files": ["meta.csv"]})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    desc = (res.task_dir / "public/description.md").read_text()
    assert "- `meta.csv`: 3 rows, 2 columns. Columns: `key`, `value`" in desc
    assert f"- `sample_submission.csv`: {res.report.sample_submission.rows} rows" in desc


def test_a_json_task_tells_the_agent_to_write_the_file_grading_reads(tmp_path: Path) -> None:
    """biendata/pst is graded on a JSON document: the agent is told submission.json (the name
    `grade-runs` looks for), never a CSV with one row per test row."""
    from tambench.schema.io import load_taskspec
    from tambench.splits.fixture import FIXTURE_FILE, RawFixture, make_download
    from tambench.tasks.catalogue import bundled_catalogue_dir

    folder = bundled_catalogue_dir() / "biendata" / "pst"
    spec = load_taskspec(folder / "task.json")
    download = make_download(RawFixture.read(folder / FIXTURE_FILE), tmp_path / "pst.zip")
    prepare_task(spec, download, tmp_path / "data")
    public = tmp_path / "data" / "biendata" / "pst" / "public"
    instructions = (public / "instructions.txt").read_text()
    description = (public / "description.md").read_text()
    assert "/home/submission/submission.json" in instructions
    assert "`/home/submission/submission.json`: one JSON document" in description
    assert "submission.csv" not in instructions + description
