"""Subsets: balance over modality x tier, nesting, determinism, shortfalls, manifests, diff."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.errors import SubsetError
from tambench.schema.taskspec import Modality, Tier
from tambench.tasks.subsets import (
    CELLS,
    Candidate,
    build_subsets,
    cell_name,
    diff_manifests,
    full_quotas,
    parse_manifest,
    read_manifest,
    render_manifest,
    write_manifests,
)


def make_candidates(per_cell: int | dict[str, int], *, passing_every: int = 2) -> list[Candidate]:
    """``per_cell`` tasks in each cell (or a count per cell label); every ``passing_every``-th
    task passes the filters."""
    out = []
    for m, t in CELLS:
        label = cell_name(m, t)
        n = per_cell if isinstance(per_cell, int) else per_cell.get(label, 0)
        for i in range(n):
            out.append(Candidate(f"kaggle/{m.value.lower()}-{t.value}-{i:02d}", m, t,
                                 passes_filters=i % passing_every == 0, complete=True))
    return out


def test_lite_and_medium_take_one_and_three_per_cell_and_nest() -> None:
    build = build_subsets(make_candidates(12), seed=0)
    lite, medium, full = (set(build.subsets[k]) for k in ("lite", "medium", "full"))
    assert len(lite) == 18 and len(medium) == 54
    assert Counter(build.subsets["lite"].values()) == Counter(
        {cell_name(m, t): 1 for m, t in CELLS})
    assert set(Counter(build.subsets["medium"].values()).values()) == {3}
    assert lite <= medium <= full
    assert build.shortfalls == ()


def test_full_is_150_and_as_balanced_as_the_catalogue_allows() -> None:
    build = build_subsets(make_candidates(12), seed=0)
    counts = Counter(build.subsets["full"].values())
    assert len(build.subsets["full"]) == 150
    assert max(counts.values()) - min(counts.values()) <= 1
    # With only 2 tasks in one cell, the others absorb the rest, evenly.
    uneven = make_candidates({**{cell_name(m, t): 12 for m, t in CELLS}, "Graph/hard": 2})
    build = build_subsets(uneven, seed=0)
    counts = Counter(build.subsets["full"].values())
    assert counts["Graph/hard"] == 2 and len(build.subsets["full"]) == 150
    others = [v for k, v in counts.items() if k != "Graph/hard"]
    assert max(others) - min(others) <= 1


def test_a_small_catalogue_puts_everything_in_full() -> None:
    build = build_subsets(make_candidates(4), seed=0)
    assert len(build.subsets["full"]) == 72


def test_cells_lacking_tasks_are_reported_and_not_filled_from_other_cells() -> None:
    counts = {cell_name(m, t): 5 for m, t in CELLS}
    counts["Audio/hard"] = 0
    counts["Graph/easy"] = 2
    build = build_subsets(make_candidates(counts), seed=0)
    assert len(build.subsets["lite"]) == 17 and len(build.subsets["medium"]) == 50
    lacking = {(s.subset, s.cell): (s.have, s.need) for s in build.shortfalls}
    assert lacking[("lite", "Audio/hard")] == (0, 1)
    assert lacking[("medium", "Audio/hard")] == (0, 3)
    assert lacking[("medium", "Graph/easy")] == (2, 3)
    assert ("lite", "Graph/easy") not in lacking
    assert Counter(build.subsets["medium"].values())["Audio/medium"] == 3


def test_same_seed_gives_the_same_subsets_and_another_seed_differs() -> None:
    cands = make_candidates(10, passing_every=1)
    a = build_subsets(cands, seed=1)
    b = build_subsets(list(reversed(cands)), seed=1)
    c = build_subsets(cands, seed=2)
    assert a.subsets == b.subsets
    assert a.subsets["medium"] != c.subsets["medium"]


def test_tasks_passing_the_filters_are_preferred() -> None:
    build = build_subsets(make_candidates(10, passing_every=2), seed=5)
    by_id = {c.id: c for c in make_candidates(10, passing_every=2)}
    assert all(by_id[t].passes_filters for t in build.subsets["medium"])


def test_adding_a_task_does_not_reorder_the_others() -> None:
    cands = make_candidates(6, passing_every=1)
    before = build_subsets(cands, seed=3)
    extra = Candidate("kaggle/zzz-new", Modality.TEXT, Tier.EASY, True, True)
    after = build_subsets([*cands, extra], seed=3)
    for label, ranking in before.ranking.items():
        assert [t for t in after.ranking[label] if t != extra.id] == ranking


def test_full_quotas_water_fill() -> None:
    assert full_quotas([10, 10, 10], 12) == [4, 4, 4]
    assert full_quotas([1, 10, 10], 12) == [1, 6, 5]
    assert full_quotas([2, 2], 10) == [2, 2]


def test_duplicate_candidates_are_refused() -> None:
    c = Candidate("kaggle/a", Modality.TEXT, Tier.EASY, True, True)
    with pytest.raises(SubsetError, match="given twice"):
        build_subsets([c, c])


def test_manifests_round_trip_sorted_with_header(tmp_path: Path) -> None:
    build = build_subsets(make_candidates(4), seed=7)
    paths = write_manifests(build, tmp_path, index_sha256="ab" * 32,
                            tier_source="difficulty:paper", day=date(2025, 1, 31))
    assert [p.name for p in paths] == ["lite.txt", "medium.txt", "full.txt"]
    text = paths[0].read_text(encoding="utf-8")
    assert text.startswith("# tambench subset manifest\n# subset: lite\n")
    assert "# seed: 7\n" in text and "# date: 2025-01-31\n" in text
    assert f"# catalogue_index_sha256: {'ab' * 32}\n" in text
    m = read_manifest(paths[1])
    assert m.name == "medium" and m.ids == sorted(build.subsets["medium"])
    assert m.cells == build.subsets["medium"]
    id_lines = [ln.split()[0] for ln in text.splitlines() if not ln.startswith("#")]
    assert id_lines == sorted(id_lines)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kaggle/a\n", "not a subset manifest"),
        ("# tambench subset manifest\nkaggle/a\n", "no '# subset"),
        ("# tambench subset manifest\n# subset: x\nkaggle/b\nkaggle/a\n", "must be sorted"),
        ("# tambench subset manifest\n# subset: x\nkaggle/a\nkaggle/a\n", "listed twice"),
        ("# tambench subset manifest\n# subset: x\n# tasks: 3\nkaggle/a\n", "tasks: 3"),
        ("# tambench subset manifest\n# subset: x\nnot-an-id\n", "expected a task id"),
    ],
)
def test_malformed_manifests_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(SubsetError, match=message):
        parse_manifest(text)


def test_diff_explains_added_removed_moved_and_header_changes() -> None:
    old = parse_manifest(render_manifest("lite", {"seed": "0", "catalogue_index_sha256": "a"},
                                         {"kaggle/a": "Text/easy", "kaggle/b": "Text/hard",
                                          "kaggle/c": "Image/easy"}))
    new = parse_manifest(render_manifest("lite", {"seed": "1", "catalogue_index_sha256": "a"},
                                         {"kaggle/a": "Text/medium", "kaggle/c": "Image/easy",
                                          "kaggle/d": "Text/hard"}))
    d = diff_manifests(old, new)
    assert d.added == ("kaggle/d",) and d.removed == ("kaggle/b",)
    assert d.moved == (("kaggle/a", "Text/easy", "Text/medium"),)
    assert d.header_changes == (("seed", "0", "1"),)
    assert "seed changed 0 -> 1" in d.reasons["kaggle/b"]
    assert "Text/easy -> Text/medium" in d.reasons["kaggle/a"]
    assert d.reasons["kaggle/d"].startswith("selected in Text/hard")


def test_bundled_paper_manifests_hold_the_paper_membership(shared_dir: Path) -> None:
    import csv

    from tambench.core.layout import SUBSETS_DIR
    from tambench.tasks.catalogue import bundled_catalogue_dir
    from tambench.tasks.names import task_id_for_name

    with (shared_dir / "data" / "tam-catalogue.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for name in ("lite", "medium", "full"):
        m = read_manifest(bundled_catalogue_dir() / SUBSETS_DIR / f"paper-{name}.txt")
        expected = {task_id_for_name(r["competition"]) for r in rows if r[f"in_{name}"] == "1"}
        assert set(m.ids) == expected
    lite = read_manifest(bundled_catalogue_dir() / SUBSETS_DIR / "paper-lite.txt")
    medium = read_manifest(bundled_catalogue_dir() / SUBSETS_DIR / "paper-medium.txt")
    assert len(lite.ids) == 18 and len(medium.ids) == 54
    assert set(lite.ids) <= set(medium.ids)
    assert "kaggle/3d-object-detection-for-autonomous-vehicles" in lite.ids
    assert "image-matching-challenge-2024-hexathlon" in lite.header["discrepancy"]


def test_cli_build_from_release_tiers_recovers_the_released_lite_and_diff_is_empty(
    capsys: pytest.CaptureFixture[str], lite_catalogue: Path, tmp_path: Path
) -> None:
    out1, out2 = tmp_path / "m1", tmp_path / "m2"
    argv = ["subsets", "build", "--catalogue", str(lite_catalogue), "--tiers",
            "reference:tam-bench", "--seed", "4", "--date", "2025-02-01", "--json"]
    assert main([*argv, "--out", str(out1)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sizes"] == {"lite": 18, "medium": 18, "full": 18}
    assert {s["subset"] for s in data["shortfalls"]} == {"medium", "full"}
    assert all(s["have"] == 1 for s in data["shortfalls"])
    assert main([*argv, "--out", str(out2)]) == 0
    capsys.readouterr()
    assert (out1 / "lite.txt").read_bytes() == (out2 / "lite.txt").read_bytes()
    assert main(["subsets", "diff", str(out1 / "lite.txt"), str(out2 / "lite.txt")]) == 0
    assert "same tasks in the same cells" in capsys.readouterr().out


def test_cli_build_from_computed_tiers_reports_lacking_cells(
    capsys: pytest.CaptureFixture[str], lite_catalogue: Path, tmp_path: Path
) -> None:
    assert main(["subsets", "build", "--catalogue", str(lite_catalogue), "--out",
                 str(tmp_path / "m"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # The paper's formula puts no Lite task in the hard tier: six hard cells lack a task.
    lite_lacking = {s["cell"] for s in data["shortfalls"] if s["subset"] == "lite"}
    assert {c for c in lite_lacking if c.endswith("/hard")} == {
        f"{m.value}/hard" for m in Modality}
    assert data["sizes"]["lite"] == 18 - len(lite_lacking)
    assert main(["subsets", "diff", str(tmp_path / "m" / "lite.txt"),
                 str(tmp_path / "m" / "full.txt"), "--catalogue", str(lite_catalogue)]) == 0
    assert "header subset: lite -> full" in capsys.readouterr().out
