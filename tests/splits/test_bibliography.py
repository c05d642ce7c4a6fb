"""The ``bibliography`` transform (PST's labels per reference) and JSON answers as lists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import TaskSpec
from tambench.schema.transforms_tables import Bibliography
from tambench.splits.bibliography import bibliography, entry_titles, matches
from tambench.splits.layout import plan_split
from tambench.splits.prepare import prepare_task

_HEAD = ('<?xml version="1.0"?><TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader>'
         "<sourceDesc><biblStruct><analytic><title>Own title</title></analytic></biblStruct>"
         "</sourceDesc></teiHeader><text><back><listBibl>")


def _tei(entries: dict[int, str | None]) -> str:
    """A TEI paper: entry number -> its analytic title (None: a monograph, no analytic)."""
    body = "".join(
        f'<biblStruct xml:id="b{n}"><monogr><title>Book</title></monogr></biblStruct>'
        if t is None else
        f'<biblStruct xml:id="b{n}"><analytic><title level="a">{t}</title>'
        f"<author>x</author></analytic></biblStruct>" for n, t in entries.items())
    return _HEAD + body + "</listBibl></back></text></TEI>"


def test_entries_are_numbered_by_id_up_to_the_last_titled_one(tmp_path: Path) -> None:
    doc = tmp_path / "p.xml"
    doc.write_text(_tei({1: "Deep <hi>nets</hi> work", 0: "Graphs", 2: None, 3: "Trees",
                         5: None}))
    # b0..b3: b2 has no analytic title (""), b5 after the last titled entry is not listed,
    # the header's biblStruct has no id; a title's inner markup is kept as text
    assert entry_titles(doc, "p.xml") == ["Graphs", "Deep nets work", "", "Trees"]
    doc.write_text(_tei({0: None}))
    assert entry_titles(doc, "p.xml") == []
    doc.write_text("<TEI><unclosed></TEI>")
    with pytest.raises(SplitError, match="'p.xml' is not an XML document"):
        entry_titles(doc, "p.xml")


def test_titles_match_by_rounded_similarity_ignoring_case() -> None:
    listed = ["attention is all you need"]
    assert matches("Attention Is All You Need", listed, 80)
    # one extra character: ratio 2 * 25 / 51 = 0.9804, 98 once rounded
    assert matches("Attention is all you need.", listed, 98)
    assert not matches("Attention is all you need.", listed, 99)
    assert not matches("Graph convolutional networks", listed, 80)
    assert not matches("", listed, 1)


def _papers(raw: Path, n: int = 12) -> None:
    """n papers with three references each: one is the source (b<i % 3> for paper i), one
    a near-miss of it (a different word), one unrelated."""
    (raw / "paper-xml").mkdir(parents=True)
    papers = []
    for i in range(n):
        pid = f"{i:024x}"
        papers.append({"_id": pid, "title": f"paper {i}",
                       "refs_trace": [{"_id": "s", "title": f"Learning graph models {i}"},
                                      {"_id": "t", "title": "Unmatched source title here"}]})
        titles = [f"learning GRAPH models {i}", f"Learning trees quickly {i}",
                  "Something else entirely"]
        (raw / "paper-xml" / f"{pid}.xml").write_text(_tei({
            n: titles[(n - i) % 3] for n in range(3)}))
    (raw / "train_ans.json").write_text(json.dumps(papers))


_SPLIT = {"strategy": "group", "train_file": "train_ans.json", "id_column": "ref_id",
          "target_columns": ["label"], "group_column": "paper_id", "test_size": 0.25,
          "answers_keys": ["paper_id", "ref_index"], "answers_list": True,
          "transforms": [
              {"op": "rename", "columns": {"_id": "paper_id"}},
              {"op": "bibliography", "pattern": "paper-xml/{paper_id}.xml",
               "titles_column": "refs_trace"},
              {"op": "compose_id", "column": "ref_id", "template": "{paper_id}_b{ref_index}"}],
          "files": {"pattern": "paper-xml/{paper_id}.xml", "dest": "{paper_id}.xml"}}


def _spec(split: dict[str, object], fmt: str = "json") -> TaskSpec:
    return TaskSpec.model_validate({
        "id": "biendata/pst", "platform": "biendata",
        "grading": {"metric": "mean_ap_per_paper", "submission_format": fmt,
                    "answers_file": f"answers.{fmt}"},
        "split": split})


def test_a_paper_per_group_gives_label_lists_that_grade_best(tmp_path: Path) -> None:
    _papers(tmp_path / "raw")
    spec = _spec(_SPLIT)
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit is not None and res.audit.passed, res.audit.findings
    pub, priv = res.task_dir / "public", res.task_dir / "private"
    answers = json.loads((priv / "answers.json").read_text())
    # paper i's source is b<i % 3>: the near-miss title does not match
    assert len(answers) == 3
    assert all(v == [int(n == int(k, 16) % 3) for n in range(3)] for k, v in answers.items())
    test = pl.read_csv(pub / "test.csv", infer_schema=False)
    assert {"label", "refs_trace"}.isdisjoint(test.columns) and test.height == 9
    assert set(test["paper_id"]) == set(answers)
    train = pl.read_csv(pub / "train.csv", infer_schema=False)
    assert "refs_trace" not in train.columns and train["label"].to_list().count("1") == 9
    assert sorted(p.stem for p in (pub / "test").iterdir()) == sorted(answers)
    for name in ("train.csv", "test.csv", "sample_submission.json"):
        assert "Unmatched source title" not in (pub / name).read_text()
    sample = json.loads((pub / "sample_submission.json").read_text())
    assert sample.keys() == answers.keys() and all(len(v) == 3 for v in sample.values())
    best = shutil.copyfile(priv / "answers.json", tmp_path / "submission.json")
    assert grade_submission(best, spec, priv / "answers.json").score == 1.0
    worst = {k: [1.0 - x for x in v] for k, v in answers.items()}
    (tmp_path / "worst.json").write_text(json.dumps(worst))
    assert grade_submission(tmp_path / "worst.json", spec, priv / "answers.json").score < 1.0


def test_list_answers_need_positions_and_a_json_grading(tmp_path: Path) -> None:
    with pytest.raises(SplitError, match="answers_list applies to json submissions only"):
        plan_split(_spec({**_SPLIT, "answers_keys": []}, fmt="txt"))
    _papers(tmp_path / "raw")
    spec = _spec({**_SPLIT, "answers_keys": ["paper_id", "ref_title"]})
    with pytest.raises(SplitError, match="ref_title=.* is not a position 0, 1"):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")


def test_a_missing_document_or_a_bad_titles_cell_is_named(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    _papers(raw, n=2)
    step = Bibliography(pattern="paper-xml/{_id}.xml", titles_column="refs_trace")
    table = pl.LazyFrame({"_id": [f"{0:024x}", "nope"], "refs_trace": ["[]", "[]"]})
    with pytest.raises(SplitError, match="document 'paper-xml/nope.xml' not found"):
        bibliography(step, table, raw)
    table = pl.LazyFrame({"_id": [f"{0:024x}"], "refs_trace": ['{"title": "x"}']})
    with pytest.raises(SplitError, match="'refs_trace' of .* is not a JSON list of records"):
        bibliography(step, table, raw)
    with pytest.raises(ValueError, match="must differ"):
        Bibliography(pattern="{a}.xml", titles_column="t", label_column="ref_title")


def test_the_titled_fixture_kind_and_tei_files_match_their_titles() -> None:
    from tambench.splits.fixture import RawFixture, generate

    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://example.org/data", "detail": "d"}], "rows": 8,
        "tables": [{"path": "papers.json", "columns": {"_id": "seq:p{i}",
                                                       "refs_trace": "titled:2"}}],
        "files": [{"pattern": "xml/{_id}.xml", "table": "papers.json", "tei": "refs_trace"}]})
    members = generate(fixture)[""]
    papers = json.loads(members["papers.json"])
    for paper in papers:
        titles = [r["title"] for r in paper["refs_trace"]]
        doc = members[f"xml/{paper['_id']}.xml"].decode()
        assert all(t.title() in doc for t in titles) and 'xml:id="b2"><monogr>' in doc
