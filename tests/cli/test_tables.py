"""Every table through one renderer: identifiers never cut, the least important columns left
out or shortened first, empty columns hidden; plain fixed columns when piped. Rendered at 80
and 200 columns and piped, for ``tasks list``, ``grade-runs``, ``metrics`` and the demo."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core import tables
from tambench.core.tables import Column, cell_width, render_table
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

BOX = re.compile("[│┃┏┓┗┛━┡┩╇┳┻]")
WIDTHS = [80, 200, None]  # a narrow and a wide terminal, and a pipe


def _render(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            width: int | None, *argv: str) -> tuple[int, list[str]]:
    monkeypatch.setattr(tables, "terminal_width", lambda stream=None: width)
    rc = main(list(argv))
    return rc, capsys.readouterr().out.splitlines()


def _table_lines(lines: list[str], header: str, n_rows: int) -> list[str]:
    """The header, the rule (on a terminal), the rows and the "left out" note of a table."""
    start = next(i for i, x in enumerate(lines) if x.startswith(header))
    end = start + 1 + (lines[start + 1].startswith("─")) + n_rows
    return lines[start: end + (end < len(lines) and lines[end].startswith("(left out"))]


def _check_fits(lines: list[str], width: int | None) -> None:
    assert not any(BOX.search(x) for x in lines), "no box drawing"
    if width is not None:
        assert all(cell_width(x) <= width for x in lines), max(lines, key=cell_width)
    else:
        assert not any("─" in x for x in lines) and not any("…" in x for x in lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_tasks_list_keeps_ids_whole_and_hides_empty_columns(
    width: int | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    rc, lines = _render(monkeypatch, capsys, width, "tasks", "list", "--subset", "lite")
    assert rc == 0
    from tambench.core.layout import SUBSETS_DIR
    from tambench.tasks.catalogue import bundled_catalogue_dir
    from tambench.tasks.subsets import read_manifest

    shipped = read_manifest(bundled_catalogue_dir() / SUBSETS_DIR / "lite.txt").ids
    table = _table_lines(lines, "id ", len(shipped))
    _check_fits(table, width)
    ids = {x.split()[0] for x in table[1:] if x.split() and "/" in x.split()[0]}
    assert "kaggle/text-normalization-challenge-english-language" in ids
    assert ids == set(shipped)
    header = table[0].split()
    assert "modality" in header
    # Empty columns are hidden: the AIcrowd tasks no peer holds have no metric or tier; the
    # end date stays, empty, saying that their dates are unknown.
    rc, lines = _render(monkeypatch, capsys, width, "tasks", "list", "--platform", "aicrowd",
                        "--status", "incomplete")
    others_table = _table_lines(lines, "id ", 6)
    others = others_table[0].split()
    assert rc == 0 and not {"metric", "tier"} & set(others) and "id" in others
    assert "end_date" in others or "end_date" in others_table[-1]  # or named as left out
    if width == 80:
        assert table[-1].startswith("(left out at 80 columns: ")
    else:
        assert "subsets" in header and "recipe" in header
        col = header.index("recipe")
        recipe = {x.split()[0]: x.split()[col] for x in table[1:] if "/" in x.split()[0]}
        assert recipe["kaggle/lmsys-chatbot-arena"] == "checked"  # it has a raw fixture
        assert set(recipe.values()) == {"checked"}  # Lite is built from agent-ready tasks


@pytest.fixture
def batch(tmp_path: Path) -> list[str]:
    cat, data, runs = make_env(tmp_path)
    for agent in ("carelessly-named-agent-with-a-long-name", "aide"):
        put(runs, agent, "value", "r1", perfect_text(TASKS["value"]))
        put(runs, agent, "label", "r1", perfect_text(TASKS["label"]))
    return ["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
            "--executor", "serial"]


@pytest.mark.parametrize("width", WIDTHS)
def test_grade_runs_never_cuts_agent_names(
    width: int | None, batch: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, lines = _render(monkeypatch, capsys, width, *batch)
    assert rc == 0
    table = _table_lines(lines, "agent ", 2)
    _check_fits(table, width)
    assert any(x.startswith("carelessly-named-agent-with-a-long-name ") for x in table)
    header = table[0]
    assert "weighted rank % [CI]" in header and "constraints" not in header  # nothing judged
    if width is None:
        assert "above median %" in header


@pytest.mark.parametrize("width", WIDTHS)
def test_metrics_fits_the_terminal_and_pipes_whole(
    width: int | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    rc, lines = _render(monkeypatch, capsys, width, "metrics")
    assert rc == 0
    _check_fits(lines, width)
    assert any(x.split()[0] == "weighted_author_auc" for x in lines[1:])
    if width is None:
        assert "Share of rows whose predicted label equals the true label exactly." in "\n".join(
            lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_demo_tables_fit_or_pipe_plain(width: int | None, tmp_path: Path) -> None:
    from rich.console import Console

    from tambench.demo import _print_agents, _print_runs
    from tambench.grading.batch import grade_runs

    cat, data, runs = make_env(tmp_path)
    for agent in ("carelessly-named-agent-with-a-long-name", "aide"):
        put(runs, agent, "value", "r1", perfect_text(TASKS["value"]))
        put(runs, agent, "value", "r2", "id,y\n1,2\n")
    report = grade_runs(runs, catalogue=cat, data_dir=data)
    out = io.StringIO()
    con = Console(file=out, width=width or 80, force_terminal=width is not None,
                  soft_wrap=True, color_system=None)
    _print_runs(con, report)
    _print_agents(con, report)
    lines = out.getvalue().splitlines()
    tables_only = [x for x in lines if not x.startswith(("  ", "refused", "Rank", "value", "per"))]
    _check_fits(tables_only, width)
    assert sum(x.startswith("carelessly-named-agent-with-a-long-name ") for x in lines) == 2


def test_the_renderer_leaves_out_low_priority_columns_before_cutting_and_never_cuts_keys(
) -> None:
    cols = [Column("id", key=True), Column("a", priority=1), Column("text", priority=5,
                                                                    min_width=6),
            Column("b", priority=9, align="right"), Column("empty")]
    rows = [("x" * 30, "aaaa", "t" * 40, 7, None), ("y" * 12, "bb", "short", 123, "")]
    text = render_table(cols, rows, width=45)
    lines = text.splitlines()
    assert lines[0].split() == ["id", "text", "b"]  # "a" left out first, "empty" hidden
    assert "x" * 30 in text and all(len(x) <= 45 for x in lines)
    assert lines[2].endswith(" ttttttt…    7") and re.search(r" short\s+123$", lines[3])
    assert lines[-1] == "(left out at 45 columns: a)"
    assert render_table(cols, rows, width=49).splitlines()[0].split() == ["id", "a", "text",
                                                                          "b"]
    piped = render_table(cols, rows)
    assert "t" * 40 in piped and "aaaa" in piped and "empty" not in piped
    assert render_table(cols, rows, tsv=True).splitlines()[1] == "\t".join(
        ["x" * 30, "aaaa", "t" * 40, "7"])
    # identifiers alone wider than the terminal stay whole: the terminal wraps, nothing is cut
    assert "x" * 30 in render_table([Column("id", key=True)], [("x" * 30,)], width=10)
