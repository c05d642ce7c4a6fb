"""Generate catalogue stubs for the paper's 150 competitions, and the paper's subset manifests.

Development-time script: reads ../shared/data/tam-catalogue.csv (name as printed, modality,
Lite/Medium/Full membership) and writes, into the bundled catalogue:

* ``<platform>/<slug>/task.json`` for every competition that has no task.json yet, with
  ``status: "incomplete"`` (to be filled by acquisition). An existing task.json is never
  overwritten. The 18 tasks of the paper's public Lite release are complete entries of their
  own and are skipped here.
* ``_subsets/paper-lite.txt``, ``paper-medium.txt``, ``paper-full.txt``: the paper's
  membership, as data.

The written files are self-contained: nothing in the package reads ../shared.

Usage: .venv/bin/python scripts/make_catalogue_stubs.py [--shared ../shared] [--catalogue DIR]
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from tambench.schema.io import save_taskspec, write_text_atomic
from tambench.schema.taskspec import Modality, Provenance, TaskSpec
from tambench.tasks.catalogue import SUBSETS_DIR, TASK_FILE, bundled_catalogue_dir
from tambench.tasks.names import default_url, resolve_name
from tambench.tasks.subsets import render_manifest

REPO = Path(__file__).resolve().parents[1]
#: The paper's Lite list and the public release differ in one Image task.
PAPER_ONLY_LITE = "kaggle/3d-object-detection-for-autonomous-vehicles"
RELEASE_ONLY_LITE = "kaggle/image-matching-challenge-2024-hexathlon"
SAME_COMPETITION = {
    "kaggle/image-matching-challenge-2024": (
        "the same Kaggle competition as the public release's Lite task "
        f"{RELEASE_ONLY_LITE} (the release names it 'Image Matching Challenge 2024 - "
        "Hexathlon')"
    ),
}


def read_paper_catalogue(path: Path) -> list[dict[str, str]]:
    """Rows of tam-catalogue.csv, checked."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    expected = {"competition", "modality", "in_lite", "in_medium", "in_full"}
    if not rows or set(rows[0]) != expected:
        raise SystemExit(f"{path}: expected columns {sorted(expected)}, got "
                         f"{sorted(rows[0]) if rows else '(no rows)'}")
    return rows


def stub_for(row: dict[str, str]) -> tuple[TaskSpec, list[str]]:
    """The stub TaskSpec of one catalogue row, and its subset memberships."""
    name = row["competition"]
    named = resolve_name(name)
    subsets = [s for s in ("lite", "medium", "full") if row[f"in_{s}"].strip() == "1"]
    notes = [f"listed in the paper's catalogue as {name!r} ({row['modality']}); paper subsets: "
             f"{', '.join(subsets)}"]
    if named.note:
        notes.append(f"id mapping: {named.note}")
    if named.task_id == PAPER_ONLY_LITE:
        notes.append("the paper lists this task in Lite, but its public Lite release has "
                     f"{RELEASE_ONLY_LITE} in the Image/hard cell instead")
    if named.task_id in SAME_COMPETITION:
        notes.append(SAME_COMPETITION[named.task_id])
    spec = TaskSpec(
        id=named.task_id,
        platform=named.platform,
        url=named.url or default_url(named.platform, named.slug),
        title=name,
        status="incomplete",
        modality=Modality(row["modality"]),
        provenance=Provenance(
            mapper="importer:tam-catalogue",
            unfilled=["grading", "split", "leaderboard", "pages", "dates", "field"],
            notes=notes,
        ),
    )
    return spec, subsets


def main(argv: list[str] | None = None) -> int:
    """Write the stubs and manifests; print what was written and skipped."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--catalogue", type=Path, default=bundled_catalogue_dir())
    args = ap.parse_args(argv)
    rows = read_paper_catalogue(args.shared / "data" / "tam-catalogue.csv")
    lite_release = {p.name for p in (args.shared / "data" / "tam-lite").iterdir() if p.is_dir()}
    members: dict[str, dict[str, str]] = {"lite": {}, "medium": {}, "full": {}}
    written, kept, release = 0, 0, 0
    seen: dict[str, str] = {}
    for row in rows:
        spec, subsets = stub_for(row)
        if spec.id in seen:
            raise SystemExit(f"{row['competition']!r} and {seen[spec.id]!r} map to {spec.id}")
        seen[spec.id] = row["competition"]
        for s in subsets:
            members[s][spec.id] = row["modality"]
        target = args.catalogue / spec.platform / spec.slug / TASK_FILE
        if spec.slug in lite_release:
            release += 1
            continue
        if target.exists():
            kept += 1
            continue
        save_taskspec(spec, target)
        written += 1
    for name, cells in members.items():
        header = {"source": "the paper's catalogue (name, modality, subset membership)"}
        if name == "lite":
            header["discrepancy"] = (f"the public Lite release has {RELEASE_ONLY_LITE} "
                                     f"instead of {PAPER_ONLY_LITE}")
        write_text_atomic(args.catalogue / SUBSETS_DIR / f"paper-{name}.txt",
                          render_manifest(f"paper-{name}", header, cells))
    print(f"{len(rows)} competitions: {written} stubs written, {kept} existing task.json kept, "
          f"{release} left to the Lite release entries; paper manifests: "
          + ", ".join(f"{k} {len(v)}" for k, v in members.items()))
    missing_release = sorted(lite_release - {i.split('/', 1)[1] for i in members['lite']})
    if missing_release:
        print(f"release Lite folders not in the paper's Lite list: {missing_release}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
