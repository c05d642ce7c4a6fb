"""The offline, rule-based mapper: competition pages' Markdown -> TaskSpec, no model needed.

It reads what competition pages state in predictable places: the metric in the evaluation
section, the submission header in the first code block (or header line) after "the following
format" under a submission heading, the files in the data section's bullet lists, the title in
the citation line, constraints in the code requirements. Every value it fills carries the raw
sentence or line it came from as evidence; what it cannot find is left unfilled, never guessed.
Sentences that read like instructions to a model (prompt injection) are skipped.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tambench.core.metrics.base import get_metric
from tambench.schema.mapping.draft import Draft
from tambench.schema.mapping.markdown import (
    Section,
    is_injection,
    normalize_ws,
    paragraphs,
    parse_pages,
    plain,
    section_sentences,
)
from tambench.schema.mapping.metric_rules import (
    METRIC_CUE_RE,
    TASK_TYPE_BY_METRIC,
    MetricMatch,
    match_sentence,
    refine,
)
from tambench.schema.taskspec import DataLocation, Modality

_FORMAT_PHRASE_RE = re.compile(
    r"following format|format:|look(?:s)? like the following|should look like|in this format"
    r"|the format is|csv file with|submission file|header", re.I)
_COLUMN_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_ELISION_RE = re.compile(r"\.\.\.|…")
_ETC_RE = re.compile(r"^\s*(etc\.?|\.\.\.|…)", re.I)
_FOR_EACH_RE = re.compile(
    r"\bfor (?:each|every)\s+`?(\w+)`?\s+and\s+`?(\w+)`?", re.I)
_ONLY_SCORED_RE = re.compile(
    r"only the following (?:columns )?are scored:\s*([^.]+)", re.I)
_CITATION_RE = re.compile(
    r"\(\d{4}\)\.\s+(?P<title>[^\n]+?)\.\s+(?:Kaggle|AIcrowd|Biendata|biendata|aicrowd)\b")
_GOAL_TITLE_RE = re.compile(r"goal|objective|problem statement|task description|what am i predicting",
                            re.I)
_GOAL_CUE_RE = re.compile(
    r"\b(predict|challenged?|your task|goal|build|develop|identify|classify|detect|forecast|"
    r"estimate|segment|transcribe|create)\b", re.I)
_GOAL_STRONG_RE = re.compile(
    r"\bin this (?:competition|challenge)\b|\byou(?:'re|’re| are) (?:challenged|asked|tasked)"
    r"|\byour (?:task|challenge|goal) is\b|\bthe goal of this\b|\bthis competition challenges\b"
    r"|\bchallenge is to\b|\byou will (?:predict|build|develop)|\byou'll\b", re.I)
_FILE_LINE_RE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|`)?(?P<name>/?[\w{}|\-.\[\]*]+?(?:\.[A-Za-z0-9]{1,8}|/))"
    r"(?:\*\*|`)?\s*(?:[-–—:]|\s-\s)\s*(?P<desc>\S.*)$")
_FILE_EXT_RE = re.compile(
    r"\.(csv|json|jsonl|zip|7z|txt|npy|npz|parquet|tfrec|tfrecords?|h5|hdf5|bson|dcm|png|jpe?g|"
    r"tiff?|wav|aiff?|mp3|flac|ogg|mat|pkl|pickle|tar|gz|feather|xyz|avi|mp4|nii|pdb|fasta|tsv|"
    r"xml|geojson)$", re.I)
_TARGET_FIELD_RE = re.compile(
    r"^\s*[-*+]\s+(?:\*\*|`)(?P<col>\w+)(?:\*\*|`)\s*[-–—:].*\b(this is the target|"
    r"the target|target variable|you are (?:trying|asked) to predict)\b", re.I)
_CONSTRAINT_RE = re.compile(
    r"\b(must|must not|should not|not allowed|is allowed|are allowed|disabled|required|"
    r"<=|no more than|at most|only)\b", re.I)

_MODALITY_PATTERNS: dict[Modality, re.Pattern[str]] = {
    Modality.IMAGE: re.compile(
        r"\.(?:jpe?g|png|tiff?|dcm|bmp)\b|\bimages?\b|\bphotos?\b|\bphotographs?\b|\bx-?rays?\b"
        r"|\bmammogra\w*|\bpixels?\b|\bct scans?\b|\bmri\b|\bdicom\b|\bscans?\b",
        re.I),
    Modality.AUDIO: re.compile(
        r"\.(?:wav|aiff?|mp3|flac|ogg)\b|\baudio\b|\bsounds?\b|\bspeech\b|\bspectrograms?\b"
        r"|\bacoustic\b|\bsound clips?\b|\brecordings?\b", re.I),
    Modality.TEXT: re.compile(
        r"\btext\b|\bsentences?\b|\bcomments?\b|\btweets?\b|\bwords?\b|\btokens?\b"
        r"|\bquestions? and answers?\b|\bessays?\b|\bprompts?\b|\bnatural language\b|\bnlp\b"
        r"|\bphrases?\b|\breviews?\b|\bquestions?\b|\banswers?\b|\btitles?\b", re.I),
    Modality.GRAPH: re.compile(r"\bgraphs?\b|\bnodes?\b|\bedges\b|\bcitation network\b", re.I),
}
_MULTIMODAL_RE = re.compile(r"\bmulti-?modal\b", re.I)
_TABULAR_RE = re.compile(r"\btabular\b|\.csv\b|\bfeatures?\b|\bcolumns?\b", re.I)


# --- small helpers ------------------------------------------------------------------------


def _clean_sentences(section: Section) -> list[str]:
    return [s for s in section_sentences(section) if not is_injection(s)]


def parse_header(line: str) -> list[str] | None:
    """Column names when ``line`` reads as a CSV header row, else None.

    Trailing Markdown line-break backslashes and spaces around names are dropped.

    >>> parse_header('id,"sentence"')
    ['id', 'sentence']
    >>> parse_header("Id, Pawpularity  ")
    ['Id', 'Pawpularity']
    >>> parse_header("tpr_thresholds = [0.0, 0.4, 1.0]") is None
    True
    """
    text = line.strip().rstrip("\\").strip()
    if "," not in text:
        return None
    try:
        cells = next(csv.reader([text], skipinitialspace=True))
    except (csv.Error, StopIteration):
        return None
    cells = [c.strip() for c in cells]
    if len(cells) < 2 or any(not _COLUMN_NAME_RE.match(c) for c in cells):
        return None
    if len(set(cells)) != len(cells):
        return None
    return cells


def _split_row(line: str) -> list[str]:
    text = line.strip().rstrip("\\").strip()
    try:
        return [c.strip() for c in next(csv.reader([text], skipinitialspace=True))]
    except (csv.Error, StopIteration):
        return []


@dataclass
class HeaderFind:
    """A submission example found in the pages."""

    raw_line: str
    """The header line exactly as written (the evidence)."""

    header: list[str] | None
    """Column names; None when the page elides columns ("id,a,...,z")."""

    rows: list[list[str]]
    """Example rows under the header (parsed, "etc." lines dropped)."""

    block: list[str]
    """The example's lines, header first (the output_format)."""

    section: Section


def _example_after(lines: Sequence[str], start: int) -> tuple[str, list[str]] | None:
    """The first non-empty line from ``start`` and the example lines that follow it."""
    for i in range(start, min(start + 4, len(lines))):
        if lines[i].strip():
            block = [lines[i]]
            for nxt in lines[i + 1:i + 30]:
                if nxt.strip().startswith(("```", "~~~", "#")):
                    break
                if nxt.strip() and not _looks_like_data(nxt) and not _ETC_RE.match(nxt):
                    break
                block.append(nxt)
            return lines[i], block
    return None


def _looks_like_data(line: str) -> bool:
    return "," in line and len(line.strip()) < 400


def _header_candidates(section: Section, *, need_phrase: bool) -> list[tuple[str, list[str]]]:
    """(header line, example lines) candidates of a section, in page order: fenced code blocks
    (after a format phrase when ``need_phrase``), and unfenced lines that follow a format
    phrase such as "should look like the following:"."""
    out: list[tuple[str, list[str]]] = []
    lines = section.lines
    blocks = {b.start: b for b in section.code_blocks}
    prose = dict(section.prose_lines())
    i = 0
    while i < len(lines):
        block = blocks.get(i)
        if block is not None:
            body = [ln for ln in block.lines if ln.strip()]
            if body and (not need_phrase or _phrase_before(lines, i)):
                out.append((body[0], body))
            i += len(block.lines) + 2
            continue
        line = prose.get(i, "")
        if _FORMAT_PHRASE_RE.search(line) and (
                line.rstrip().endswith(":") or re.search(r"following format|look like the following",
                                                         line, re.I)):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and j not in blocks:
                found = _example_after(lines, j)
                if found is not None:
                    out.append(found)
        i += 1
    return out


def _phrase_before(lines: Sequence[str], i: int) -> bool:
    seen = 0
    for j in range(i - 1, -1, -1):
        if lines[j].strip():
            if _FORMAT_PHRASE_RE.search(lines[j]):
                return True
            seen += 1
            if seen >= 2:
                return False
    return False


def find_submission_example(sections: Sequence[Section]) -> HeaderFind | None:
    """The submission example: under a submission heading first, then the evaluation part,
    then anywhere it follows words like "the following format"."""
    tiers = [
        ([s for s in sections if s.is_submission], False),
        ([s for s in sections if s.is_evaluation and not s.is_submission], True),
        ([s for s in sections if not s.is_evaluation and not s.is_data], True),
    ]
    for group, need_phrase in tiers:
        for section in group:
            for raw, block in _header_candidates(section, need_phrase=need_phrase):
                if is_injection(raw):
                    continue
                header = parse_header(raw)
                if header is not None:
                    rows = [_split_row(ln) for ln in block[1:]
                            if ln.strip() and not _ETC_RE.match(ln)]
                    return HeaderFind(raw, header, rows, block, section)
                if _ELISION_RE.search(raw) and "," in raw and _header_like_prefix(raw):
                    return HeaderFind(raw, None, [], block, section)
    return None


def _header_like_prefix(raw: str) -> bool:
    first = raw.strip().split(",")[0].strip()
    return bool(_COLUMN_NAME_RE.match(first))


def _id_columns(header: list[str], rows: list[list[str]], text: str) -> list[str]:
    """Id columns: named in "For each `a` and `b`" when both are columns; otherwise the
    fewest leading columns whose values are unique over the example rows."""
    for m in _FOR_EACH_RE.finditer(text):
        a, b = m.group(1), m.group(2)
        if a in header and b in header and header.index(a) < header.index(b) < len(header) - 1:
            return header[: header.index(b) + 1]
    rows = [r for r in rows if len(r) == len(header)]
    n = 1
    while n < len(header) - 1 and len(rows) >= 2 and len({tuple(r[:n]) for r in rows}) < len(rows):
        n += 1
    return header[:n]


def _scored_subset(targets: list[str], eval_plain: str) -> tuple[list[str], str] | None:
    m = _ONLY_SCORED_RE.search(eval_plain)
    if not m:
        return None
    names = [n.strip(" `*") for n in re.split(r",|\band\b", m.group(1)) if n.strip(" `*")]
    if names and all(n in targets for n in names):
        return [t for t in targets if t in names], m.group(0)
    return None


# --- the mapper ---------------------------------------------------------------------------


def find_metric(sections: Sequence[Section], target_columns: Sequence[str]) -> MetricMatch | None:
    """The metric named in the evaluation part (or, lacking one, anywhere in the pages).

    Sentences with a cue ("evaluated", "scored", "metric"...) are read before the rest, each
    group in page order; the first sentence a rule matches decides.
    """
    evals = [s for s in sections if s.is_evaluation]
    pool = evals or list(sections)
    sents = [sent for s in pool for sent in _clean_sentences(s)]
    eval_plain = plain(" ".join(sents))
    for cue_only in (True, False):
        for sent in sents:
            p = plain(sent)
            if cue_only and not METRIC_CUE_RE.search(p):
                continue
            found = match_sentence(p)
            if found is None:
                continue
            rule, m = found
            metric_id, params, notes = refine(rule, m, eval_plain, target_columns)
            if not evals:
                notes.append("the pages have no evaluation section; the metric was read from "
                              "the rest of the text")
            return MetricMatch(metric_id, params, m.group(0), sent, notes)
    return None


def _metric_params(metric_id: str, params: Mapping[str, object]) -> dict[str, object]:
    """Parameters the registered metric takes; a parameter it does not take is dropped."""
    metric = get_metric(metric_id)
    return {k: v for k, v in params.items() if k in metric.defaults}


def _find_title(sections: Sequence[Section]) -> tuple[str, str] | None:
    for s in sections:
        for para in paragraphs(s):
            m = _CITATION_RE.search(para)
            if m and not is_injection(para):
                return m.group("title").strip(), m.group(0)
    return None


def _find_goal(sections: Sequence[Section]) -> str | None:
    """The sentence stating the task: under a Goal / Objective heading, else the first
    description sentence with a strong cue ("In this competition", "you're challenged"...),
    else the first with a weaker one ("predict", "build", "identify"...)."""
    for s in sections:
        if _GOAL_TITLE_RE.search(s.title):
            for sent in _clean_sentences(s):
                if sent != s.title and len(sent) > 30:
                    return sent
    desc = [s for s in sections if not s.is_data and not s.is_evaluation and not s.is_rules]
    for cue in (_GOAL_STRONG_RE, _GOAL_CUE_RE):
        for s in desc:
            for sent in _clean_sentences(s):
                if sent == s.title or len(sent) < 30 or sent.startswith(("!", "[", "|")):
                    continue
                if cue.search(plain(sent)):
                    return sent
    return None


def _find_formula(sections: Sequence[Section]) -> str | None:
    for s in sections:
        if not s.is_evaluation:
            continue
        text = s.text
        m = re.search(r"\$\$(.+?)\$\$", text, re.S) or re.search(
            r"\$([^$\n]*\\(?:frac|sum|sqrt|log)[^$\n]*)\$", text)
        if m and not is_injection(m.group(0)):
            return m.group(0)
    return None


def _find_modality(sections: Sequence[Section]) -> tuple[Modality, str] | None:
    data = [s for s in sections if s.is_data] or list(sections)
    sents = [sent for s in data for sent in _clean_sentences(s)]
    text = "\n".join(plain(x) for x in sents)
    for sent in sents:
        if _MULTIMODAL_RE.search(plain(sent)):
            return Modality.MULTIMODAL, sent
    counts = {mod: len(pat.findall(text)) for mod, pat in _MODALITY_PATTERNS.items()}
    best = max(counts, key=lambda k: counts[k])
    if counts[best] >= 2:
        for sent in sents:
            if _MODALITY_PATTERNS[best].search(plain(sent)):
                return best, sent
    for sent in sents:
        if _TABULAR_RE.search(plain(sent)):
            return Modality.TABULAR, sent
    return None


def _find_files(sections: Sequence[Section]) -> dict[str, tuple[DataLocation, str]]:
    data = [s for s in sections if s.is_data] or list(sections)
    parts: dict[str, list[tuple[str, str, str]]] = {"train": [], "test": [], "inference": []}
    for s in data:
        for _, line in s.prose_lines():
            m = _FILE_LINE_RE.match(line)
            if not m or is_injection(line):
                continue
            name = m.group("name").strip("/") + ("/" if m.group("name").endswith("/") else "")
            if not (_FILE_EXT_RE.search(name.rstrip("/")) or name.endswith("/")):
                continue
            desc = plain(m.group("desc")).strip()
            low = name.lower()
            if "submission" in low:
                kind = "inference"
            elif "test" in low:
                kind = "test"
            elif "train" in low:
                kind = "train"
            else:
                continue
            parts[kind].append((name, desc, line.strip()))
    out: dict[str, tuple[DataLocation, str]] = {}
    for kind, items in parts.items():
        if items:
            loc = DataLocation(
                data_location=", ".join(n for n, _, _ in items),
                data_description=" ".join(f"{n}: {d}" for n, d, _ in items),
            )
            out[kind] = (loc, items[0][2])
    return out


def _find_target_field(sections: Sequence[Section]) -> tuple[str, str] | None:
    for s in sections:
        for _, line in s.prose_lines():
            m = _TARGET_FIELD_RE.match(line)
            if m and not is_injection(line):
                return m.group("col"), line.strip()
    return None


def _find_constraints(sections: Sequence[Section]) -> list[str]:
    items: list[str] = []
    for s in sections:
        if s.is_rules:
            for para in paragraphs(s):
                if para.lstrip().startswith(("-", "*", "+")) or re.match(r"\s*\d+[.)]\s", para):
                    item = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", para).strip()
                    if item and not is_injection(item):
                        items.append(item)
        elif s.is_submission:
            for sent in _clean_sentences(s):
                if sent != s.title and _CONSTRAINT_RE.search(plain(sent)) and len(sent) < 300:
                    items.append(sent)
    return list(dict.fromkeys(items))[:12]


def map_rules(pages: Mapping[str, str]) -> Draft:
    """Fill a draft from the pages with the offline rules (see the module docstring)."""
    sections = parse_pages(pages)
    draft = Draft()
    for s in sections:
        for sent in section_sentences(s):
            if is_injection(sent):
                draft.warnings.append(
                    f"ignored an instruction-like sentence in the {s.page} page: "
                    f"{normalize_ws(sent)[:160]!r}")

    title = _find_title(sections)
    if title:
        draft.put("title", title[0], title[1])
    goal = _find_goal(sections)
    if goal:
        draft.put("goal_description", normalize_ws(plain(goal)), goal)

    example = find_submission_example(sections)
    targets: list[str] = []
    if example is not None:
        draft.put("output_format", "\n".join(ln.rstrip().rstrip("\\").rstrip()
                                             for ln in example.block), example.raw_line)
        if example.header is None:
            draft.notes.append("the submission example elides columns ('...'); the exact "
                               "header must come from the sample submission file")
        else:
            header = example.header
            ids = _id_columns(header, example.rows, example.section.text)
            targets = [c for c in header if c not in ids]
            draft.put("grading.submission_header", header, example.raw_line)
            draft.put("grading.id_columns", ids, example.raw_line)
            eval_plain = plain(" ".join(s.text for s in sections if s.is_evaluation))
            subset = _scored_subset(targets, eval_plain)
            if subset is not None:
                targets = subset[0]
                scored_quote = next(
                    (sent for s in sections if s.is_evaluation for sent in _clean_sentences(s)
                     if _ONLY_SCORED_RE.search(plain(sent))), example.raw_line)
                draft.put("grading.target_columns", targets, scored_quote)
            else:
                draft.put("grading.target_columns", targets, example.raw_line)
            draft.put("target_col", ", ".join(targets), example.raw_line)
    if "target_col" not in draft.fields:
        tf = _find_target_field(sections)
        if tf:
            draft.put("target_col", tf[0], tf[1])

    metric = find_metric(sections, targets)
    if metric is not None:
        params = _metric_params(metric.metric_id, metric.params)
        draft.put("grading.metric", {"id": metric.metric_id, "params": params}, metric.sentence)
        draft.put("metric.metric_name", metric.name, metric.sentence)
        draft.notes.extend(f"metric {metric.metric_id}: {n}" for n in metric.notes)
        task_type = TASK_TYPE_BY_METRIC.get(metric.metric_id)
        if task_type:
            draft.put("task_type", task_type, metric.sentence)
    formula = _find_formula(sections)
    if formula:
        draft.put("metric.metric_formula", formula.strip("$").strip(), formula)

    modality = _find_modality(sections)
    if modality:
        draft.put("modality", modality[0].value, modality[1])
        draft.put("data_information.data_type", modality[0].value, modality[1])
    for kind, (loc, quote) in _find_files(sections).items():
        draft.put(f"data_information.{kind}", loc, quote)
    constraints = _find_constraints(sections)
    if constraints:
        numbered = "\n".join(f"{i}. {normalize_ws(plain(c))}" for i, c in enumerate(constraints, 1))
        draft.put("special_instructions", numbered, constraints[0])
    return draft
