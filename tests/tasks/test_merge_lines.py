"""What an import prints about the entries it merged: one line per conflict (the field, both
values, both sources), and ``tasks list`` keeps its date column when no entry has a date."""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import FactSource, GradingSpec, Modality, Provenance, TaskSpec
from tambench.tasks.importers import ImportedTask, write_imported
from tambench.tasks.merge import change_line, merge_specs

#: A long header: the whole grading once took two JSON documents of several hundred characters.
COLUMNS = [f"column_{i:03d}" for i in range(60)]


def _spec(metric: str, source: str) -> TaskSpec:
    facts = {"grading.metric": [FactSource(source=source, commit="0123456789abcdef",
                                           path=f"{metric}/config.yaml", value=metric)]}
    return TaskSpec(
        id="kaggle/x", platform="kaggle", modality=Modality.TABULAR,
        grading=GradingSpec(metric=metric, id_columns=["id"], target_columns=["y"],
                            submission_header=["id", "y", *COLUMNS]),
        provenance=Provenance(mapper=f"importer:{source}", facts=facts))


def test_a_conflict_is_one_line_with_both_values_and_both_sources() -> None:
    result = merge_specs(_spec("rmse", "github:a/curated"), _spec("mae", "github:b/peer"))
    (change,) = result.conflicts
    assert change.field == "grading"
    line = change_line("kaggle/x", change, replaced=False)
    assert line == (
        'conflict kaggle/x grading: kept {"metric": "rmse"} '
        "(github:a/curated@0123456:rmse/config.yaml); the import has "
        '{"metric": "mae"} (github:b/peer@0123456:mae/config.yaml)')
    replaced = merge_specs(_spec("rmse", "github:a/curated"), _spec("mae", "github:b/peer"),
                           replace=True).replaced
    assert change_line("kaggle/x", replaced[0], replaced=True).startswith(
        'replaced kaggle/x grading: {"metric": "rmse"} (github:a/curated')


def test_a_long_value_is_cut_and_counted() -> None:
    old = _spec("rmse", "github:a/curated")
    new = old.model_copy(update={"title": "t" * 400})
    old = old.model_copy(update={"title": "s" * 400})
    (change,) = merge_specs(old, new).conflicts
    line = change_line("kaggle/x", change, replaced=False)
    assert "\n" not in line and len(line) < 500
    assert "... (242 more chars)" in line  # 402 characters of JSON, 160 shown


def test_the_import_command_prints_each_conflict_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat = tmp_path / "cat"
    save_taskspec(_spec("rmse", "github:a/curated"), cat / "kaggle" / "x" / "task.json")
    report = write_imported([ImportedTask(spec=_spec("mae", "github:b/peer"))], cat)
    from tambench.cli.tasks_cmd import _print_import

    _print_import("mle-bench", tmp_path, report)
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if x.strip().startswith("conflict")]
    assert lines == ["  conflict kaggle/x grading: kept {\"metric\": \"rmse\"} "
                     "(github:a/curated@0123456:rmse/config.yaml); the import has "
                     "{\"metric\": \"mae\"} (github:b/peer@0123456:mae/config.yaml)"]
    assert report.conflicts[0].imported_source == "github:b/peer@0123456:mae/config.yaml"


def test_tasks_list_shows_an_empty_end_date_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat = tmp_path / "cat"
    for slug in ("a", "b"):
        spec = _spec("rmse", "github:a/curated").model_copy(
            update={"id": f"kaggle/{slug}"})
        save_taskspec(spec, cat / "kaggle" / slug / "task.json")
    assert main(["tasks", "list", "--catalogue", str(cat)]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.split() == ["id", "modality", "metric", "status", "recipe", "end_date",
                              "lacks"]
