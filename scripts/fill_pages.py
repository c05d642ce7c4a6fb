"""Fill every catalogue entry's ``page_sources``: where its pages are read, pinned by SHA-256.

Reads the peers' snapshots (git directories, as under ``.mirror/<owner>+<name>/repo``) as
data and records, for each entry, every copy of its competition's page found there, best
first, then the platform's address:

* MLE-bench ``mlebench/competitions/<slug>/description.md``;
* MLE-Dojo ``mledojo/competitions/<slug>/info/description.txt``;
* dslighting ``dslighting/registry/<slug>/description.md``;
* DSGym ``data/task/dspredict/{easy,hard}.json``, the item whose ``challenge_name`` is the
  slug (its ``description`` text);
* the OGB website ``_docs/kddcup2021/<track>.md`` for the OGB-LSC tasks;
* the paper's release (TAM-Bench ``<Modality>/<tier>/input/<name>.json``): the paper's
  schema, the only public statement of the biendata and AIcrowd tasks.

No text is written into the catalogue, only the address and the checksum.

Usage: python scripts/fill_pages.py [--mirrors DIR] [--catalogue DIR] [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from peer_trees import find_mirrors

from tambench.schema.io import dump_taskspec, load_taskspec, save_taskspec
from tambench.schema.taskspec import PageSource, TaskSpec

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "tambench" / "tasks" / "catalogue"

#: name -> (repository, mirror folder, path pattern, format); tried in this order.
FILES = (
    ("github:openai/mle-bench", "openai+mle-bench",
     "mlebench/competitions/{slug}/description.md", "markdown"),
    ("github:MLE-Dojo/MLE-Dojo", "MLE-Dojo+MLE-Dojo",
     "mledojo/competitions/{slug}/info/description.txt", "text"),
    ("github:usail-hkust/dslighting", "usail-hkust+dslighting",
     "dslighting/registry/{slug}/description.md", "markdown"),
)
DSGYM = ("github:fannie1208/DSGym", "fannie1208+DSGym",
         ("data/task/dspredict/easy.json", "data/task/dspredict/hard.json"))
OGB = ("github:snap-stanford/ogb-web", "snap-stanford+ogb-web", "_docs/kddcup2021/{track}.md")
PAPER = ("github:JiaHangyi828/TAM-Bench", "JiaHangyi828+TAM-Bench")
#: Catalogue slug -> the competition's slug on the platform, where they differ.
ALIASES = {"binary-prediction-of-poisonous-mushrooms": "playground-series-s4e8",
           "image-matching-challenge-2024": "image-matching-challenge-2024-hexathlon"}


class Mirror:
    """One git snapshot, read with ``git show`` at its HEAD."""

    def __init__(self, repository: str, git_dir: Path) -> None:
        self.repository = repository
        self.git_dir = git_dir
        self.commit = self._git("rev-parse", "HEAD").decode().strip()
        self.names = set(self._git("ls-tree", "-r", "--name-only", "HEAD").decode().splitlines())
        self.folded = {n.lower(): n for n in sorted(self.names, reverse=True)}

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], check=True,
                              capture_output=True).stdout

    def find(self, path: str) -> str | None:
        """The path as the snapshot spells it (slugs differ in case: ``AI4Code``)."""
        return path if path in self.names else self.folded.get(path.lower())

    def read(self, path: str) -> bytes | None:
        return self._git("show", f"HEAD:{path}") if path in self.names else None


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _file_sources(mirrors: dict[str, Mirror], slugs: list[str]) -> list[PageSource]:
    out = []
    for repo, _, pattern, fmt in FILES:
        m = mirrors.get(repo)
        for slug in slugs if m else ():
            path = m.find(pattern.format(slug=slug)) or ""  # type: ignore[union-attr]
            data = m.read(path)  # type: ignore[union-attr]
            if data:
                out.append(PageSource(kind="repository", source=repo, commit=m.commit,  # type: ignore[union-attr]
                                      path=path, format=fmt, sha256=_sha(data)))
                break
    return out


def _dsgym_sources(m: Mirror | None, slugs: list[str]) -> list[PageSource]:
    for path in DSGYM[2] if m else ():
        items = json.loads(m.read(path) or b"[]")  # type: ignore[union-attr]
        for item in items:
            if item.get("challenge_name") in slugs and item.get("description"):
                text = item["description"].encode()
                return [PageSource(kind="repository", source=DSGYM[0], commit=m.commit,  # type: ignore[union-attr]
                                   path=path, key=f"challenge_name={item['challenge_name']}"
                                   "/description", format="text", sha256=_sha(text))]
    return []


def _ogb_sources(m: Mirror | None, spec: TaskSpec) -> list[PageSource]:
    if m is None or spec.platform != "ogb":
        return []
    path = OGB[2].format(track=spec.slug.removeprefix("ogb-lsc-"))
    data = m.read(path)
    return [PageSource(kind="repository", source=OGB[0], commit=m.commit, path=path,
                       format="markdown", sha256=_sha(data))] if data else []


def _paper_sources(m: Mirror | None, slugs: list[str]) -> list[PageSource]:
    for path in sorted(m.names) if m else ():
        parts = path.split("/")
        if len(parts) == 4 and parts[2] == "input" and _norm(Path(parts[3]).stem) in slugs:
            data = m.read(path) or b""
            return [PageSource(kind="repository", source=PAPER[0], commit=m.commit,  # type: ignore[union-attr]
                               path=path, format="paper-schema", sha256=_sha(data))]
    return []


def page_sources(spec: TaskSpec, mirrors: dict[str, Mirror]) -> list[PageSource]:
    """Every source of the entry's pages, best first, the platform's address last."""
    slugs = [spec.slug, *([ALIASES[spec.slug]] if spec.slug in ALIASES else [])]
    found = [*_file_sources(mirrors, slugs), *_dsgym_sources(mirrors.get(DSGYM[0]), slugs),
             *_ogb_sources(mirrors.get(OGB[0]), spec)]
    if not found:
        found = _paper_sources(mirrors.get(PAPER[0]), [_norm(s) for s in slugs])
    if spec.url:
        found.append(PageSource(kind="platform", source=spec.platform, url=spec.url,
                                format="html"))
    return found


def open_mirrors(folder: Path) -> dict[str, Mirror]:
    """The snapshots found under ``folder`` (``<owner>+<name>/repo``), by repository."""
    mirrors = {}
    for repo, name in [(r, f) for r, f, *_ in FILES] + [DSGYM[:2], OGB[:2], PAPER]:
        git_dir = folder / name / "repo"
        if git_dir.is_dir():
            mirrors[repo] = Mirror(repo, git_dir)
        else:
            print(f"note: no snapshot of {repo} at {git_dir}", file=sys.stderr)
    return mirrors


def fill_pages(catalogue: Path, mirrors: dict[str, Mirror], *, check: bool = False) -> int:
    """Set every entry's page sources; the number of entries changed (or stale, ``check``)."""
    return rewrite_entries(catalogue, lambda spec: spec.model_copy(
        update={"page_sources": page_sources(spec, mirrors)}), check=check)


def rewrite_entries(catalogue: Path, update: Callable[[TaskSpec], TaskSpec], *,
                    check: bool = False) -> int:
    """Rewrite every entry through ``update``; the number changed (or stale with ``check``)."""
    stale = 0
    for path in sorted(catalogue.glob("*/*/task.json")):
        new = update(load_taskspec(path))
        if dump_taskspec(new) == path.read_text():
            continue
        stale += 1
        if not check:
            save_taskspec(new, path)
    return stale


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mirrors", type=Path, default=find_mirrors(ROOT))
    ap.add_argument("--catalogue", type=Path, default=CATALOGUE)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = ap.parse_args(argv)
    stale = fill_pages(args.catalogue, open_mirrors(args.mirrors), check=args.check)
    print(f"{stale} entries {'stale' if args.check else 'updated'}")
    return 1 if args.check and stale else 0

if __name__ == "__main__":
    raise SystemExit(main())
