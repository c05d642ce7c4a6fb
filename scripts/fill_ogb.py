"""The OGB Large-Scale Challenge at KDD Cup 2021: final boards and dates (helper of
fill_catalogue).

The paper lists the three OGB-LSC datasets of KDD Cup 2021 (MAG240M, WikiKG90M, PCQM4M) as
Graph tasks. The OGB website's source (github:snap-stanford/ogb-web) publishes, read here as
data:

* ``_docs/kddcup2021/results.md``: the final leaderboard of each track, "evaluated on the
  entire test data", as a table of rank, team and test score with its direction ("The higher,
  the better."); the fill ships it as ``rank,score``, checked (ranks 1..n, scores ordered the
  way the table says, the direction that of the track's rule in the project's table);
* ``_docs/kddcup2021/timeline.md``: the start (March 15th, 2021) and the final test submission
  deadline (June 8th, 2021) shared by the three tracks.

A submission is a NumPy array saved by the OGB-LSC evaluator (``y_pred_mag240m.npz``, ...),
row i for test item i. Where the track's metric is one tambench grades over line files (a
ranking per line, matched by position, as for the paper release's nextproductprediction),
the task grades that array one row per line: WikiKG90M, line i holding the 10 predicted
candidate indices of test triplet i, best first, scored by MRR@10 against the index of the
true tail (the evaluator's rule, rows in the same order). A track whose items have an index
(:data:`TABLE_TRACKS`: PCQM4M's molecules, row i of ``raw/data.csv.gz`` with its ``idx``;
MAG240M's papers, item i of ``processed/paper/node_label.npy``, which the recipe numbers
``paper``) is graded as a CSV submission keyed by that index with the target column: in this
benchmark the local setup holds (the test set is a split of the download's labelled items, so
the evaluator's array, ordered by the official test indices, has no rows to follow), and a
table keyed by the index states the same predictions without relying on row order. Every
track's metric still gives its board a scale.
"""

from __future__ import annotations

import json
import re

from fill_sources import Board, Sources

from tambench.core.leaderboard import read_leaderboard
from tambench.schema.taskspec import FactSource, GradingSpec, LeaderboardSource
from tambench.tasks.dates import DatedSource, DateStatement, timeline_statements
from tambench.tasks.leaderboards import record_scale

NAME = "ogb-web"
RESULTS = "_docs/kddcup2021/results.md"
TIMELINE = "_docs/kddcup2021/timeline.md"
#: Catalogue slug -> the track's name on the OGB website, and its test file.
TRACKS = {"ogb-lsc-mag240m": ("MAG240M-LSC", "y_pred_mag240m.npz"),
          "ogb-lsc-wikikg90m": ("WikiKG90M-LSC", "t_pred_wikikg90m.npz"),
          "ogb-lsc-pcqm4m": ("PCQM4M-LSC", "y_pred_pcqm4m.npz")}
#: Tracks graded as a CSV table keyed by the row id (see the module docstring): slug -> (id
#: column, target column) of the download's table, and where its reader names them.
TABLE_TRACKS = {"ogb-lsc-pcqm4m": ("idx", "homolumogap"), "ogb-lsc-mag240m": ("paper", "label")}
_OGB = "github:snap-stanford/ogb"
OGB_READER = {
    "ogb-lsc-pcqm4m": FactSource(
        source=_OGB, commit="16774e38da070d8257bf31230dd07f7dcfab1ea8", path="ogb/lsc/pcqm4m.py",
        detail="PCQM4MDataset reads raw/data.csv.gz of pcqm4m_kddcup2021.zip: a molecule a row, "
               "its columns smiles and homolumogap (NaN for the official test molecules); row "
               "i is molecule i, the index split_dict.pt and the evaluator use"),
    "ogb-lsc-mag240m": FactSource(
        source=_OGB, commit="0b73e1434ab6e903d90a46a48d2b563b0cf4a61e", path="ogb/lsc/mag240m.py",
        detail="MAG240MDataset reads processed/paper/node_label.npy of mag240m_kddcup2021.zip: "
               "item i is the subject area of paper i (NaN for non-arXiv papers, -1 for the "
               "official test papers), the index split_dict.pt and the evaluator use; the "
               "recipe numbers the items paper and names the labels label"),
}
#: Metrics tambench grades over line files (one ranking per line, matched by position).
LINE_FILE_METRICS = ("mrr_at_k", "map_at_k_lines")
_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(.+?)\s*\|\s*([-+0-9.eE]+)\s*\|\s*$")


def _final_table(text: str, track: str) -> tuple[list[tuple[int, float]], bool | None]:
    """The rows of a track's final leaderboard and its stated direction (None: unstated)."""
    head = re.search(rf"^#### \*\*Final leaderboard for \[{re.escape(track)}\]", text, re.M)
    if head is None:
        return [], None
    section = re.split(r"\n#{1,4} ", text[head.end():], maxsplit=1)[0]
    higher = True if "The higher, the better" in section else \
        False if "The lower, the better" in section else None
    rows = [(int(m.group(1)), float(m.group(3))) for line in section.splitlines()
            if (m := _ROW.match(line.strip()))]
    return rows, higher


def _problem(rows: list[tuple[int, float]], higher: bool | None, rule_higher: bool | None
             ) -> str:
    if not rows:
        return "no final leaderboard table"
    if [r for r, _ in rows] != list(range(1, len(rows) + 1)):
        return "its ranks are not 1..n"
    scores = [s for _, s in rows]
    pairs = list(zip(scores, scores[1:], strict=False))
    if higher is None or not all((a >= b) if higher else (a <= b) for a, b in pairs):
        return "its scores are not ordered the way the table states"
    if rule_higher is not None and higher != rule_higher:
        return "its direction contradicts the track's rule"
    return ""


def ogb_board(sources: Sources, slug: str) -> tuple[Board | None, str]:
    """A track's final leaderboard as published on the OGB website, or why none is taken."""
    tree = sources.trees.get(NAME)
    if tree is None or slug.lower() not in TRACKS:
        return None, ""
    track = TRACKS[slug.lower()][0]
    path = tree.root / RESULTS
    rows, higher = _final_table(path.read_text(encoding="utf-8"), track)
    row = sources.rules().get(slug.lower())
    rule_higher = None if row is None else row["higher_is_better"] == "true"
    problem = _problem(rows, higher, rule_higher)
    if problem:
        return None, f"the OGB website's {track} board not taken: {problem}"
    assert sources.workdir is not None
    raw = sources.workdir / NAME / f"{slug.lower()}.csv"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text("rank,score\n" + "".join(f"{r},{s!r}\n" for r, s in rows), encoding="utf-8")
    scale = record_scale(row["metric"]) if row is not None and row["metric"] else {}
    record = LeaderboardSource(
        source=tree.peer.repository, commit=tree.commit, path=RESULTS, kind="private",
        rows=len(rows), sha256=sources.sha256(path), **scale, notes=[  # type: ignore[arg-type]
            f"the final {track} leaderboard of KDD Cup 2021 ('evaluated on the entire test "
            "data'), as the OGB website publishes it: rank, team and test score"])
    return Board(read_leaderboard(raw), record, raw), ""


def ogb_dates(sources: Sources, slug: str) -> DatedSource | None:
    """The KDD Cup 2021 timeline: its start and its final test submission deadline."""
    tree = sources.trees.get(NAME)
    if tree is None or slug.lower() not in TRACKS:
        return None
    text = (tree.root / TIMELINE).read_text(encoding="utf-8")
    kept = []
    for st in timeline_statements(text):
        if "Start of KDD Cup" in st.line:
            kept.append(DateStatement("start", st.day, st.line))
        elif "Final test submission" in st.line and "deadline" in st.line:
            kept.append(DateStatement("end", st.day, st.line))
    src = FactSource(source=tree.peer.repository, commit=tree.commit, path=TIMELINE,
                     detail="the KDD Cup 2021 timeline, shared by the three tracks")
    return DatedSource(src, statements=tuple(kept))


def ogb_grading(sources: Sources, slug: str) -> tuple[GradingSpec | None, str]:
    """A track's grading as a line file (see the module docstring), or why there is none."""
    row = sources.rules().get(slug.lower())
    if row is None or not row["metric"]:
        return None, "its grading cannot be declared: no published rule in the project's table"
    archive = TRACKS[slug.lower()][1]
    said = (f"a submission is the array the OGB-LSC evaluator saves as {archive}, row i for "
            f"test item i (the rule: {row['published_rule']})")
    params = json.loads(row["metric_params"] or "{}")
    if slug.lower() in TABLE_TRACKS:
        id_col, target = TABLE_TRACKS[slug.lower()]
        g = GradingSpec(metric=row["metric"], metric_params=params, id_columns=[id_col],
                        target_columns=[target], submission_header=[id_col, target])
        return g, (f"graded as a CSV table: {said}; here the local setup holds (the test "
                   "set is a split of the download's labelled items), so a submission is "
                   f"{id_col},{target}, one row per test item keyed by its {id_col}")
    if row["metric"] not in LINE_FILE_METRICS:
        return None, (f"its grading cannot be declared: {said}; no tambench submission format "
                      f"reads an .npz, and {row['metric']} is not graded over line files")
    g = GradingSpec(metric=row["metric"], metric_params=params, submission_format="txt",
                    answers_file="answers.txt")
    return g, (f"graded as a line file: {said}; line i holds row i of that array, "
               "space-separated, matched by position")


def ogb_grading_facts(sources: Sources, slug: str, g: GradingSpec
                      ) -> dict[str, list[FactSource]]:
    """The citations of a track's line-file grading."""
    tree = sources.trees[NAME]
    page = f"_docs/kddcup2021/{slug.lower().removeprefix('ogb-lsc-')}.md"
    cite = FactSource(source=tree.peer.repository, commit=tree.commit, path=page,
                      detail="the track's page: its metric and the evaluator's test file")
    row = sources.rules()[slug.lower()]
    metric = {"grading.metric": [cite.model_copy(update={"value": g.metric}), FactSource(
        source="tambench", path=sources.rule_file_of(slug), value=g.metric,
        detail=f"the competition's published rule: {row['published_rule']}")]}
    if slug.lower() in TABLE_TRACKS:
        reader = OGB_READER[slug.lower()]
        return {**metric, "grading.columns": [reader.model_copy(update={
            "value": f"id {','.join(g.id_columns)}; target {','.join(g.target_columns)}"})],
            "grading.submission_header": [reader.model_copy(update={
                "value": ",".join(g.submission_header), "detail": reader.detail + "; the "
                "header is this benchmark's: the row id and the target, the local setup "
                "holding over the evaluator's array"})]}
    return {**metric,
            "grading.columns": [cite.model_copy(update={
                "value": f"line file: line i is row i of {TRACKS[slug.lower()][1]}"})],
            "grading.submission_header": [cite.model_copy(update={
                "value": "(none: a line file)"})]}


def held_by_ogb(sources: Sources, slug: str) -> list[str]:
    """What the OGB website holds of a track (for the note of an incomplete entry)."""
    if NAME not in sources.trees or slug.lower() not in TRACKS:
        return []
    return ["its final board and timeline (github:snap-stanford/ogb-web)"]

