"""Subsets: balance over modality x tier, nesting, determinism, named gaps, manifests, diff,
and the build over the shipped catalogue."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.errors import SubsetError
from tambench.schema.taskspec import Modality, Tier
from tambench.tasks.manifests import parse_manifest, read_manifest, render_manifest
from tambench.tasks.subsets import (
    CELLS,
    Candidate,
    Skipped,
    build_subsets,
    cell_name,
    diff_manifests,
    same_cell,
    write_manifests,
)


def make_candidates(per_cell: int | dict[str, int], *, passing_every: int = 2,
                    complete_every: int = 1) -> list[Candidate]:
    """``per_cell`` tasks in each cell (or a count per cell label); every ``passing_every``-th
    task passes the filters, every ``complete_every``-th is complete."""
    out = []
    for m, t in CELLS:
        label = cell_name(m, t)
        n = per_cell if isinstance(per_cell, int) else per_cell.get(label, 0)
        for i in range(n):
            out.append(Candidate(f"kaggle/{m.value.lower()}-{t.value}-{i:02d}", m, t,
                                 passes_filters=i % passing_every == 0,
                                 complete=i % complete_every == 0))
    return out


def complete_of(cands: list[Candidate]) -> list[tuple[str, Modality]]:
    return [(c.id, c.modality) for c in cands if c.complete]


def test_lite_and_medium_take_one_and_three_per_cell_and_nest() -> None:
    cands = make_candidates(12)
    build = build_subsets(cands, seed=0, complete=complete_of(cands))
    lite, medium, full = (set(build.subsets[k]) for k in ("lite", "medium", "full"))
    assert len(lite) == 18 and len(medium) == 54
    assert Counter(build.subsets["lite"].values()) == Counter(
        {cell_name(m, t): 1 for m, t in CELLS})
    assert set(Counter(build.subsets["medium"].values()).values()) == {3}
    assert lite <= medium <= full
    assert build.shortfalls == ()


def test_cells_lacking_tasks_are_reported_and_not_filled_from_other_cells() -> None:
    counts = {cell_name(m, t): 5 for m, t in CELLS}
    counts["Audio/hard"] = 0
    counts["Graph/easy"] = 2
    skipped = [Skipped("kaggle/audio-x", "no tier: no leaderboard.csv", Modality.AUDIO)]
    build = build_subsets(make_candidates(counts), seed=0, skipped=skipped)
    assert len(build.subsets["lite"]) == 17 and len(build.subsets["medium"]) == 50
    lacking = {(s.subset, s.cell): (s.have, s.need) for s in build.shortfalls}
    audio = next(s for s in build.shortfalls if s.cell == "Audio/hard")
    assert audio.reason == ("Audio tasks with a tier: 5 easy, 5 medium; 1 with no tier: no "
                            "leaderboard.csv")
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


def test_complete_tasks_come_first_so_that_subsets_are_gradable() -> None:
    cands = make_candidates(6, passing_every=1, complete_every=3)
    build = build_subsets(cands, seed=9, complete=complete_of(cands))
    by_id = {c.id: c for c in cands}
    assert all(by_id[t].complete for t in build.subsets["lite"])
    assert sum(by_id[t].complete for t in build.subsets["medium"]) == 2 * len(CELLS)


def test_full_is_every_complete_task_plus_medium() -> None:
    cands = make_candidates(5, complete_every=2)
    untiered = [("kaggle/no-tier-yet", Modality.TEXT)]
    build = build_subsets(cands, seed=0, complete=[*complete_of(cands), *untiered])
    full = set(build.subsets["full"])
    assert {c.id for c in cands if c.complete} <= full
    assert "kaggle/no-tier-yet" in full and build.subsets["full"]["kaggle/no-tier-yet"] == "Text"
    assert set(build.subsets["medium"]) <= full
    assert full <= {c.id for c in cands} | {"kaggle/no-tier-yet"}


def test_adding_a_task_does_not_reorder_the_others() -> None:
    cands = make_candidates(6, passing_every=1)
    before = build_subsets(cands, seed=3)
    extra = Candidate("kaggle/zzz-new", Modality.TEXT, Tier.EASY, True, True)
    after = build_subsets([*cands, extra], seed=3)
    for label, ranking in before.ranking.items():
        assert [t for t in after.ranking[label] if t != extra.id] == ranking


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


def test_diff_explains_each_change_with_its_own_reason() -> None:
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
    assert "Text/easy -> Text/medium" in d.reasons["kaggle/a"]
    assert d.reasons["kaggle/d"] == "selected in Text/hard"
    assert d.reasons["kaggle/b"] == ("was in Text/hard; not in the new manifest (no catalogue "
                                     "given to say why)")
    current = {"kaggle/a": "Text/medium", "kaggle/c": "Image/easy", "kaggle/d": "Text/hard",
               "kaggle/b": "not placeable: no tier: no leaderboard.csv"}
    d = diff_manifests(old, new, current=current)
    assert d.reasons["kaggle/b"] == "was in Text/hard; not placeable: no tier: no leaderboard.csv"
    assert len(set(d.reasons.values())) == len(d.reasons)


def test_a_cell_without_a_tier_matches_any_tier_of_its_modality() -> None:
    assert same_cell("Image", "Image/hard") and same_cell("", "Text/easy")
    assert not same_cell("Image", "Text/easy") and not same_cell("Image/easy", "Image/hard")
    paper = parse_manifest(render_manifest("paper-lite", {}, {"kaggle/a": "Image"}))
    built = parse_manifest(render_manifest("lite", {}, {"kaggle/a": "Image/hard"}))
    assert diff_manifests(paper, built).unchanged


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


def test_cli_build_from_release_tiers_recovers_the_released_lite_and_is_deterministic(
    capsys: pytest.CaptureFixture[str], lite_catalogue: Path, tmp_path: Path
) -> None:
    out1, out2 = tmp_path / "m1", tmp_path / "m2"
    argv = ["subsets", "build", "--catalogue", str(lite_catalogue), "--tiers",
            "reference:tam-bench", "--seed", "4", "--date", "2025-02-01", "--json",
            "--all-complete"]
    assert main([*argv, "--out", str(out1)]) == 3  # Medium cells are short
    data = json.loads(capsys.readouterr().out)
    assert {k: len(v) for k, v in data["subsets"].items()} == {"lite": 18, "medium": 18,
                                                                "full": 18}
    assert {g["subset"] for g in data["gaps"]} == {"medium"}
    assert all(g["have"] == 1 and "with a tier" in g["reason"] for g in data["gaps"])
    assert main([*argv, "--out", str(out2), "--allow-gaps"]) == 0
    capsys.readouterr()
    for name in ("lite.txt", "medium.txt", "full.txt"):
        assert (out1 / name).read_bytes() == (out2 / name).read_bytes()
    assert main(["subsets", "diff", str(out1 / "lite.txt"), str(out2 / "lite.txt")]) == 0
    assert "same tasks in the same cells" in capsys.readouterr().out


def test_cli_build_names_the_cells_it_cannot_fill_and_exits_3(
    capsys: pytest.CaptureFixture[str], lite_catalogue: Path, tmp_path: Path
) -> None:
    rc = main(["subsets", "build", "--catalogue", str(lite_catalogue), "--tiers",
               "difficulty:paper", "--out", str(tmp_path / "m")])
    out = " ".join(capsys.readouterr().out.split())
    assert rc == 3
    # The paper's formula puts no Lite task in the hard tier: every hard cell is a gap.
    for m in Modality:
        assert f"gap: lite {m.value}/hard has 0 of 1: {m.value} tasks with a tier:" in out
    assert "-- empty --" in out


def test_cli_build_on_the_shipped_catalogue_builds_from_agent_ready_tasks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`tambench subsets build` with no input: the catalogue as installed, agent-ready tasks
    only (the default), every task left out named with what it lacks."""
    from tambench.tasks.catalogue import bundled_catalogue_dir
    from tambench.tasks.readiness import catalogue_readiness

    rc = main(["subsets", "build", "--json"])
    data = json.loads(capsys.readouterr().out)
    gaps = catalogue_readiness(bundled_catalogue_dir())
    lite = data["subsets"]["lite"]
    assert data["agent_ready"] == "yes"
    for name, members in data["subsets"].items():
        assert all(gaps[t] == [] for t in members), name
        assert data["readiness"][name]["agent_ready"] == len(members), name
    short = sum(g["need"] - g["have"] for g in data["gaps"] if g["subset"] == "lite")
    assert len(lite) + short == 18
    assert sorted(lite.values()) == sorted(set(lite.values()))  # one per cell
    assert set(lite) <= set(data["complete"])
    assert data["manifests"] == []  # the installed catalogue is never written
    assert set(lite) <= set(data["subsets"]["medium"]) <= set(data["subsets"]["full"])
    left = {u["id"]: u["reason"] for u in data["unplaced"]}
    for tid in set(data["complete"]) - set(data["subsets"]["full"]):
        assert left[tid].startswith("not agent-ready: "), tid
    assert rc == (3 if data["gaps"] else 0)
    assert all(g["reason"] for g in data["gaps"])
    again = main(["subsets", "build", "--json"])
    assert again == rc and json.loads(capsys.readouterr().out)["subsets"] == data["subsets"]


def test_the_shipped_lite_holds_the_published_release_s_agent_ready_tasks(
        tam_lite_dir: Path) -> None:
    """Where the paper's own Lite list and its public release differ (one Image/hard task),
    the release wins: its tasks' graders and boards are what researchers compare with. A
    release task that is not agent-ready gives its cell to an agent-ready one."""
    from tambench.tasks.catalogue import bundled_catalogue_dir
    from tambench.tasks.readiness import catalogue_readiness

    lite = {t.split("/")[1] for t in
            read_manifest(bundled_catalogue_dir() / "_subsets" / "lite.txt").ids}
    gaps = {t.split("/")[1]: g for t, g in catalogue_readiness(bundled_catalogue_dir()).items()}
    release = {p.name for p in tam_lite_dir.iterdir() if p.is_dir()}
    assert {s for s in release if not gaps[s]} <= lite
    assert all(gaps[s] for s in release - lite)


def test_preferred_groups_rank_in_their_order_before_other_tasks() -> None:
    """The release's task beats the paper list's in the same cell, both beat the rest."""
    m, t = CELLS[0]
    cands = [Candidate(f"kaggle/{n}", m, t, passes_filters=True, complete=True)
             for n in ("other", "listed", "released")]
    pref = {"lite": ({"kaggle/released"}, {"kaggle/listed", "kaggle/released"}),
            "medium": ({"kaggle/released"}, {"kaggle/listed"})}
    for seed in range(5):
        build = build_subsets(cands, seed=seed, lite_per_cell=1, medium_per_cell=2,
                              preferred=pref)
        assert [k for k, v in build.subsets["lite"].items()] == ["kaggle/released"]
        assert set(build.subsets["medium"]) == {"kaggle/released", "kaggle/listed"}


@pytest.mark.parametrize(("tiers", "message"), [
    ("reference:typo", "unknown reference tier 'typo'"),
    ("difficulty:median", "unknown difficulty method"),
    ("vibes:paper", "unknown tier source"),
])
def test_cli_refuses_unknown_tier_sources_with_the_valid_choices(
    capsys: pytest.CaptureFixture[str], tiers: str, message: str
) -> None:
    assert main(["subsets", "build", "--tiers", tiers]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert message in err
    assert "mle-bench, tam-bench" in err or "calibrated, paper, robust" in err


def test_the_shipped_manifests_are_what_a_fresh_build_gives(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tambench.core.layout import SUBSETS_DIR
    from tambench.tasks.catalogue import bundled_catalogue_dir

    assert main(["subsets", "build", "--out", str(tmp_path), "--allow-gaps"]) == 0
    err = capsys.readouterr().err
    assert "tiers read: 151/151" in err  # progress goes to stderr
    for name in ("lite", "medium", "full"):
        shipped = read_manifest(bundled_catalogue_dir() / SUBSETS_DIR / f"{name}.txt")
        fresh = read_manifest(tmp_path / f"{name}.txt")
        assert shipped.cells == fresh.cells, name
        assert shipped.header["tiers"] == fresh.header["tiers"]
        assert shipped.header["catalogue_index_sha256"] == fresh.header["catalogue_index_sha256"]


def test_list_subset_lite_resolves_to_the_shipped_lite_manifest_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tasks", "list", "--subset", "lite", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "subset lite: manifest _subsets/lite.txt" in err
    from tambench.core.layout import SUBSETS_DIR
    from tambench.tasks.catalogue import bundled_catalogue_dir

    shipped = read_manifest(bundled_catalogue_dir() / SUBSETS_DIR / "lite.txt").ids
    assert sorted(r["id"] for r in json.loads(out)) == sorted(shipped)
    assert len(shipped) == 18  # every cell filled (Graph/medium's only task is biendata/pst)
    assert main(["tasks", "list", "--subset", "paper-medium", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 54
