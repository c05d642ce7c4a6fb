"""One catalogue entry filled from its sources (helper of fill_catalogue).

What the fill owns, and rewrites on every run (so a second run changes nothing, and a run on
new sources corrects the last one):

* for every entry: ``start_date``, ``end_date`` (from the descriptions' timelines and the final
  boards, else from Meta Kaggle's record of a Kaggle competition's deadline:
  ``fill_metakaggle``), ``difficulty``, ``provenance.facts`` and the notes that start with one
  of :data:`FILL_NOTE_PREFIXES`;
* for an entry of the paper's catalogue that the paper release did not curate (the stubs of
  ``make_catalogue_stubs.py``): everything but the stub itself and what
  ``ship_leaderboards.py`` wrote (its board, ``n_teams``, reference tiers);
* for an entry of a peer collection only: all of it.

The paper release's Lite entries (``provenance.mapper == "paper-release"``) keep their curated
grading, split and notes; they get dates, difficulty and facts.
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fill_extras import (
    EXTRA_ORDER,
    extra_board,
    extra_dated,
    extra_grading_facts,
    extra_held,
    extra_imports,
)
from fill_metakaggle import meta_kaggle_dated
from fill_mlcontests import mlcontests_dated
from fill_recipes import recipe_for
from fill_sources import (
    GRADING_FILES,
    SHARED,
    Board,
    Sources,
    dated_sources,
    dslighting_board,
    mle_dojo_board,
    shared_boards,
)
from make_catalogue_stubs import (
    RELEASE_ONLY_LITE,
    SAME_COMPETITION,
    read_paper_catalogue,
    stub_for,
)

from tambench.core.layout import LEADERBOARD_FILE, TASK_FILE
from tambench.core.leaderboard import leaderboard_to_compact_csv
from tambench.difficulty.batch import entry_difficulty
from tambench.fileio import write_text_atomic
from tambench.schema.complete import completeness_problems, status_for
from tambench.schema.io import dump_taskspec
from tambench.schema.suggest import suggest_split_spec
from tambench.schema.taskspec import FactSource, GradingSpec, Provenance, TaskSpec
from tambench.tasks.catalogue import Catalogue, CatalogueEntry
from tambench.tasks.dates import decide_dates
from tambench.tasks.importers import ImportedTask
from tambench.tasks.leaderboards import record_scale, scale_problems
from tambench.tasks.merge import merge_specs, still_unfilled

#: Notes the fill writes start with one of these; they are rewritten on every run.
FILL_NOTE_PREFIXES = ("dates: ", "grading: ", "leaderboard: ", "split: ", "incomplete: ",
                      "tier: ")
STUB_MAPPER = "importer:tam-catalogue"
#: The mapper of an entry the fill made for a peer competition outside the paper's catalogue.
COLLECTION_MAPPER = "fill:peers"
CURATED_MAPPER = "paper-release"
#: A note of the paper release's entries that stopped being true once boards shipped.
STALE_NOTES = {
    "Built from the paper's public release (schema.json, grader facts); leaderboards are not "
    "shipped: point the grader at the task's private leaderboard.":
    "Built from the paper's public release (schema.json, grader facts).",
}
PEER_ORDER = ("mle-bench", "dslighting", "mle-dojo", *EXTRA_ORDER)


@dataclass
class EntryFill:
    """The filled spec of one entry, and what it lacks."""

    spec: TaskSpec
    paper: bool
    collections: list[str] = field(default_factory=list)
    missing: str = ""


# --- grading ---------------------------------------------------------------------------------


def _names_columns(param: str) -> bool:
    """A metric parameter that names columns belongs to the file's layout, not the metric."""
    return param.endswith(("_column", "_columns"))


def _metric_key(g: GradingSpec) -> tuple[str, str]:
    """The metric with every parameter resolved (a default spelled out is the same metric),
    parameters naming columns aside."""
    from tambench.core.metrics import get_metric

    resolved = get_metric(g.metric).resolve_params(g.metric_params)
    kept = {k: v for k, v in resolved.items() if not _names_columns(k)}
    return g.metric, json.dumps(kept, sort_keys=True, default=str)


def _columns_key(g: GradingSpec) -> tuple[Any, ...]:
    columns = {k: v for k, v in g.metric_params.items() if _names_columns(k)}
    return (tuple(g.id_columns), tuple(g.target_columns), tuple(g.submission_header),
            g.submission_format, json.dumps(columns, sort_keys=True))


def _said(g: GradingSpec) -> str:
    params = json.dumps(g.metric_params, sort_keys=True) if g.metric_params else ""
    return (f"{g.metric}{params} on {','.join(g.submission_header) or '(no header)'} "
            f"(id {g.id_columns}, targets {len(g.target_columns)})")


def _header_of(g: GradingSpec) -> str:
    return ",".join(g.submission_header) or "(none)"


def _grading_facts(sources: Sources, peer: str, slug: str, g: GradingSpec
                   ) -> dict[str, list[FactSource]]:
    extra = extra_grading_facts(sources, peer, slug, g)
    if extra is not None:
        return extra
    folder = sources.folder(peer, slug)
    assert folder is not None
    metric_file, text_file = (folder / n for n in GRADING_FILES[peer])
    facts = {"grading.metric": [sources.cite(peer, metric_file, value=g.metric + (
        json.dumps(g.metric_params, sort_keys=True) if g.metric_params else ""),
        detail=f"cross-checked with {text_file.name} by the {peer} import")]}
    if g.submission_header:
        facts["grading.columns"] = [sources.cite(peer, text_file, value=(
            f"id {','.join(g.id_columns)}; target {','.join(g.target_columns)}"))]
        facts["grading.submission_header"] = [sources.cite(peer, text_file,
                                                           value=_header_of(g))]
    return facts


def _has_header(g: GradingSpec) -> bool:
    return g.submission_format != "csv" or bool(g.submission_header)


def decide_grading(slug: str, imports: dict[str, ImportedTask], sources: Sources
                   ) -> tuple[ImportedTask | None, dict[str, list[FactSource]], list[str]]:
    """The peer whose grading the entry takes, its facts, and notes.

    The metric (with its parameters resolved) must be the same in every peer that reads
    one: two readings leave it unset, both named. The columns and header come from the first
    peer that states them, in :data:`PEER_ORDER` (MLE-bench's copy of the competition's own
    page first); a peer whose copy names other columns is named in a note.
    """
    given = [(p, imports[p]) for p in PEER_ORDER if p in imports
             and imports[p].spec.grading is not None]
    notes = [f"grading: the {p} import left it unset: {w}" for p in PEER_ORDER
             if p in imports and imports[p].spec.grading is None
             for w in imports[p].warnings if "grading" in w or "metric" in w or "header" in w]
    if not given:
        settled = settle_pending(slug, imports, sources)
        if settled is not None:
            chosen, facts, note = settled
            return chosen, facts, [*notes, note]
        if not notes and imports:
            notes.append("grading: no source gives a metric tambench computes with a header")
        return None, {}, notes
    gradings = {p: t.spec.grading for p, t in given}
    if len({_metric_key(g) for g in gradings.values() if g is not None}) > 1:
        said = "; ".join(f"{p} reads {_said(g)}" for p, g in gradings.items() if g)
        settled = settle_by_rule(slug, gradings, sources)
        if settled is None:
            return None, {}, [*notes, f"grading: left unset: the sources disagree: {said}"]
        rule, keep = settled
        notes.append(f"grading: the sources disagree ({said}); the competition's published "
                     f"rule ({rule}) settles it for {', '.join(keep)}")
        given = [(p, t) for p, t in given if p in keep]
    stated = [(p, t) for p, t in given if _has_header(t.spec.grading)]  # type: ignore[arg-type]
    chosen_peer, chosen = (stated or given)[0]
    g = chosen.spec.grading
    assert g is not None
    for p, t in stated[1:]:
        other = t.spec.grading
        if other is not None and _columns_key(other) != _columns_key(g):
            notes.append(f"grading: {p}'s copy names the header {_header_of(other)}; "
                         f"{chosen_peer}'s, kept, names {_header_of(g)}")
    if not stated:
        notes += [f"grading: {chosen_peer}: {w}" for w in chosen.warnings
                  if "header" in w or "column" in w]
    if chosen_peer in EXTRA_ORDER:  # what the source's helper read, and the rule confirming it
        notes += [f"grading: {chosen_peer}: {n}" for n in chosen.spec.provenance.notes]
    facts: dict[str, list[FactSource]] = {}
    for p, t in given:
        for k, v in _grading_facts(sources, p, slug, t.spec.grading).items():  # type: ignore[arg-type]
            facts.setdefault(k, []).extend(v)
    chosen, facts = _targets_by_rule(slug, chosen, facts, sources)
    return chosen, facts, [*notes, *_rule_note(slug, g, sources)]


#: Gradings whose columns an import misread, corrected by hand: slug -> (target columns,
#: submission header, the evidence). The competition's published rule (the hand-checked
#: table) names the same targets.
GRADING_CORRECTIONS: dict[str, tuple[list[str], list[str], str]] = {
    "facial-keypoints-detection": (
        ["Location"], ["RowId", "ImageId", "FeatureName", "Location"],
        "the import read every column of the header after the id as a target; ImageId and "
        "FeatureName name the row, only Location is scored (MLE-Dojo's metric.py compares "
        "Location by RowId)"),
    "playground-series-s3e16": (
        ["Age"], ["id", "Age"],
        "the import read the header of the page's example block (id,yield), copied from "
        "another competition; the page's text and its files name the target Age"),
}


def _rule_targets(slug: str, g: GradingSpec) -> GradingSpec | None:
    """The grading as :data:`GRADING_CORRECTIONS` corrects it (None when it has no entry or
    the import already reads it so)."""
    fix = GRADING_CORRECTIONS.get(slug.lower())
    if fix is None or (g.target_columns, g.submission_header) == fix[:2]:
        return None
    return g.model_copy(update={"target_columns": fix[0], "submission_header": fix[1]})


def _targets_by_rule(slug: str, chosen: ImportedTask, facts: dict[str, list[FactSource]],
                     sources: Sources) -> tuple[ImportedTask, dict[str, list[FactSource]]]:
    g = chosen.spec.grading
    fixed = _rule_targets(slug, g) if g is not None else None
    if fixed is None:
        return chosen, facts
    spec = chosen.spec.model_copy(update={"grading": fixed})
    spec = spec.model_copy(update={"split": suggest_split_spec(spec)})
    cite = [FactSource(source="tambench", path="scripts/fill_entries.py", value=(
        f"id {','.join(fixed.id_columns)}; target {','.join(fixed.target_columns)}"),
        detail=f"corrected: {GRADING_CORRECTIONS[slug.lower()][2]}")]
    facts = {**facts, "grading.columns": cite}
    if fixed.submission_header != g.submission_header:  # type: ignore[union-attr]
        facts["grading.submission_header"] = [cite[0].model_copy(
            update={"value": _header_of(fixed)})]
    return ImportedTask(spec=spec, warnings=chosen.warnings), facts


def _rule_note(slug: str, g: GradingSpec, sources: Sources) -> list[str]:
    fixed = _rule_targets(slug, g)
    if fixed is None:
        return []
    return [f"grading: the import read the targets {g.target_columns} on {_header_of(g)}; "
            f"corrected to {fixed.target_columns} on {_header_of(fixed)}: "
            f"{GRADING_CORRECTIONS[slug.lower()][2]}"]


def settle_by_rule(slug: str, gradings: dict[str, GradingSpec | None], sources: Sources
                   ) -> tuple[str, list[str]] | None:
    """The published rule of the competition (the project's table of MLE-Dojo's competitions'
    rules) and the peers whose reading it confirms, when it confirms exactly one reading."""
    row = sources.rules().get(slug.lower())
    if row is None or not row["metric"]:
        return None
    rule = GradingSpec(metric=row["metric"], metric_params=json.loads(row["metric_params"] or
                                                                      "{}"))
    keep = [p for p, g in gradings.items() if g is not None and _metric_key(g) ==
            _metric_key(rule)]
    if not keep:
        return None
    return f"{row['published_rule']}: {row['metric']}{row['metric_params'] or ''}", keep


def _metric_py_reads(warnings: tuple[str, ...], metric: str) -> dict[str, Any] | None:
    """The parameters with which an import says ``metric.py`` computes ``metric`` (None when
    it does not say it computes that metric)."""
    import ast
    import re

    rx = re.compile(rf"metric\.py reads {re.escape(metric)}(?: (\{{[^}}]*\}}))?(?=[ \[;,]|$)")
    for w in warnings:
        m = rx.search(w)
        if m:
            return ast.literal_eval(m.group(1)) if m.group(1) else {}
    return None


def settle_pending(slug: str, imports: dict[str, ImportedTask], sources: Sources
                   ) -> tuple[ImportedTask, dict[str, list[FactSource]], str] | None:
    """A grading two witnesses settle where the import's own did not: the import read the
    header and columns (``pending_grading``) and says ``metric.py`` computes a metric; the
    competition's published rule (the hand-checked table) names the same metric with the same
    parameters and target columns. Rules whose parameters name columns, or whose answers
    columns differ from the submission's, are left to the importer."""
    from tambench.core.metrics import get_metric

    row = sources.rules().get(slug.lower())
    if row is None or not row["metric"] or row["answers_target_columns"]:
        return None
    params = json.loads(row["metric_params"] or "{}")
    if any(_names_columns(k) for k in params):
        return None
    for p in PEER_ORDER:
        task = imports.get(p)
        pend = task.spec.provenance.pending_grading if task is not None else None
        if task is None or pend is None or not (pend.submission_header and pend.id_columns):
            continue
        read = _metric_py_reads(task.warnings, row["metric"])
        metric = get_metric(row["metric"])
        if read is None or metric.resolve_params(read) != metric.resolve_params(params) or \
                pend.target_columns != row["target_columns"].split("|"):
            continue
        grading = GradingSpec(metric=row["metric"], metric_params=params,
                              id_columns=pend.id_columns, target_columns=pend.target_columns,
                              submission_header=pend.submission_header)
        spec = task.spec.model_copy(update={"grading": grading})
        spec = spec.model_copy(update={"split": suggest_split_spec(spec)})
        facts = _grading_facts(sources, p, slug, grading)
        facts["grading.metric"].append(FactSource(
            source="tambench", path=sources.rule_file_of(slug), value=row["metric"],
            detail=f"the competition's published rule: {row['published_rule']}"))
        return (ImportedTask(spec=spec, warnings=task.warnings), facts,
                f"grading: {p}'s metric.py and the competition's published rule agree on "
                f"{row['metric']} (the import's own witnesses did not settle it)")
    return None


# --- the entry -------------------------------------------------------------------------------


def _own_notes_removed(spec: TaskSpec) -> TaskSpec:
    notes = [STALE_NOTES.get(n, n) for n in spec.provenance.notes
             if not n.startswith(FILL_NOTE_PREFIXES)]
    prov = spec.provenance.model_copy(update={"notes": notes, "facts": {}})
    return spec.model_copy(update={"provenance": prov, "start_date": None, "end_date": None,
                                   "difficulty": None})


def _merged_import(imports: dict[str, ImportedTask]) -> TaskSpec | None:
    """The peers' specs merged in order (grading, split and board are decided apart)."""
    merged: TaskSpec | None = None
    for p in PEER_ORDER:
        if p not in imports:
            continue
        # Reference tiers stay with ship_leaderboards.py: MLE-bench's labels on more boards
        # would change the set the calibrated difficulty model was fitted on.
        spec = imports[p].spec.model_copy(update={
            "grading": None, "split": None, "leaderboard": None, "status": "incomplete",
            "reference_tiers": {},
            "provenance": Provenance(mapper=imports[p].spec.provenance.mapper)})
        merged = spec if merged is None else merge_specs(merged, spec).spec
    return merged


def _with(spec: TaskSpec, **update: Any) -> TaskSpec:
    return TaskSpec.model_validate({**spec.model_dump(), **{
        k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in update.items()}})


def _note(spec: TaskSpec, *notes: str) -> TaskSpec:
    prov = spec.provenance
    add = [n for n in notes if n not in prov.notes]
    return spec.model_copy(update={"provenance": prov.model_copy(
        update={"notes": [*prov.notes, *add]})})


def _facts(spec: TaskSpec, facts: dict[str, list[FactSource]]) -> TaskSpec:
    merged = dict(spec.provenance.facts)
    for k, v in facts.items():
        merged[k] = [*merged.get(k, []), *[s for s in v if s not in merged.get(k, [])]]
    return spec.model_copy(update={"provenance": spec.provenance.model_copy(
        update={"facts": dict(sorted(merged.items()))})})


def _apply_grading(spec: TaskSpec, slug: str, sources: Sources) -> TaskSpec:
    """The entry with the grading and recipe its peers agree on (or none, with the reason)."""
    imports = sources.imported.get(slug, {})
    chosen, facts, notes = decide_grading(slug, imports, sources)
    grading = chosen.spec.grading if chosen is not None else None
    candidate = _with(spec, grading=grading)
    clash = scale_problems(candidate) if grading is not None else []
    if clash:
        notes.append(f"grading: left unset: {clash[0]} (the board's scale is a fact of the "
                     "competition's metric)")
        grading, chosen, facts = None, None, {}
    split, split_facts, split_notes = (recipe_for(chosen, slug, sources)
                                       if chosen is not None else (None, {}, []))
    spec = _with(spec, grading=grading, split=split)
    return _facts(_note(spec, *notes, *split_notes), {**facts, **split_facts})


def _peer_board(spec: TaskSpec, slug: str, sources: Sources) -> tuple[Board | None, list[str]]:
    """A real board for an entry that ships none: MLE-bench's file, else MLE-Dojo's."""
    board, why = dslighting_board(sources, slug)
    notes = [f"leaderboard: {why}"] if why else []
    board = board or mle_dojo_board(sources, slug)
    if board is None:
        board, more = extra_board(sources, slug, spec.grading.metric if spec.grading else None)
        return board, notes + more
    scale = record_scale(spec.grading.metric) if spec.grading is not None else {}
    record = board.record.model_copy(update=scale)
    return Board(board.board, record, board.raw), notes


def _dates(spec: TaskSpec, slug: str, sources: Sources, board: Board | None) -> TaskSpec:
    boards = shared_boards(sources, slug)
    verified, _ = dslighting_board(sources, slug)
    boards += [b for b in (board, verified) if b is not None]
    dated = dated_sources(sources, slug, boards) + extra_dated(sources, slug)
    decision = decide_dates(dated)
    record = meta_kaggle_dated(sources, slug) if spec.platform == "kaggle" else None
    for records in ([record] if record else [], mlcontests_dated(sources, slug, spec.platform)):
        told = decision.end is not None or decision.problems or decision.rolling
        if not told and records:  # Kaggle's record, then ML Contests', where nothing else tells
            decision = decide_dates([*dated, *records])
    spec = _with(spec, start_date=decision.start, end_date=decision.end)
    return _facts(_note(spec, *(f"dates: {p}" for p in decision.problems)), decision.facts)


def _difficulty(spec: TaskSpec, folder: Path) -> TaskSpec:
    """The difficulty ``tambench tasks show`` computes from the shipped board, stored."""
    if not (folder / LEADERBOARD_FILE).is_file():
        return spec
    result = entry_difficulty(CatalogueEntry(folder, spec))
    if result.primary is None:
        return _note(spec, f"tier: none: {result.reason}")
    rec = spec.leaderboard
    spec = _with(spec, difficulty=result.primary.to_model(result.others))
    return _facts(spec, {"tier": [FactSource(
        source=rec.source if rec else "", commit=rec.commit if rec else "",
        path=rec.path if rec else LEADERBOARD_FILE, value=result.primary.tier.value,
        detail=f"difficulty method {result.primary.method} ({result.primary.score:.3f}) on "
               "the final leaderboard")]})


def _missing(spec: TaskSpec, slug: str, sources: Sources) -> str:
    """What an incomplete entry lacks and where it could come from."""
    problems = completeness_problems(spec)
    if not problems:
        return ""
    imports = sources.imported.get(slug, {})
    held = [p for p in PEER_ORDER if sources.folder(p, slug) is not None]
    unread = [p for p in held if p not in imports]
    if imports and set(imports) <= set(EXTRA_ORDER):
        where = f"read from {', '.join(imports)}: no grading it can give (see the grading notes)"
    elif imports:
        where = (f"read from {', '.join(imports)}: no grading they agree on with a full "
                 "header (see the grading notes)")
    elif held:
        where = f"held by {', '.join(held)}, whose importer is not registered yet"
    else:
        where = "no peer holds this competition"
    if unread and imports:
        where += f"; also held by {', '.join(unread)}, whose importer is not registered yet"
    also = extra_held(sources, slug)
    if also:
        where += f"; {also}"
    return (f"{'; '.join(problems)}; {where}; could come from a live `tambench acquire "
            f"{spec.url or spec.id}` and `tambench schema map`")


def fill_entry(base: TaskSpec, folder: Path, slug: str, sources: Sources, *,
               curated: bool) -> tuple[TaskSpec, str]:
    """One entry: grading, board, dates, difficulty, facts, status; and what it lacks."""
    spec = _own_notes_removed(base)
    if not sources.imported.get(slug):
        extra = extra_imports(sources, slug)
        if extra:
            sources.imported[slug] = extra
    imports = sources.imported.get(slug, {})
    if not curated:
        merged = _merged_import(imports)
        if merged is not None:
            spec = merge_specs(spec, merged).spec
        spec = _apply_grading(spec, slug, sources)
    board = None
    if spec.leaderboard is None:
        board, notes = _peer_board(spec, slug, sources)
        spec = _note(spec, *notes)
        if board is not None:
            spec = _with(spec, leaderboard=board.record, n_teams=spec.n_teams or len(board.board))
            write_text_atomic(folder / LEADERBOARD_FILE, leaderboard_to_compact_csv(board.board))
    spec = _dates(spec, slug, sources, board)
    spec = _difficulty(spec, folder)
    spec = spec.model_copy(update={
        "status": status_for(spec) if not curated else spec.status,
        "provenance": spec.provenance.model_copy(update={"unfilled": still_unfilled(spec)})})
    missing = _missing(spec, slug, sources)
    if missing:
        spec = _note(spec, f"incomplete: {missing}")
    return spec, missing


# --- the catalogue ---------------------------------------------------------------------------


def _paper_bases(sources: Sources) -> dict[str, tuple[TaskSpec, str]]:
    """Task id -> (its stub, the modality fact) for every competition of the paper."""
    path = sources.shared / "data" / "tam-catalogue.csv"
    out = {}
    for row in read_paper_catalogue(path):
        stub, _ = stub_for(row)
        out[stub.id] = (stub, row["modality"])
    return out


def _shipped_by_board_script(sources: Sources) -> set[str]:
    """Slugs whose board ``ship_leaderboards.py`` ships (their board, n_teams, tiers stay)."""
    index = sources.shared / "data" / "leaderboards" / "index.csv"
    with index.open(encoding="utf-8", newline="") as fh:
        return {r["slug"].lower() for r in csv.DictReader(fh)}


def _base_of(tid: str, current: TaskSpec | None, paper: dict[str, tuple[TaskSpec, str]],
             shipped: set[str]) -> tuple[TaskSpec | None, bool]:
    """The spec the fill starts from, and whether it is curated."""
    if current is not None and current.provenance.mapper == CURATED_MAPPER:
        return current, True
    if tid not in paper:
        return None, False
    stub = paper[tid][0]
    if current is not None and current.slug.lower() in shipped:
        stub = _with(stub, leaderboard=current.leaderboard, n_teams=current.n_teams,
                     reference_tiers=current.reference_tiers)
    return stub, False


def _write(spec: TaskSpec, folder: Path) -> None:
    path = folder / TASK_FILE
    text = dump_taskspec(spec)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_text_atomic(path, text)


def fill_catalogue_entries(catalogue: Path, sources: Sources) -> list[EntryFill]:
    """Fill every entry of the paper's catalogue and every peer competition."""
    paper = _paper_bases(sources)
    shipped = _shipped_by_board_script(sources)
    current = {e.id: e.spec for e in Catalogue(catalogue)}
    wanted = set(paper) | {f"kaggle/{s}" for s in _peer_slugs(sources)}
    for tid, spec in current.items():
        if tid not in wanted and spec.provenance.mapper == COLLECTION_MAPPER:
            shutil.rmtree(catalogue / tid)  # a peer competition no peer holds any more
    ids = sorted(wanted | {t for t, s in current.items() if s.provenance.mapper !=
                           COLLECTION_MAPPER})
    out = []
    for tid in ids:
        slug = tid.split("/", 1)[1]
        base, curated = _base_of(tid, current.get(tid), paper, shipped)
        in_paper = tid in paper or curated
        folder = catalogue / tid
        folder.mkdir(parents=True, exist_ok=True)
        if base is None:
            base = _collection_base(tid, sources)
        if not curated and slug not in shipped:
            (folder / LEADERBOARD_FILE).unlink(missing_ok=True)  # rewritten when found again
        spec, missing = fill_entry(base, folder, slug, sources, curated=curated)
        if tid in paper:
            spec = _facts(spec, {"modality": [FactSource(
                source=SHARED, path="data/tam-catalogue.csv", value=paper[tid][1],
                detail="the paper's catalogue")]})
        _write(spec, folder)
        out.append(EntryFill(spec, in_paper, missing=missing))
    return _graded_as_twins(out, catalogue)


def _graded_as_twins(fills: list[EntryFill], catalogue: Path) -> list[EntryFill]:
    """An entry the paper lists under another name than its release (the same competition)
    takes the release entry's grading, recipe, board, dates and difficulty, cited."""
    by_id = {f.spec.id: i for i, f in enumerate(fills)}
    for tid in SAME_COMPETITION:
        if tid not in by_id or RELEASE_ONLY_LITE not in by_id:
            continue
        entry, twin = fills[by_id[tid]].spec, fills[by_id[RELEASE_ONLY_LITE]].spec
        if entry.grading is not None or twin.grading is None:
            continue
        g = twin.grading
        cite = FactSource(source="tambench-catalogue", path=f"{RELEASE_ONLY_LITE}/task.json",
                          detail="the same Kaggle competition; that entry is the paper "
                          "release's (scripts/make_lite_tasks.py)")
        cited = {key: [cite.model_copy(update={"value": value})] for key, value in (
            ("grading.metric", g.metric),
            ("grading.columns", f"id {','.join(g.id_columns)}; target "
                                f"{','.join(g.target_columns)}"),
            ("grading.submission_header", ",".join(g.submission_header)))}
        spec = _with(entry, grading=twin.grading, split=twin.split, leaderboard=twin.leaderboard,
                     n_teams=twin.n_teams, start_date=twin.start_date, end_date=twin.end_date,
                     difficulty=twin.difficulty)
        notes = [n for n in spec.provenance.notes if not n.startswith("incomplete: ")]
        spec = spec.model_copy(update={"provenance": spec.provenance.model_copy(
            update={"notes": notes, "facts": dict(sorted({
                **twin.provenance.facts, **entry.provenance.facts, **cited}.items()))})})
        spec = spec.model_copy(update={"status": status_for(spec)})
        board = catalogue / RELEASE_ONLY_LITE / LEADERBOARD_FILE
        if board.is_file():
            shutil.copyfile(board, catalogue / tid / LEADERBOARD_FILE)
        _write(spec, catalogue / tid)
        fills[by_id[tid]] = EntryFill(spec, True, missing=_missing_text(spec))
    return fills


def _missing_text(spec: TaskSpec) -> str:
    return "; ".join(completeness_problems(spec))


def _peer_slugs(sources: Sources) -> set[str]:
    """Lower-cased slugs of every competition folder of MLE-bench and MLE-Dojo."""
    out: set[str] = set()
    for peer in ("mle-bench", "mle-dojo"):
        tree = sources.trees.get(peer)
        if tree is not None and tree.competitions.is_dir():
            out |= {p.name.lower() for p in tree.competitions.iterdir()
                    if p.is_dir() and not p.name.startswith(("_", "."))}
    return out


def _collection_base(tid: str, sources: Sources) -> TaskSpec:
    """The starting spec of a peer competition that is not in the paper's catalogue."""
    from tambench.tasks.names import default_url

    slug = tid.split("/", 1)[1]
    return TaskSpec(id=tid, platform="kaggle", url=default_url("kaggle", slug), title=slug,
                    status="incomplete", provenance=Provenance(mapper=COLLECTION_MAPPER))
