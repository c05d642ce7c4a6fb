"""Peer trees built by an adversary: links out of the tree, oversized and bomb-shaped files.

Each hostile folder is one named failure (or a named warning) of the import; the other folders
are imported, nothing from outside the tree reaches the catalogue, and nothing unbounded is
read. The trees use MLE-bench's and MLE-Dojo's real layouts (see :mod:`tests.tasks.peer_trees`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tambench.tasks.importers import read_tree, write_imported
from tests.tasks.peer_trees import build_dojo

#: Text that lives outside every tree: it must never reach a catalogue.
SECRET = "SECRET-OUTSIDE-THE-TREE"
BOARD = "rank,score\n1,0.91\n2,0.88\n3,0.85\n4,0.80\n"
DESCRIPTION = """# Overview

Predict the label of each row.

## Evaluation

Submissions are evaluated on their classification accuracy, the share of correct labels.

## Submission File

The file should contain a header and have the following format:

```
id,label
1,cat
```
"""


def _config(cid: str, extra: str = "") -> str:
    return (f"id: {cid}\nname: {cid.title()}\ncompetition_type: simple\nawards_medals: false\n"
            f"dataset:\n  answers: {cid}/prepared/private/test.csv\n"
            f"grader:\n  name: accuracy\n  grade_fn: mlebench.competitions.{cid}.grade:grade\n"
            + extra)


def competition(folder: Path, cid: str | None = None, *, description: str = DESCRIPTION,
                config: str | None = None) -> Path:
    """One MLE-bench competition folder: config.yaml, description.md, leaderboard.csv."""
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(config or _config(cid or folder.name), encoding="utf-8")
    (folder / "description.md").write_text(description, encoding="utf-8")
    (folder / "leaderboard.csv").write_text(BOARD, encoding="utf-8")
    return folder


def mle_tree(root: Path, *ids: str) -> Path:
    """MLE-bench's repository layout with plain competitions ``ids`` (labelled low)."""
    comps = root / "mlebench" / "competitions"
    for cid in ids:
        competition(comps / cid)
    (root / "experiments" / "splits").mkdir(parents=True)
    (root / "experiments" / "splits" / "low.txt").write_text("\n".join(ids) + "\n")
    return comps


def catalogue_text(catalogue: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(catalogue.rglob("*")) if p.is_file())


# --- 5. links out of the tree ---------------------------------------------------------------

def test_mle_bench_never_follows_a_linked_competition_folder_out_of_the_tree(
        tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "mle-bench", "alpha")
    outside = competition(tmp_path / "outside" / "linked", description=DESCRIPTION + SECRET)
    (outside / "leaderboard.csv").write_text(BOARD.replace("0.91", "0.99"), encoding="utf-8")
    (comps / "linked").symlink_to(outside, target_is_directory=True)
    tree = read_tree("mle-bench", tmp_path / "mle-bench")
    assert [t.spec.id for t in tree.tasks] == ["kaggle/alpha"]
    (failure,) = tree.failures
    assert failure.where.endswith("linked") and "symbolic link" in failure.message
    catalogue = tmp_path / "cat"
    write_imported(tree, catalogue)
    assert SECRET not in catalogue_text(catalogue) and "0.99" not in catalogue_text(catalogue)


def test_mle_dojo_never_follows_a_linked_folder_at_any_depth(tmp_path: Path) -> None:
    root = build_dojo(tmp_path / "dojo")
    comps = root / "mledojo" / "competitions"
    outside = tmp_path / "outside"
    (outside / "info").mkdir(parents=True)
    (outside / "utils").mkdir()
    (outside / "info" / "description.txt").write_text(f"Description\n\n{SECRET}\n")
    (outside / "info" / "private_leaderboard.csv").write_text("rank,score\n1,0.123456\n")
    (comps / "linked-competition").symlink_to(outside, target_is_directory=True)
    # a real folder whose info/ is a link out of the tree
    inner = comps / "spaceship-titanic"
    os.rename(inner / "info", tmp_path / "moved-info")
    (inner / "info").symlink_to(outside / "info", target_is_directory=True)
    tree = read_tree("mle-dojo", root)
    failures = {Path(f.where).name: f.message for f in tree.failures}
    assert "symbolic link" in failures["linked-competition"]
    assert "symbolic link" in failures["spaceship-titanic"]
    assert "kaggle/new-york-city-taxi-fare-prediction" in {t.spec.id for t in tree.tasks}
    catalogue = tmp_path / "cat"
    write_imported(tree, catalogue)
    text = catalogue_text(catalogue)
    assert SECRET not in text and "0.123456" not in text


def test_a_board_in_a_linked_folder_is_a_named_warning_and_no_board(tmp_path: Path) -> None:
    root = build_dojo(tmp_path / "dojo")
    inner = root / "mledojo" / "competitions" / "new-york-city-taxi-fare-prediction"
    outside = tmp_path / "outside-info"
    outside.mkdir()
    (outside / "private_leaderboard.csv").write_text("rank,score\n1,0.123456\n")
    os.rename(inner / "info", tmp_path / "moved-info")
    (inner / "info").symlink_to(outside, target_is_directory=True)
    tree = read_tree("mle-dojo", root)
    (task,) = [t for t in tree.tasks if t.spec.id.endswith("taxi-fare-prediction")]
    assert task.leaderboard is None and task.spec.leaderboard is None
    assert any("private_leaderboard.csv not read" in w and "symbolic link" in w
               for w in task.warnings)


@pytest.mark.timeout(120)
def test_a_fifo_in_the_trees_git_folder_never_blocks_the_import(tmp_path: Path) -> None:
    mle_tree(tmp_path / "tree", "alpha")
    (tmp_path / "tree" / ".git").mkdir()
    os.mkfifo(tmp_path / "tree" / ".git" / "HEAD")
    (task,) = read_tree("mle-bench", tmp_path / "tree").tasks
    assert task.spec.leaderboard is not None and task.spec.leaderboard.commit == ""


# --- 6. an oversized description --------------------------------------------------------------

@pytest.mark.parametrize("layout", ["mle-bench", "mle-dojo"])
def test_a_200_mb_description_is_refused_by_name_and_never_stored(tmp_path: Path,
                                                                  layout: str) -> None:
    if layout == "mle-bench":
        comps = mle_tree(tmp_path / "tree", "alpha", "huge")
        page = comps / "huge" / "description.md"
    else:
        comps = build_dojo(tmp_path / "tree") / "mledojo" / "competitions"
        page = comps / "spaceship-titanic" / "info" / "description.txt"
    with page.open("w", encoding="utf-8") as fh:
        fh.write(DESCRIPTION + SECRET)
        fh.truncate(200 * 1024 * 1024)  # sparse: no disk used
    tree = read_tree(layout, tmp_path / "tree")
    failures = {Path(f.where).name: f.message for f in tree.failures}
    message = failures[page.parent.name if layout == "mle-bench" else "spaceship-titanic"]
    assert page.name in message and "209,715,200 bytes" in message and "not read" in message
    assert tree.tasks, "the other folders are imported"
    catalogue = tmp_path / "cat"
    write_imported(tree, catalogue)
    assert SECRET not in catalogue_text(catalogue)


def test_a_board_over_the_bound_is_a_named_warning_and_no_board(tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha")
    with (comps / "alpha" / "leaderboard.csv").open("a", encoding="utf-8") as fh:
        fh.truncate(9 * 1024 * 1024)  # sparse
    (task,) = read_tree("mle-bench", tmp_path / "tree").tasks
    assert task.leaderboard is None and task.spec.leaderboard is None
    assert any(w.startswith("leaderboard.csv not read") and "9,437,184 bytes" in w
               for w in task.warnings)


def test_a_page_the_mapper_refuses_is_a_warning_and_is_not_stored(tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha")
    binary = "".join(chr(c) for c in range(1, 9)) * 200
    (comps / "alpha" / "description_obfuscated.md").write_text(binary, encoding="utf-8")
    tree = read_tree("mle-bench", tmp_path / "tree")
    (task,) = tree.tasks
    assert any(w.startswith("description_obfuscated.md not read by the description mapper")
               for w in task.warnings)
    assert [p.name for p in task.pages] == ["description.md"]


# --- 10. bombs in a peer's files ----------------------------------------------------------------

ALIAS_BOMB = "".join(
    [f'l0: &l0 [{", ".join(["lol"] * 9)}]\n'] +
    [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10)])


@pytest.mark.parametrize(("name", "config", "reason"), [
    ("alias-bomb", _config("alias-bomb", ALIAS_BOMB + "notes: *l9\n"), "aliases are expanded"),
    ("self-anchor", _config("self-anchor", "loop: &x [*x]\n"), "refers to itself"),
    ("deep-yaml", _config("deep-yaml", "deep: " + "[" * 100 + "]" * 100 + "\n"),
     "nests more than 32 levels deep"),
    ("deeper-yaml", _config("deeper-yaml", "deep: " + "[" * 5000 + "]" * 5000 + "\n"),
     "nested too deeply to be read (RecursionError)"),
])
def test_a_yaml_bomb_fails_its_folder_by_name_and_the_others_import(
        tmp_path: Path, name: str, config: str, reason: str) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha")
    competition(comps / name, config=config)
    tree = read_tree("mle-bench", tmp_path / "tree")
    assert [t.spec.id for t in tree.tasks] == ["kaggle/alpha"]
    (failure,) = tree.failures
    assert Path(failure.where).name == name
    assert "config.yaml" in failure.message and reason in failure.message


def test_a_grade_py_with_a_500000_term_expression_fails_its_folder_by_name(
        tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha")
    elided = DESCRIPTION.replace("id,label\n1,cat", "id,class_a,class_b,...,class_z\n1,0,0,0")
    folder = competition(comps / "wide", description=elided)
    (folder / "grade.py").write_text("X = " + "+".join(["a"] * 500_000) + "\n")
    tree = read_tree("mle-bench", tmp_path / "tree")
    assert [t.spec.id for t in tree.tasks] == ["kaggle/alpha"]
    (failure,) = tree.failures
    assert Path(failure.where).name == "wide"
    assert "grade.py is nested too deeply to be parsed" in failure.message
