"""What the peers and ../shared/data say about one competition (helper of fill_catalogue).

For a competition slug, :class:`Sources` gathers, each with where it was read:

* the tasks the importers read from each peer tree (grading, title, modality, a suggested
  split), through the importers of ``tambench.tasks.importers`` (never a second importer);
* the descriptions (MLE-bench's and dslighting's ``description.md``, MLE-Dojo's
  ``info/description.txt``, ``../shared/data/competition-descriptions/<slug>.md``), read for
  their timelines;
* the real final leaderboards: the shared boards, dslighting's copies of MLE-bench's boards
  (accepted only when their SHA-256 is the oid of MLE-bench's LFS pointer for the same
  competition: dslighting's other boards are placeholders of a few rows), MLE-Dojo's private
  boards, and the paper release's boards.
"""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from peer_trees import PeerTree

from tambench.core.leaderboard import Leaderboard, read_leaderboard
from tambench.errors import LeaderboardError
from tambench.schema.taskspec import FactSource, LeaderboardSource
from tambench.tasks.dates import DatedSource, dated_text, last_submission
from tambench.tasks.importers import IMPORTERS, ImportedTask, read_tree

#: Which importer reads each peer's tree (the dslighting registry is in MLE-bench's layout).
IMPORTER_OF = {"mle-bench": "mle-bench", "dslighting": "mle-bench", "mle-dojo": "mle-dojo"}
#: The files an importer reads for grading, per peer (for citing them).
GRADING_FILES = {
    "mle-bench": ("config.yaml", "description.md"),
    "dslighting": ("config.yaml", "description.md"),
    "mle-dojo": ("utils/metric.py", "info/description.txt"),
}
DESCRIPTION_FILES = {"mle-bench": "description.md", "dslighting": "description.md",
                     "mle-dojo": "info/description.txt"}
SHARED = "shared-data"
#: Where the two rules tables live in the repository (MLE-Dojo's competitions', the others').
RULES_PATHS = ("bench/data/mledojo_rules.csv", "bench/data/paper_rules.csv")
_LFS_OID = re.compile(r"^oid sha256:([0-9a-f]{64})$", re.M)


@dataclass(frozen=True)
class Board:
    """A real final leaderboard found for a competition, with its provenance record."""

    board: Leaderboard
    record: LeaderboardSource
    raw: Path
    """The file as read (kept for its submission dates)."""


@dataclass
class Sources:
    """Every peer tree, what the importers read from them, and the shared data folder."""

    trees: dict[str, PeerTree]
    shared: Path
    imported: dict[str, dict[str, ImportedTask]] = field(default_factory=dict)
    """Lower-cased slug -> peer name -> the task its importer read."""
    notes: list[str] = field(default_factory=list)
    rules_file: Path | None = None
    """The project's table of MLE-Dojo's competitions' published rules and metric ids."""
    more_rules_file: Path | None = None
    """The same table for the paper's competitions the other sources hold."""
    workdir: Path | None = None
    """A scratch folder for files the fill writes while reading (boards as read, pages)."""
    cache: dict[str, object] = field(default_factory=dict)
    """What a source helper read once (keyed by the source's name)."""
    _sha: dict[Path, str] = field(default_factory=dict)
    _rules: dict[str, dict[str, str]] | None = None
    _rule_files: dict[str, str] = field(default_factory=dict)

    def rules(self) -> dict[str, dict[str, str]]:
        """Lower-cased slug -> its row of the rules tables (empty without them); a slug in
        both tables is an error of the tables."""
        if self._rules is None:
            self._rules = {}
            for path in (self.rules_file, self.more_rules_file):
                if path is None or not path.is_file():
                    continue
                with path.open(encoding="utf-8", newline="") as fh:
                    rows = {r["slug"].lower(): r for r in csv.DictReader(fh)}
                twice = sorted(set(rows) & set(self._rules))
                if twice:
                    raise SystemExit(f"{path}: slugs already in another rules table: {twice}")
                self._rules.update(rows)
                role = RULES_PATHS[0] if path == self.rules_file else RULES_PATHS[1]
                self._rule_files.update(dict.fromkeys(rows, role))
        return self._rules

    def rule_file_of(self, slug: str) -> str:
        """The repository path of the rules table holding a slug's row."""
        self.rules()
        return self._rule_files[slug.lower()]

    def folder(self, peer: str, slug: str) -> Path | None:
        """A competition's folder in a peer tree (matched case-insensitively)."""
        tree = self.trees.get(peer)
        if tree is None or not tree.competitions.is_dir():
            return None
        for cand in (tree.competitions / slug, *tree.competitions.glob("*")):
            if cand.is_dir() and cand.name.lower() == slug.lower():
                return cand
        return None

    def cite(self, peer: str, path: Path, **fields: str) -> FactSource:
        """A file of a peer tree as a fact source."""
        tree = self.trees[peer]
        return FactSource(source=tree.peer.repository, commit=tree.commit,
                          path=tree.cite(path), **fields)

    def cite_shared(self, path: Path, **fields: str) -> FactSource:
        """A file of ../shared/data as a fact source."""
        return FactSource(source=SHARED, path=path.relative_to(self.shared).as_posix(), **fields)

    def sha256(self, path: Path) -> str:
        """SHA-256 of a file, cached."""
        if path not in self._sha:
            self._sha[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._sha[path]


def import_peers(sources: Sources) -> None:
    """Run each peer's importer on its tree (a peer whose importer is not registered yet is
    noted and skipped)."""
    for name, tree in sources.trees.items():
        kind = IMPORTER_OF.get(name)
        if kind is None:
            continue  # a source read by its own helper (fill_dsgym, fill_ogb), not an importer
        if kind not in IMPORTERS:
            sources.notes.append(f"{name}: no {kind!r} importer registered in this tambench; "
                                 "its tree gave dates and leaderboards only")
            continue
        read = read_tree(kind, tree.root if name == "mle-bench" else tree.competitions)
        for task in read.tasks:
            sources.imported.setdefault(task.spec.slug.lower(), {})[name] = task
        if read.failures:
            sources.notes.append(f"{name}: {len(read.failures)} folder(s) not imported")
        if tree.missing:
            sources.notes.append(f"{name}: {len(tree.missing)} file(s) absent from the snapshot")


# --- descriptions and dates ------------------------------------------------------------------


def description_files(sources: Sources, slug: str) -> list[tuple[FactSource, Path]]:
    """Every description of a competition, each byte-distinct text once."""
    found: list[tuple[FactSource, Path]] = []
    for peer, name in DESCRIPTION_FILES.items():
        folder = sources.folder(peer, slug)
        if folder is not None and (folder / name).is_file():
            found.append((sources.cite(peer, folder / name), folder / name))
    shared = sources.shared / "data" / "competition-descriptions" / f"{slug}.md"
    if shared.is_file():
        found.append((sources.cite_shared(shared), shared))
    seen: set[str] = set()
    out = []
    for src, path in found:
        digest = sources.sha256(path)
        if digest not in seen:
            seen.add(digest)
            out.append((src, path))
    return out


def dated_sources(sources: Sources, slug: str, boards: list[Board]) -> list[DatedSource]:
    """Timelines of every description and the last submission of every dated final (private)
    board."""
    out = []
    for src, path in description_files(sources, slug):
        out.append(dated_text(src, path.read_text(encoding="utf-8", errors="replace")))
    seen: set[str] = set()
    for b in boards:
        digest = sources.sha256(b.raw)
        last = last_submission(b.board)
        if last is None or digest in seen or b.record.kind != "private":
            continue  # a public board may be a snapshot of a running competition
        seen.add(digest)
        rec = b.record
        out.append(DatedSource(FactSource(source=rec.source, commit=rec.commit, path=rec.path),
                               board_last=last))
    return out


# --- leaderboards ----------------------------------------------------------------------------


def _read(path: Path) -> Leaderboard | None:
    try:
        return read_leaderboard(path)
    except LeaderboardError:
        return None


def mle_bench_oid(sources: Sources, slug: str) -> str | None:
    """The SHA-256 MLE-bench's LFS pointer gives for a competition's leaderboard."""
    folder = sources.folder("mle-bench", slug)
    pointer = folder / "leaderboard.csv" if folder is not None else None
    if pointer is None or not pointer.is_file() or pointer.stat().st_size > 1000:
        return None
    m = _LFS_OID.search(pointer.read_text(encoding="utf-8", errors="replace"))
    return m.group(1) if m else None


def dslighting_board(sources: Sources, slug: str) -> tuple[Board | None, str]:
    """dslighting's copy of MLE-bench's board, or why it is not taken."""
    folder = sources.folder("dslighting", slug)
    path = folder / "leaderboard.csv" if folder is not None else None
    if path is None or not path.is_file():
        return None, ""
    oid = mle_bench_oid(sources, slug)
    if oid is None or oid != sources.sha256(path):
        return None, (f"dslighting's {sources.trees['dslighting'].cite(path)} is not "
                      "MLE-bench's file (no matching LFS oid): not taken as a real board")
    lb = _read(path)
    if lb is None:
        return None, f"dslighting's {path.name} could not be read"
    mb = sources.trees["mle-bench"]
    same = [b for b in shared_boards(sources, slug) if b.record.sha256 == oid]
    record = LeaderboardSource(
        source=mb.peer.repository, commit=mb.commit,
        path=f"{mb.peer.subtree}/{folder.name}/leaderboard.csv",  # type: ignore[union-attr]
        kind=same[0].record.kind if same else "private", rows=len(lb), sha256=oid, notes=[
            "MLE-bench's leaderboard file (its LFS oid), read from the copy in "
            f"{sources.trees['dslighting'].peer.repository}@{sources.trees['dslighting'].commit}"
            f":{sources.trees['dslighting'].cite(path)}; final board of a finished "
            "competition, as MLE-bench ranks against it"])
    return Board(lb, record, path), ""


def mle_dojo_board(sources: Sources, slug: str) -> Board | None:
    """MLE-Dojo's private leaderboard of a competition."""
    folder = sources.folder("mle-dojo", slug)
    path = folder / "info" / "private_leaderboard.csv" if folder is not None else None
    if path is None or not path.is_file():
        return None
    lb = _read(path)
    if lb is None or len(lb) == 0:
        return None
    tree = sources.trees["mle-dojo"]
    record = LeaderboardSource(source=tree.peer.repository, commit=tree.commit,
                               path=tree.cite(path), kind="private", rows=len(lb),
                               sha256=sources.sha256(path),
                               notes=["MLE-Dojo's copy of the Kaggle private leaderboard "
                                      "(rank and score only)"])
    return Board(lb, record, path)


def shared_boards(sources: Sources, slug: str) -> list[Board]:
    """The dated boards of ../shared/data for a competition (their submission dates), read once
    per fill (the board, date and dslighting steps all ask for them)."""
    key = f"shared-boards:{slug.lower()}"
    if key not in sources.cache:
        sources.cache[key] = _shared_boards(sources, slug)
    return list(sources.cache[key])  # type: ignore[call-overload]


def _shared_boards(sources: Sources, slug: str) -> list[Board]:
    out = []
    index = sources.shared / "data" / "leaderboards" / "index.csv"
    rows = {}
    if index.is_file():
        with index.open(encoding="utf-8", newline="") as fh:
            rows = {r["slug"].lower(): r for r in csv.DictReader(fh)}
    row = rows.get(slug.lower())
    path = sources.shared / "data" / "leaderboards" / slug / "leaderboard.csv"
    if row is not None and path.is_file() and (lb := _read(path)) is not None:
        out.append(Board(lb, LeaderboardSource(
            source=f"github:{row['repo']}", commit=row["commit"], path=row["path"],
            kind=row["kind"] or "unknown", rows=len(lb),  # type: ignore[arg-type]
            sha256=sources.sha256(path)), path))
    lite = sources.shared / "data" / "tam-lite" / slug / "leaderboard.csv"
    if lite.is_file() and (lb := _read(lite)) is not None:
        # The release does not say which board it kept; the index's kind of it is used.
        kind = row["kind"] if row is not None and row["kind"] else "unknown"
        out.append(Board(lb, LeaderboardSource(
            source=SHARED, path=lite.relative_to(sources.shared).as_posix(),
            kind=kind,  # type: ignore[arg-type]
            rows=len(lb), sha256=sources.sha256(lite)), lite))
    return out
