"""DSGym's copies of Kaggle competitions: pages, final boards, gradings (helper of fill_catalogue).

DSGym (github:fannie1208/DSGym) keeps, for the Kaggle competitions of its DSPredict tasks, read
here as data (nothing of it is imported or run):

* ``data/task/dspredict/{easy,hard}.json``: each competition's page (overview, evaluation,
  submission file, timeline) as one text (``description``), keyed by ``challenge_name``, the
  Kaggle slug;
* ``data/DSPredict_Offline_Leaderboard/*_leaderboard_stats_<date>.json``: for each competition
  the scores of Kaggle's leaderboards as Kaggle's API returned them, page after page, in rank
  order: ``private_scores`` (the final board of a finished competition) and
  ``public_scores``. Its reader empties the private list when it equals the public one, so a
  competition with only a public list may or may not have had a distinct final board.

What the fill takes from it:

* **boards**: a competition's private list, in rank order, as ``rank,score``; only when DSGym's
  copy of its page states a final submission deadline (a rolling competition such as titanic
  has no final board, only snapshots), the list is ordered (non-increasing or non-decreasing
  scores, as a ranking is), holds at least :data:`MIN_ROWS` finite scores, and the **source
  check** passes: for every such competition whose private board another source ships
  (MLE-Dojo, ``../shared/data``), every score of that board is in DSGym's private list of it.
  The check's figures go into each board's notes; a failed check takes no DSGym board at all.
  A public list alone is not a final board;
* **gradings**, only for competitions no importer-read peer holds: the page read by the offline
  mapper (the same reading ``tambench schema map`` makes of a page), taken only when the
  competition's published rule, hand-checked in the project's table, names the same metric,
  parameters and target columns (two witnesses, both cited); where the page's copy lost the
  line breaks of its sample submission (the mapper finds no header), the header the table
  states is taken when the page's text holds it as written; anything else is left unset
  with both readings named;
* **pages**, for their timelines (start and end dates).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field

from fill_sources import Board, Sources, mle_dojo_board, shared_boards

from tambench.core.leaderboard import read_leaderboard
from tambench.core.metrics import get_metric
from tambench.schema.taskspec import (
    FactSource,
    GradingSpec,
    LeaderboardSource,
    Provenance,
    TaskSpec,
)
from tambench.tasks.dates import timeline_statements
from tambench.tasks.importers import ImportedTask
from tambench.tasks.importers._common import read_descriptions
from tambench.tasks.names import default_url

NAME = "dsgym"
PAGES = ("data/task/dspredict/easy.json", "data/task/dspredict/hard.json")
BOARDS_DIR = "data/DSPredict_Offline_Leaderboard"
#: Fewest rows a DSGym list must hold to be taken as a board.
MIN_ROWS = 20
#: Share of another source's board scores DSGym's list must hold for the source check.
CONTAINMENT = 0.999


def _key(score: float) -> float:
    """A score as boards print it (Kaggle shows five decimals at most)."""
    return round(score, 5)


@dataclass
class DsgymData:
    """Everything read from a DSGym tree."""

    pages: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Lower-cased slug -> (repository path of the JSON file, the page text)."""
    boards: dict[str, tuple[str, list[float]]] = field(default_factory=dict)
    """Lower-cased slug -> (repository path of the stats file, the private scores)."""
    public_only: set[str] = field(default_factory=set)
    check: str = ""
    """The source check's outcome, one sentence (empty before it ran)."""
    passed: bool = False


def _load(sources: Sources) -> DsgymData | None:
    tree = sources.trees.get(NAME)
    if tree is None:
        return None
    cached = sources.cache.get(NAME)
    if isinstance(cached, DsgymData):
        return cached
    data = DsgymData()
    for rel in PAGES:
        path = tree.root / rel
        if path.is_file():
            for item in json.loads(path.read_text(encoding="utf-8")):
                slug = str(item.get("challenge_name", "")).lower()
                text = item.get("description")
                if slug and isinstance(text, str) and text.strip():
                    data.pages.setdefault(slug, (rel, text))
    for path in sorted((tree.root / BOARDS_DIR).glob("*_leaderboard_stats_*.json")):
        rel = tree.cite(path)
        for slug, stats in json.loads(path.read_text(encoding="utf-8")).items():
            private = [float(s) for s in stats.get("private_scores") or []]
            if private:
                data.boards.setdefault(slug.lower(), (rel, private))
            elif stats.get("public_scores"):
                data.public_only.add(slug.lower())
    sources.cache[NAME] = data
    _source_check(sources, data)
    return data


def _has_deadline(data: DsgymData, slug: str) -> bool:
    """Whether DSGym's copy of the page states a final submission deadline."""
    page = data.pages.get(slug.lower())
    return page is not None and any(st.kind == "end" for st in timeline_statements(page[1]))


def _ordered(scores: list[float]) -> bool:
    pairs = list(zip(scores, scores[1:], strict=False))
    return all(a >= b for a, b in pairs) or all(a <= b for a, b in pairs)


def _other_board(sources: Sources, slug: str) -> Board | None:
    """The private board another source gives a competition (shared data, else MLE-Dojo)."""
    for b in shared_boards(sources, slug):
        if b.record.kind == "private":
            return b
    return mle_dojo_board(sources, slug) if "mle-dojo" in sources.trees else None


def _source_check(sources: Sources, data: DsgymData) -> None:
    """Compare DSGym's private lists with every private board another source ships."""
    compared, failed = 0, []
    for slug, (_, scores) in sorted(data.boards.items()):
        other = _other_board(sources, slug) if _has_deadline(data, slug) else None
        if other is None:
            continue
        theirs = Counter(_key(float(s)) for s in other.board.scores if math.isfinite(s))
        held = sum((theirs & Counter(_key(s) for s in scores)).values())
        compared += 1
        if held < CONTAINMENT * sum(theirs.values()):
            failed.append(f"{slug} ({held} of {sum(theirs.values())})")
    data.passed = compared > 0 and not failed
    data.check = (f"source check: DSGym's private lists hold every score of the private boards "
                  f"other sources ship for {compared - len(failed)} of the {compared} finished "
                  "competitions both have" + (f"; not for {', '.join(failed)}" if failed else ""))
    sources.notes.append(f"dsgym: {data.check}")


def dsgym_board(sources: Sources, slug: str) -> tuple[Board | None, str]:
    """DSGym's private list of a competition as a board, or why none is taken."""
    data = _load(sources)
    if data is None:
        return None, ""
    key = slug.lower()
    if key not in data.boards:
        if key in data.public_only:
            return None, ("DSGym holds only a public list (its reader drops the private one "
                          "when both are equal): not taken as a final board")
        return None, ""
    rel, scores = data.boards[key]
    if not data.passed:
        return None, f"DSGym's board not taken: {data.check}"
    if not _has_deadline(data, key):
        return None, ("DSGym's copy of the page states no final submission deadline: its "
                      "private list is not taken as a final board")
    if len(scores) < MIN_ROWS or not all(math.isfinite(s) for s in scores) or \
            not _ordered(scores):
        return None, (f"DSGym's private list of {slug} is not a ranking ({len(scores)} scores, "
                      "not in order or not finite): not taken")
    assert sources.workdir is not None
    raw = sources.workdir / NAME / f"{key}.csv"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text("rank,score\n" + "".join(f"{i},{s!r}\n" for i, s in
                                             enumerate(scores, 1)), encoding="utf-8")
    tree = sources.trees[NAME]
    record = LeaderboardSource(
        source=tree.peer.repository, commit=tree.commit, path=rel, kind="private",
        rows=len(scores), sha256=sources.sha256(tree.root / rel), notes=[
            f"the private_scores of {slug} in DSGym's offline leaderboard stats: Kaggle's "
            "final leaderboard as Kaggle's API returned it, scores only, in rank order",
            data.check])
    return Board(read_leaderboard(raw), record, raw), ""


def dsgym_page(sources: Sources, slug: str) -> tuple[FactSource, str] | None:
    """DSGym's copy of a competition's page, as text, with its citation."""
    data = _load(sources)
    if data is None or slug.lower() not in data.pages:
        return None
    rel, text = data.pages[slug.lower()]
    tree = sources.trees[NAME]
    return FactSource(source=tree.peer.repository, commit=tree.commit, path=rel,
                      detail=f"the page of {slug} (challenge_name {slug})"), text


def _rule(sources: Sources, slug: str) -> GradingSpec | None:
    """The published rule's grading; its header and id columns where the table states them
    (a page whose copy lost the sample's line breaks)."""
    row = sources.rules().get(slug.lower())
    if row is None or not row["metric"]:
        return None
    targets = row["target_columns"].split("|")
    header = [c for c in (row.get("submission_header") or "").split("|") if c]
    return GradingSpec(metric=row["metric"], metric_params=json.loads(
        row["metric_params"] or "{}"), target_columns=targets, submission_header=header,
        id_columns=[c for c in header if c not in targets])


def _header_by_rule(read: GradingSpec, rule: GradingSpec | None, text: str
                    ) -> GradingSpec | None:
    """The page's reading with the rule's header, when the mapper found no header but the
    page's text holds the rule's header as written (its sample's line breaks lost:
    ``id,rainfall2190,0.5...``)."""
    if read.submission_header or rule is None or not rule.submission_header or \
            ",".join(rule.submission_header) not in text:
        return None
    return read.model_copy(update={"id_columns": rule.id_columns,
                                   "target_columns": rule.target_columns,
                                   "submission_header": rule.submission_header})


def _agrees(read: GradingSpec, rule: GradingSpec) -> bool:
    m = get_metric(rule.metric)
    return (read.metric == rule.metric and read.target_columns == rule.target_columns
            and m.resolve_params(read.metric_params) == m.resolve_params(rule.metric_params))


def _reading(slug: str, text: str) -> tuple[GradingSpec | None, str]:
    """The mapper's grading of the page (its header empty when the mapper found none), and a
    sentence of what it read."""
    tid = f"kaggle/{slug}"
    d = read_descriptions([("page", text)], tid, default_url("kaggle", slug))
    if d.metric is None:
        said = ("names a metric no registered id computes exactly" if d.approximate
                else "names no metric")
        return None, f"DSGym's copy of the page {said}"
    params = json.dumps(d.params, sort_keys=True) if d.params else ""
    said = (f"DSGym's copy of the page reads {d.metric}{params} on "
            f"{','.join(d.header) or '(no header)'}")
    g = GradingSpec(metric=d.metric, metric_params=dict(d.params), id_columns=d.id_columns,
                    target_columns=d.target_columns, submission_header=d.header)
    return g, said


def dsgym_task(sources: Sources, slug: str) -> ImportedTask | None:
    """The grading DSGym's page and the published rule agree on (see the module docstring);
    a task without grading carries the reason in its warnings."""
    data = _load(sources)
    if data is None or slug.lower() not in data.pages:
        return None
    text = data.pages[slug.lower()][1]
    read, said = _reading(slug.lower(), text)
    rule = _rule(sources, slug)
    row = sources.rules().get(slug.lower())
    stated = f"the published rule ({row['published_rule']})" if row else "no published rule"
    by_rule = _header_by_rule(read, rule, text) if read is not None else None
    if by_rule is not None:
        read = by_rule
        said += (f"; the page's text holds the header {','.join(by_rule.submission_header)} "
                 "run into its sample rows (line breaks lost), as the project's table reads it")
    if read is not None and not read.submission_header:
        read = None
    if read is not None and rule is not None and _agrees(read, rule):
        grading, notes, warnings = read, [f"{said}; {stated} agrees"], []
    else:
        why = "no rule in the project's table" if row is None else "they differ"
        if row is not None and rule is None:  # the table's notes say what a grading lacks
            why = "the rule names no registered metric" + (
                f" ({row['notes']})" if row["notes"] else "")
        grading, notes, warnings = None, [], [f"grading left unset: {said}; {stated}: {why}"]
    spec = TaskSpec(id=f"kaggle/{slug.lower()}", platform="kaggle",
                    url=default_url("kaggle", slug.lower()), status="incomplete",
                    grading=grading, provenance=Provenance(mapper="fill:dsgym", notes=notes))
    return ImportedTask(spec=spec, warnings=tuple(warnings))


def dsgym_grading_facts(sources: Sources, slug: str, g: GradingSpec
                        ) -> dict[str, list[FactSource]]:
    """The citations of a grading taken from DSGym's page and the rules table."""
    rel = sources.cache[NAME].pages[slug.lower()][0]  # type: ignore[attr-defined]
    tree = sources.trees[NAME]
    page = FactSource(source=tree.peer.repository, commit=tree.commit, path=rel,
                      detail=f"the page of {slug}, read by the offline mapper")
    row = sources.rules()[slug.lower()]
    return {
        "grading.metric": [page.model_copy(update={"value": g.metric}), FactSource(
            source="tambench", path=sources.rule_file_of(slug), value=g.metric,
            detail=f"the competition's published rule: {row['published_rule']}")],
        "grading.columns": [page.model_copy(update={"value": (
            f"id {','.join(g.id_columns)}; target {','.join(g.target_columns)}")})],
        "grading.submission_header": [page.model_copy(update={
            "value": ",".join(g.submission_header)}), *([FactSource(
                source="tambench", path=sources.rule_file_of(slug),
                value=",".join(g.submission_header),
                detail="the header as the project's table reads the page (its copy ran the "
                       "header into the sample rows)")] if row.get("submission_header") else [])]}


def held_by_dsgym(sources: Sources, slug: str) -> list[str]:
    """What DSGym holds of a competition (for the note of an incomplete entry)."""
    data = _load(sources)
    if data is None:
        return []
    key = slug.lower()
    return [what for what, has in (("its page", key in data.pages),
                                   ("its final board", key in data.boards),
                                   ("a public board only", key in data.public_only)) if has]
