"""The peers' public repositories as folders of files, read as data (helper of fill_catalogue).

A peer is given as a git directory (a snapshot without a work tree, such as the mirrors under
``.mirror/<owner>+<name>/repo``) or as a checkout. A git directory's subtree is written into a
temporary folder blob by blob (``git cat-file --batch``): nothing is checked out, run or
imported from it, and a blob the snapshot does not hold (a partial clone leaves its largest
files out) is listed as missing instead of stopping the export.

Every file read from a tree is cited as (repository, commit, path inside the repository).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Peer:
    """One peer benchmark: its repository, the subtree the fill reads, its mirror's name."""

    name: str
    repository: str
    """``github:<owner>/<name>``."""
    subtree: str
    """The folder of competitions inside the repository."""
    mirror: str
    """The folder name of its snapshot under ``.mirror/``."""
    also: tuple[str, ...] = ()
    """Other folders the fill reads (MLE-bench's complexity labels, DSGym's boards)."""
    commit: str = ""
    """The commit read (empty: the snapshot's HEAD), for a file a later commit removed."""


PEERS: dict[str, Peer] = {
    "mle-bench": Peer("mle-bench", "github:openai/mle-bench", "mlebench/competitions",
                      "openai+mle-bench", also=("experiments/splits",)),
    "dslighting": Peer("dslighting", "github:usail-hkust/dslighting", "dslighting/registry",
                       "usail-hkust+dslighting"),
    "mle-dojo": Peer("mle-dojo", "github:MLE-Dojo/MLE-Dojo", "mledojo/competitions",
                     "MLE-Dojo+MLE-Dojo"),
}

#: Other public sources of the paper's competitions, read by their own helpers of the fill
#: (``fill_dsgym``, ``fill_ogb``, ``fill_metakaggle``, ``fill_mlcontests``, ``fill_timelines``)
#: rather than by an importer: pages, final boards, timelines, Kaggle's own record of each competition's deadline.
SOURCES: dict[str, Peer] = {
    "dsgym": Peer("dsgym", "github:fannie1208/DSGym", "data/task/dspredict", "fannie1208+DSGym",
                  also=("data/DSPredict_Offline_Leaderboard",)),
    "ogb-web": Peer("ogb-web", "github:snap-stanford/ogb-web", "_docs/kddcup2021",
                    "snap-stanford+ogb-web"),
    "meta-kaggle": Peer("meta-kaggle", "github:Romathonat/KaggleMateAI", "data/Competitions.csv",
                        "Romathonat+KaggleMateAI",
                        commit="3f1cb1ba7b16e95eae2031b334e95a8fc4406dca"),
    "mlcontests-2024": Peer("mlcontests-2024", "github:mlcontests/mlcontests.github.io",
                            "competitions.json", "mlcontests+mlcontests.github.io",
                            commit="ac1a70439bc2146e5a7efc6e4679975faeaeacd6"),
    "mlcontests": Peer("mlcontests", "github:mlcontests/mlcontests.github.io",
                       "competitions.json", "mlcontests+mlcontests.github.io",
                       commit="81539817fe8ea8fb646c2b82f12593754578c80e"),
    "kddcup2024": Peer("kddcup2024", "github:matthewliu0324/CS145_project", "project_proposal.md",
                       "matthewliu0324+CS145_project",
                       commit="2f156541e3d84c90c19a56dbcb45fe7dec4a940a"),
}


@dataclass
class PeerTree:
    """A peer's files on disk at one commit."""

    peer: Peer
    commit: str
    root: Path
    """The repository's root as written here (``root / peer.subtree`` holds the competitions)."""
    missing: list[str] = field(default_factory=list)
    """Paths the snapshot lists but does not hold."""

    @property
    def competitions(self) -> Path:
        """The folder of competition folders."""
        return self.root / self.peer.subtree

    def cite(self, path: Path) -> str:
        """A file of this tree as a path inside the repository."""
        return path.relative_to(self.root).as_posix()


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True,
                          capture_output=True).stdout


def _export(git_dir: Path, subtree: str, dest: Path, rev: str = "HEAD") -> list[str]:
    """Write every blob under ``subtree`` at ``rev`` into ``dest``; returns the missing paths."""
    listing = _git(git_dir, "ls-tree", "-r", "-z", rev, "--", subtree).split(b"\0")
    entries = []
    for line in listing:
        if not line:
            continue
        meta, path = line.split(b"\t", 1)
        _, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((sha, path.decode("utf-8")))
    missing: list[str] = []
    with subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for sha, path in entries:
            proc.stdin.write(sha + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline()
            if header.rstrip().endswith(b"missing"):
                missing.append(path)
                continue
            data = proc.stdout.read(int(header.split()[2]))
            proc.stdout.read(1)
            target = dest / path
            if ".." in Path(path).parts:
                raise SystemExit(f"{git_dir}: refusing the path {path!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        proc.stdin.close()
    return missing


def open_peer(path: Path, peer: Peer, workdir: Path) -> PeerTree:
    """A peer's tree from a git directory (exported into ``workdir``) or a checkout."""
    path = Path(path)
    if (path / ".git").is_dir() and peer.commit:
        path = path / ".git"  # a checkout: its pinned commit is read from its git directory
    if (path / ".git").exists():
        commit = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], check=True,
                                capture_output=True, text=True).stdout.strip()
        return PeerTree(peer, commit, path)
    if not (path / "HEAD").is_file():
        raise SystemExit(f"{path}: not a git directory or a checkout of {peer.repository}")
    commit = _git(path, "rev-parse", peer.commit or "HEAD").decode().strip()
    dest = workdir / peer.name
    missing = [m for sub in (peer.subtree, *peer.also) for m in _export(path, sub, dest, commit)]
    return PeerTree(peer, commit, dest, missing)


def find_mirrors(start: Path) -> Path | None:
    """The nearest ``.mirror`` folder at or above ``start``."""
    for folder in (start, *start.parents):
        if (folder / ".mirror").is_dir():
            return folder / ".mirror"
    return None
