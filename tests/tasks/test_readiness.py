"""Agent-ready tasks: what each lacks, `tasks list` showing it, and agent-ready builds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.tasks.catalogue import bundled_catalogue_dir
from tambench.tasks.readiness import catalogue_readiness, readiness_gaps

READY = "kaggle/aerial-cactus-identification"


def test_each_missing_part_is_named() -> None:
    spec = load_taskspec(bundled_catalogue_dir() / READY / "task.json")
    assert readiness_gaps(spec, has_leaderboard=True, recipe="checked") == []
    assert readiness_gaps(spec, has_leaderboard=False, recipe="checked") == ["leaderboard"]
    assert readiness_gaps(spec, True, "unchecked") == ["checked recipe"]
    bare = spec.model_copy(update={"split": None, "page_sources": [], "goal_description": ""})
    assert readiness_gaps(bare, True, "none") == ["statement", "page source", "recipe"]
    wrong = spec.model_copy(update={"output_format": "a csv file"})
    assert readiness_gaps(wrong, True, "checked") == ["statement"]
    assert "grading" in readiness_gaps(spec.model_copy(update={"grading": None}), True,
                                       "checked")


def test_a_recipe_never_run_on_its_real_layout_is_not_agent_ready(catalogue: Path) -> None:
    assert catalogue_readiness(catalogue)[READY] == []
    (catalogue / READY / "raw_fixture.json").unlink()
    assert catalogue_readiness(catalogue)[READY] == ["checked recipe"]


def test_a_fixture_alone_does_not_check_the_tasks_own_recipe(catalogue: Path) -> None:
    """A generated download beside a split recipe that was not written for the real download
    (it names no sources) leaves the recipe unchecked: Lyft's download, put where a checked
    recipe's fixture goes."""
    lyft = catalogue / "kaggle/3d-object-detection-for-autonomous-vehicles"
    shutil.copy(lyft / "raw_fixture_mlebench.json", lyft / "raw_fixture.json")
    assert not load_taskspec(lyft / "task.json").split.sources  # type: ignore[union-attr]
    assert "checked recipe" in catalogue_readiness(catalogue)[
        "kaggle/3d-object-detection-for-autonomous-vehicles"]


@pytest.fixture
def catalogue(tmp_path: Path) -> Path:
    root = tmp_path / "cat"
    shutil.copytree(bundled_catalogue_dir(), root)
    return root


def test_tasks_list_says_what_each_task_lacks(capsys: pytest.CaptureFixture[str],
                                              catalogue: Path) -> None:
    path = catalogue / READY / "task.json"
    save_taskspec(load_taskspec(path).model_copy(update={"split": None}), path)
    assert main(["tasks", "list", "--catalogue", str(catalogue), "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[READY]["lacks"] == "recipe"
    gaps = catalogue_readiness(catalogue)
    assert all(rows[t]["lacks"] == ", ".join(g) for t, g in gaps.items() if t in rows)
    assert main(["tasks", "list", "--catalogue", str(catalogue), "--agent-ready",
                 "--json"]) == 0
    ready = {r["id"] for r in json.loads(capsys.readouterr().out)}
    assert READY not in ready and ready == {t for t, g in gaps.items() if not g}


def test_an_agent_ready_build_leaves_out_and_names_the_others(
        capsys: pytest.CaptureFixture[str], catalogue: Path, tmp_path: Path) -> None:
    path = catalogue / READY / "task.json"
    save_taskspec(load_taskspec(path).model_copy(update={"split": None}), path)
    argv = ["subsets", "build", "--catalogue", str(catalogue), "--out", str(tmp_path / "m"),
            "--allow-gaps", "--json"]
    assert main([*argv, "--all-complete"]) == 0
    loose = json.loads(capsys.readouterr().out)
    assert main(argv) == 0  # agent-ready tasks only, the default
    strict = json.loads(capsys.readouterr().out)
    assert main([*argv, "--agent-ready"]) == 0
    assert json.loads(capsys.readouterr().out)["subsets"] == strict["subsets"]
    gaps = catalogue_readiness(catalogue)
    for name, members in strict["subsets"].items():
        assert all(gaps[t] == [] for t in members), name
        assert strict["readiness"][name]["agent_ready"] == len(members)
    left = {u["id"]: u["reason"] for u in strict["unplaced"]}
    assert left[READY] == "not agent-ready: no recipe"
    assert READY not in strict["subsets"]["full"]
    full = loose["readiness"]["full"]
    assert full["agent_ready"] + len(full["not_ready"]) == full["tasks"]
    if READY in loose["subsets"]["full"]:
        assert full["not_ready"][READY] == ["recipe"]
