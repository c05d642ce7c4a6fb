"""The sources the fill reads with its own helpers, behind one interface (helper of
fill_catalogue): DSGym (:mod:`fill_dsgym`), the OGB website (:mod:`fill_ogb`) and the
timelines held elsewhere (:mod:`fill_timelines`: dates only).

They speak only where no importer-read peer (MLE-bench, dslighting, MLE-Dojo) does: a grading
only for a competition no peer holds, a board only for an entry that ships none. Their pages
and timelines add to the dates of every entry, cross-checked like the peers' descriptions.
"""

from __future__ import annotations

from fill_dsgym import dsgym_board, dsgym_grading_facts, dsgym_page, dsgym_task, held_by_dsgym
from fill_ogb import TRACKS, held_by_ogb, ogb_board, ogb_dates, ogb_grading, ogb_grading_facts
from fill_sources import Board, Sources
from fill_timelines import extra_timelines

from tambench.schema.suggest import suggest_split_spec
from tambench.schema.taskspec import FactSource, GradingSpec, Provenance, TaskSpec
from tambench.tasks.dates import DatedSource, dated_text
from tambench.tasks.importers import ImportedTask
from tambench.tasks.leaderboards import record_scale

#: The order in which the fill consults them (after the importer-read peers).
EXTRA_ORDER = ("dsgym", "ogb-web")


def _ogb_task(sources: Sources, slug: str) -> ImportedTask | None:
    if "ogb-web" not in sources.trees or slug.lower() not in TRACKS:
        return None
    grading, said = ogb_grading(sources, slug)
    spec = TaskSpec(id=f"ogb/{slug.lower()}", platform="ogb", status="incomplete",
                    grading=grading, provenance=Provenance(mapper="fill:ogb-web",
                                                           notes=[said] if grading else []))
    return ImportedTask(spec=spec, warnings=() if grading else (said,))


def extra_imports(sources: Sources, slug: str) -> dict[str, ImportedTask]:
    """What the extra sources read of a competition no importer-read peer holds."""
    if sources.imported.get(slug.lower()):
        return {}
    out = {}
    for name, read in (("dsgym", dsgym_task), ("ogb-web", _ogb_task)):
        task = read(sources, slug)
        if task is None:
            continue
        if task.spec.grading is not None and task.spec.grading.submission_format == "csv":
            task = ImportedTask(spec=task.spec.model_copy(update={
                "split": suggest_split_spec(task.spec)}), warnings=task.warnings)
        out[name] = task
    return out


def extra_grading_facts(sources: Sources, peer: str, slug: str, g: GradingSpec
                        ) -> dict[str, list[FactSource]] | None:
    """The citations of a grading an extra source gave (None for an importer-read peer)."""
    if peer == "dsgym":
        return dsgym_grading_facts(sources, slug, g)
    return ogb_grading_facts(sources, slug, g) if peer == "ogb-web" else None


def _scale_from_rule(sources: Sources, slug: str) -> dict[str, object]:
    """The scale a board records when the entry has no grading: the rule's metric, else its
    direction alone."""
    row = sources.rules().get(slug.lower())
    if row is None:
        return {}
    if row["metric"]:
        return record_scale(row["metric"])
    return {"higher_is_better": row["higher_is_better"] == "true"}


def extra_board(sources: Sources, slug: str, graded: str | None
                ) -> tuple[Board | None, list[str]]:
    """A final board from an extra source, with its scale, and notes on what was refused."""
    notes = []
    for read in (dsgym_board, ogb_board):
        board, why = read(sources, slug)
        if why:
            notes.append(f"leaderboard: {why}")
        if board is None:
            continue
        scale = record_scale(graded) if graded else {} \
            if board.record.higher_is_better is not None else _scale_from_rule(sources, slug)
        record = board.record.model_copy(update=scale)
        scores = [float(x) for x in board.board.scores]
        if record.higher_is_better is not None and scores[0] != scores[-1] and \
                (scores[0] > scores[-1]) != record.higher_is_better:
            notes.append(f"leaderboard: {record.source}'s board not taken: its rank order "
                         f"contradicts the direction of {record.metric or 'the rule'}")
            continue
        return Board(board.board, record, board.raw), notes
    return None, notes


def extra_dated(sources: Sources, slug: str) -> list[DatedSource]:
    """The timelines of DSGym's copy of the page, of the OGB website, of the KDD Cup 2024
    timeline's copy and of the pages' stated lines."""
    out = []
    page = dsgym_page(sources, slug)
    if page is not None:
        out.append(dated_text(*page))
    ogb = ogb_dates(sources, slug)
    if ogb is not None:
        out.append(ogb)
    return out + extra_timelines(sources, slug)


def extra_held(sources: Sources, slug: str) -> str:
    """What the extra sources hold of a competition, one phrase (empty when nothing)."""
    parts = []
    dsgym = held_by_dsgym(sources, slug)
    if dsgym:
        parts.append(f"DSGym (github:fannie1208/DSGym) holds {' and '.join(dsgym)}")
    parts += [f"the OGB website holds {what}" for what in held_by_ogb(sources, slug)]
    return "; ".join(parts)
