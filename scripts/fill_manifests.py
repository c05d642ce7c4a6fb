"""The collection and subset manifests of the filled catalogue (helper of fill_catalogue)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from fill_entries import EntryFill
from peer_trees import PeerTree

from tambench.core.layout import COLLECTIONS_DIR, SUBSETS_DIR
from tambench.difficulty.tiers import (
    build_from_catalogue,
    default_tier_source,
    parse_tier_source,
    reference_names,
)
from tambench.fileio import write_text_atomic
from tambench.tasks.catalogue import Catalogue, build_index, index_hash
from tambench.tasks.collections import DEFAULT_SUBSET_COLLECTION, collection_ids
from tambench.tasks.manifests import read_manifest, render_manifest
from tambench.tasks.subsets import SUBSET_NAMES, Selection

COLLECTION_SOURCES = {"mle-bench": "mle-bench", "mle-dojo": "mle-dojo"}


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_text_atomic(path, text)


def write_collections(catalogue: Path, fills: list[EntryFill],
                      trees: dict[str, PeerTree]) -> None:
    """``_collections/paper.txt`` and one manifest per peer collection."""
    folder = catalogue / COLLECTIONS_DIR
    folder.mkdir(exist_ok=True)
    cells = {f.spec.id: f.spec.modality.value if f.spec.modality else "" for f in fills}
    paper = {f.spec.id: cells[f.spec.id] for f in fills if f.paper}
    _write_if_changed(folder / "paper.txt", render_manifest(
        "paper", {"source": "the paper's catalogue (../shared/data/tam-catalogue.csv) and its "
                            "public Lite release"}, paper, kind="collection"))
    for name, peer in COLLECTION_SOURCES.items():
        tree = trees[peer]
        slugs = {p.name.lower() for p in tree.competitions.iterdir() if p.is_dir()}
        members = {f.spec.id: cells[f.spec.id] for f in fills
                   if f.spec.platform == "kaggle" and f.spec.slug in slugs}
        _write_if_changed(folder / f"{name}.txt", render_manifest(
            name, {"source": f"{tree.peer.repository}@{tree.commit}:{tree.peer.subtree}"},
            members, kind="collection"))


def write_subsets(catalogue: Path) -> None:
    """Lite, Medium and Full of the paper collection, as ``tambench subsets build`` makes
    them; a manifest whose tasks did not change keeps its date."""
    refs = reference_names(catalogue)
    text = default_tier_source(refs)
    sources = parse_tier_source(text, references=refs)
    ids = collection_ids(catalogue, DEFAULT_SUBSET_COLLECTION)
    selection = Selection(frozenset(ids) if ids is not None else None)
    result, _ = build_from_catalogue(catalogue, sources, selection, quiet=True)
    digest = index_hash(build_index(Catalogue(catalogue)))
    for name in SUBSET_NAMES:
        path = catalogue / SUBSETS_DIR / f"{name}.txt"
        old = read_manifest(path).header.get("date") if path.is_file() else None
        for day in ([date.fromisoformat(old)] if old else []) + [date.today()]:
            header = {"catalogue_index_sha256": digest, "seed": "0", "tiers": text,
                      "collection": DEFAULT_SUBSET_COLLECTION, "agent_ready": "yes",
                      "date": day.isoformat()}
            rendered = render_manifest(name, header, result.subsets[name])
            if path.is_file() and path.read_text(encoding="utf-8") == rendered:
                break
        _write_if_changed(path, rendered)
