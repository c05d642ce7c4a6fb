"""Fill the bundled catalogue from the peers' public repositories and ../shared/data.

Development-time script, and (with ``ship_leaderboards.py``, which it runs first) the one place
where peer data enters the package. Peers are read as data, never run: MLE-bench
(github:openai/mle-bench), dslighting (github:usail-hkust/dslighting, its registry in
MLE-bench's layout) and MLE-Dojo (github:MLE-Dojo/MLE-Dojo), each from a git snapshot or a
checkout. For every entry of the paper's catalogue, and for every competition of MLE-bench and
MLE-Dojo (the ``mle-bench`` and ``mle-dojo`` collections), it writes, each fact with where it
was read (``provenance.facts``: repository, commit, path):

* metric and parameters, id and target columns, submission header: what the importers of
  ``tambench.tasks.importers`` read from each peer (never a second importer). Sources that
  disagree leave the grading unset, and the notes name both readings. The paper release's
  curated Lite entries keep their grading;
* a real final leaderboard where the entry has none: dslighting's copy of MLE-bench's file
  (taken only when its SHA-256 is MLE-bench's LFS oid), else MLE-Dojo's private board;
* start and end dates from the descriptions' timelines (and the timelines held elsewhere,
  ``fill_timelines``) and the boards' last submissions, cross-checked
  (:mod:`tambench.tasks.dates`); conflicts are recorded and leave the date unset; a competition
  its sources say never ends is recorded as rolling; where none of them tells, Meta Kaggle's
  record of a Kaggle competition's deadline (``fill_metakaggle``), then ML Contests' list
  (``fill_mlcontests``);
* the difficulty from the board (stored, so ``load_task(...).difficulty`` is what ``tambench
  tasks show`` prints), and the tier it gives;
* a prepare recipe (``split``): the importers' suggestion, with the raw files MLE-bench's
  preparer reads (:mod:`fill_recipes`);
* modality; and a note naming what an incomplete entry lacks and where it could come from.

Then it writes the collection manifests (``_collections/``) and the subset manifests built
from the filled catalogue (``_subsets/lite.txt``, ...).

Re-runnable: a second run with the same inputs changes nothing. ``--check`` fills a copy and
exits 1 when the shipped catalogue differs from it (a test runs it).

Usage: .venv/bin/python scripts/fill_catalogue.py [--shared ../shared] [--mirrors DIR]
           [--mle-bench DIR] [--dslighting DIR] [--mle-dojo DIR] [--catalogue DIR] [--check]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

from fill_entries import EntryFill, fill_catalogue_entries  # noqa: E402
from fill_manifests import write_collections, write_subsets  # noqa: E402
from fill_sources import Sources, import_peers  # noqa: E402
from peer_trees import PEERS, SOURCES, PeerTree, find_mirrors, open_peer  # noqa: E402

from tambench.tasks.catalogue import bundled_catalogue_dir  # noqa: E402

#: The published rule and metric id of each MLE-Dojo competition, checked by hand: it settles
#: a metric two peers read differently when it confirms one of the readings.
RULES = REPO / "bench" / "data" / "mledojo_rules.csv"
#: The same, hand-checked, for the paper's competitions the other sources hold (DSGym, OGB).
MORE_RULES = REPO / "bench" / "data" / "paper_rules.csv"
#: Largest file the catalogue may ship.
MAX_FILE_BYTES = 3_000_000


def _script(name: str):  # type: ignore[no-untyped-def]
    import importlib

    return importlib.import_module(name)


def open_peers(args: argparse.Namespace, workdir: Path) -> dict[str, PeerTree]:
    """Every peer tree given (or found under the mirrors folder)."""
    trees = {}
    for name, peer in {**PEERS, **SOURCES}.items():
        given = getattr(args, name.replace("-", "_"))
        path = Path(given) if given else (args.mirrors / peer.mirror / "repo"
                                          if args.mirrors else None)
        if path is None or not path.exists():
            raise SystemExit(f"{name}: no snapshot of {peer.repository} (give --{name} DIR "
                             "or --mirrors DIR)")
        trees[name] = open_peer(path, peer, workdir)
    return trees


def fill(catalogue: Path, shared: Path, trees: dict[str, PeerTree], workdir: Path,
         mirrors: Path | None = None) -> list[EntryFill]:
    """Ship the shared boards, then fill every entry and its page sources (read from the
    snapshots under ``mirrors``), then write the manifests."""
    ship = _script("ship_leaderboards")
    if ship.main(["--shared", str(shared), "--catalogue", str(catalogue)]) != 0:
        raise SystemExit("ship_leaderboards failed")
    sources = Sources(trees=trees, shared=shared, rules_file=RULES, more_rules_file=MORE_RULES,
                      workdir=workdir)
    import_peers(sources)
    fills = fill_catalogue_entries(catalogue, sources)
    if mirrors is not None:
        pages = _script("fill_pages")
        pages.fill_pages(catalogue, pages.open_mirrors(mirrors))
    _script("fill_layouts").write_layouts(catalogue)  # recipes written for the real downloads
    _script("fill_statement").fill_statements(catalogue)
    write_collections(catalogue, fills, trees)
    write_subsets(catalogue)
    for note in sources.notes:
        print(f"note: {note}")
    return fills


def same_json(a: object, b: object) -> bool:
    """Equal JSON values, floats within a relative 1e-9: the difficulty model's sums differ in
    their last digit between processors (the BLAS kernel's order of additions), which is not
    a change of the catalogue."""
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and not isinstance(a, bool) and not isinstance(b, bool)
                and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def same_file(a: Path, b: Path) -> bool:
    """Byte-equal files, or JSON files whose values are equal by :func:`same_json`."""
    if filecmp.cmp(a, b, shallow=False):
        return True
    if a.suffix != ".json":
        return False
    try:
        return same_json(json.loads(a.read_text()), json.loads(b.read_text()))
    except (ValueError, UnicodeDecodeError):
        return False


def differences(a: Path, b: Path) -> list[str]:
    """Relative paths of files that differ between two trees, or exist in only one."""
    cmp = filecmp.dircmp(a, b)
    out: list[str] = []

    def walk(c: filecmp.dircmp[str], prefix: str) -> None:
        out.extend(f"{prefix}{n}" for n in c.left_only + c.right_only + c.funny_files)
        out.extend(f"{prefix}{n}" for n in c.common_files
                   if not same_file(Path(c.left) / n, Path(c.right) / n))
        for name, sub in sorted(c.subdirs.items()):
            walk(sub, f"{prefix}{name}/")

    walk(cmp, "")
    return sorted(out)


def summary(fills: list[EntryFill], catalogue: Path) -> None:
    """What the fill gave: complete counts, the paper's incomplete tasks and why, sizes."""
    paper = [f for f in fills if f.paper]
    done = [f for f in paper if f.spec.status == "complete"]
    print(f"paper: {len(paper)} entries, {len(done)} complete; "
          f"all entries: {len(fills)}, {sum(f.spec.status == 'complete' for f in fills)} "
          "complete")
    for f in sorted(paper, key=lambda f: f.spec.id):
        if f.spec.status != "complete":
            print(f"  incomplete {f.spec.id}: {f.missing}")
    sizes = [p.stat().st_size for p in catalogue.rglob("*") if p.is_file()]
    print(f"catalogue: {len(sizes)} files, {sum(sizes):,} bytes, largest {max(sizes):,}")
    if max(sizes) > MAX_FILE_BYTES:
        raise SystemExit(f"a file is over {MAX_FILE_BYTES:,} bytes")


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--mirrors", type=Path, default=find_mirrors(REPO),
                    help="folder of snapshots <owner>+<name>/repo (default: the nearest "
                         ".mirror folder above the repository)")
    for name, peer in {**PEERS, **SOURCES}.items():
        ap.add_argument(f"--{name}", help=f"git directory or checkout of {peer.repository}")
    ap.add_argument("--catalogue", type=Path, default=bundled_catalogue_dir())
    ap.add_argument("--check", action="store_true",
                    help="fill a copy; exit 1 when the catalogue differs from it")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tambench-fill-") as tmp:
        work = Path(tmp)
        trees = open_peers(args, work / "peers")
        target = args.catalogue
        if args.check:
            target = work / "catalogue"
            shutil.copytree(args.catalogue, target)
        fills = fill(target, args.shared, trees, work / "read", args.mirrors)
        summary(fills, target)
        if args.check:
            changed = differences(args.catalogue, target)
            for path in changed:
                print(f"  differs: {path}")
            print(f"{len(changed)} file(s) would change")
            return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
