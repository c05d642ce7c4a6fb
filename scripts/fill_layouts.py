"""Recipes written for the real downloads, and the raw fixtures that check them.

Each entry below is a task's ``split`` recipe (written into its task.json, nothing else
changed) and its ``raw_fixture.json`` (the download's layout: file names, archives inside it,
columns), both read from the source named in the entry (a peer's prepare script at a commit,
or the competition's data page). The suite's round trip (tests/splits/test_catalogue_recipes.py)
prepares each fixture with its recipe, audits it and grades the answers. An entry without a
``split`` (the task's own recipe does not read that layout yet) writes its fixture as
``raw_fixture_mlebench.json``: it checks ``prepare --like mle-bench`` alone.

    python scripts/fill_layouts.py           # write the recipes and fixtures
    python scripts/fill_layouts.py --check   # exit 1 when a file would change
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import recipe_layouts
import recipe_layouts_hard
import recipe_layouts_kaggle
import recipe_layouts_media
import recipe_layouts_mlebench
import recipe_layouts_nopeer
import recipe_layouts_nuscenes
import recipe_layouts_paper
import recipe_layouts_playground
import recipe_layouts_tabular

from tambench.core.layout import MLE_FIXTURE_FILE
from tambench.schema.io import dump_taskspec, load_taskspec
from tambench.schema.splitspec import parse_split_spec
from tambench.splits.fixture import FIXTURE_FILE, RawFixture

CATALOGUE = Path(__file__).resolve().parents[1] / "tambench" / "tasks" / "catalogue"


def _merged() -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for module in (recipe_layouts, recipe_layouts_mlebench, recipe_layouts_playground,
                   recipe_layouts_tabular,
                   recipe_layouts_kaggle, recipe_layouts_hard, recipe_layouts_media,
                   recipe_layouts_nopeer, recipe_layouts_paper, recipe_layouts_nuscenes):
        twice = sorted(set(merged) & set(module.LAYOUTS))
        if twice:
            raise SystemExit(f"{module.__name__} repeats recipes of {twice}")
        merged.update(module.LAYOUTS)
    return merged


LAYOUTS = _merged()


def _outputs(catalogue: Path, task_id: str, entry: dict[str, Any]) -> dict[Path, str]:
    """The task.json with the entry's recipe and its fixture; an entry without a ``split``
    (its own recipe not written for that layout yet) gives only the fixture that checks
    MLE-bench's split (``MLE_FIXTURE_FILE``), the task.json left as it is."""
    folder = catalogue / task_id
    fixture = RawFixture.model_validate({**entry["fixture"], "sources": entry["sources"]})
    text = json.dumps(fixture.model_dump(exclude_defaults=True), indent=2) + "\n"
    if "split" not in entry:
        return {folder / MLE_FIXTURE_FILE: text}
    spec = load_taskspec(folder / "task.json")
    split = parse_split_spec({**entry["split"], "sources": entry["sources"]})
    updated = spec.model_copy(update={"split": split})
    return {folder / "task.json": dump_taskspec(updated), folder / FIXTURE_FILE: text}


def write_layouts(catalogue: Path = CATALOGUE, *, check: bool = False) -> list[str]:
    """Write (or with ``check``, only compare) every recipe and fixture of :data:`LAYOUTS`
    into ``catalogue``; the relative paths of the files that changed (or would)."""
    changed = []
    for task_id, entry in sorted(LAYOUTS.items()):
        for path, text in _outputs(catalogue, task_id, entry).items():
            old = path.read_text(encoding="utf-8") if path.is_file() else None
            if old == text:
                continue
            changed.append(path.relative_to(catalogue).as_posix())
            if not check:
                path.write_text(text, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = write_layouts(check=check)
    verb = "would change" if check else "written"
    print(f"{len(LAYOUTS)} recipes; {len(changed)} file(s) {verb}")
    for c in changed:
        print(f"  {c}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
