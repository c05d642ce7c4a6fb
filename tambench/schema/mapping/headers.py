"""Finding the submission example in competition pages: its header row, rows and columns.

Pages show the submission's header in many layouts: a fenced code block after "the following
format", a bare line after "should look like" or "formatted like", a line wrapped in
backticks, a header inside a sentence (``the header `id,target` ``), or bare lines with no cue
at all, followed by example rows. Column names may hold spaces ("Machine failure") and
punctuation ("Answer[A/B]"). What a page elides ("id,a,...,z") is reported as elided, never
completed by guesswork.

Candidates are read section by section: submission sections first, then evaluation sections,
then the rest of the page (data sections, which list the training files' columns, last and
only after a cue). The first candidate that parses as a header wins; the raw line is the
evidence.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tambench.schema.mapping.markdown import Section, is_injection

#: Words before an example that announce it.
CUE_RE = re.compile(
    r"following format|format(?:ted)? (?:like|as)|formatted:|\bformat\s*:|look(?:s|ing)? like"
    r"|in this format|the format is|format below|as follows|like this|example:|header (?:row )?"
    r"(?:is|of|should|must|line)|with (?:a|the) header|columns? (?:should be|are|must be)"
    r"|submission file (?:should|must|has|looks|format)|\bsample submission\b.{0,40}:\s*$",
    re.I)
#: "...", "…", or a cell of just two dots ("id,a,..,z").
_ELISION_RE = re.compile(r"\.\.\.|…|(?:^|,)\s*\.\.\s*(?=,|$)")
_ETC_RE = re.compile(r"^\s*(etc\.?|\.\.\.|…)\s*$", re.I)
_INLINE_CODE_RE = re.compile(r"`{1,2}([^`\n]+?)`{1,2}")
_WRAP_RE = re.compile(r"^(?:>\s*)?(?:[-*+]\s+)?(?:\*\*|__|`{1,3})?(.*?)(?:\*\*|__|`{1,3})?$")
_NUMBER_RE = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$", re.I)
#: A column name: letters, digits, spaces and common punctuation; starts with a letter, an
#: underscore, a digit, "#" or a bracket.
_COLUMN_RE = re.compile(r"^[A-Za-z0-9_#(\[][\w .\-/()\[\]#%+:&'|]*$")
#: Words that make a comma-separated phrase prose rather than a header.
_PROSE_WORDS = frozenset(
    "the an and or of for each every should must will would with to in is are be your you "
    "this that which per from by as on at if not where when then please there their it its we "
    "our can may has have".split())
MAX_COLUMN_CHARS = 60
MAX_COLUMN_WORDS = 4


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


def _unwrap(line: str) -> str:
    """A line without Markdown wrapping: quote marks, bullets, bold, backticks, a trailing
    line-break backslash."""
    text = line.strip().rstrip("\\").strip()
    m = _WRAP_RE.match(text)
    return (m.group(1) if m else text).strip().rstrip("\\").strip()


def _cells(text: str) -> list[str] | None:
    try:
        return [c.strip() for c in next(csv.reader([text], skipinitialspace=True))]
    except (csv.Error, StopIteration):
        return None


def _balanced(cell: str) -> bool:
    return cell.count("(") == cell.count(")") and cell.count("[") == cell.count("]")


def _is_column_name(cell: str) -> bool:
    words = cell.split()
    return (0 < len(cell) <= MAX_COLUMN_CHARS and 0 < len(words) <= MAX_COLUMN_WORDS
            and _balanced(cell) and not cell.endswith(":")
            and bool(_COLUMN_RE.match(cell)) and not any(w.lower() in _PROSE_WORDS for w in words)
            and not (len(words) > 1 and cell[0].isdigit()))


def parse_header(line: str) -> list[str] | None:
    """Column names when ``line`` reads as a CSV header row, else None.

    Markdown wrapping (backticks, bold, a trailing line-break backslash) and spaces around
    names are dropped; names may hold inner spaces and punctuation. A row of numbers, a
    phrase of prose, or repeated names is not a header.

    >>> parse_header('id,"sentence"')
    ['id', 'sentence']
    >>> parse_header("`Id, Pawpularity`  ")
    ['Id', 'Pawpularity']
    >>> parse_header("id, Machine failure")
    ['id', 'Machine failure']
    >>> parse_header("tpr_thresholds = [0.0, 0.4, 1.0]") is None
    True
    >>> parse_header("For each id, predict the target") is None
    True
    """
    text = _unwrap(line)
    if "," not in text or _ELISION_RE.search(text):
        return None
    cells = _cells(text)
    if cells is None or len(cells) < 2 or len(set(cells)) != len(cells):
        return None
    if not all(_is_column_name(c) for c in cells):
        return None
    numeric = sum(bool(_NUMBER_RE.match(c)) for c in cells)
    if numeric and (_NUMBER_RE.match(cells[0]) or numeric * 2 >= len(cells)):
        return None
    return cells


def is_elided_header(line: str) -> bool:
    """Whether ``line`` is a header whose middle columns are elided ("id,a,...,z").

    >>> is_elided_header("qa_id,question_asker_intent_understanding,...,answer_well_written")
    True
    >>> is_elided_header("1,0.5,...")
    False
    """
    text = _unwrap(line)
    if "," not in text or not _ELISION_RE.search(text):
        return False
    cells = [c for c in (_cells(_ELISION_RE.sub("", text)) or []) if c]
    return len(cells) >= 1 and _is_column_name(cells[0]) and not _NUMBER_RE.match(cells[0])


def elided_header_parts(line: str) -> tuple[list[str], list[str]] | None:
    """The columns an elided header shows before and after its elision; None when ``line``
    is not one header with a single elision.

    >>> elided_header_parts("id,affenpinscher,afghan_hound,..,yorkshire_terrier")
    (['id', 'affenpinscher', 'afghan_hound'], ['yorkshire_terrier'])
    >>> elided_header_parts("id,Acer_Capillipes,Acer_Mono,...")
    (['id', 'Acer_Capillipes', 'Acer_Mono'], [])
    """
    if not is_elided_header(line):
        return None
    cells = _cells(_unwrap(line)) or []
    marks = [i for i, c in enumerate(cells) if _ELISION_RE.fullmatch(c) or c in ("..", "…")]
    if len(marks) != 1:
        return None
    before, after = cells[:marks[0]], cells[marks[0] + 1:]
    if not before or not all(_is_column_name(c) for c in before + after):
        return None
    return before, after


def split_row(line: str) -> list[str]:
    """The cells of an example row (Markdown wrapping dropped)."""
    return _cells(_unwrap(line)) or []


def _rows_after(lines: Sequence[str], start: int, width: int) -> list[str]:
    """Example lines right after a header: rows of ``width`` cells and "etc." lines."""
    out: list[str] = []
    for line in lines[start:start + 40]:
        stripped = line.strip()
        if not stripped or stripped.startswith(("```", "~~~", "#")):
            break
        if _ETC_RE.match(_unwrap(line)) or _ELISION_RE.fullmatch(_unwrap(line) or "x"):
            out.append(line)
            continue
        cells = split_row(line)
        if len(cells) != width:
            break
        out.append(line)
    return out


def _cue_before(lines: Sequence[str], i: int) -> bool:
    seen = 0
    for j in range(i - 1, -1, -1):
        if lines[j].strip():
            if CUE_RE.search(lines[j]):
                return True
            seen += 1
            if seen >= 2:
                return False
    return False


@dataclass(frozen=True)
class _Candidate:
    raw: str
    block: list[str]


def _has_rows(body: Sequence[str]) -> bool:
    """Whether a code block reads as a table: a header, then a row of the same width."""
    header = parse_header(body[0])
    return header is not None and bool(_rows_after(body, 1, len(header)))


def _block_candidates(section: Section, *, need_cue: bool) -> Iterator[tuple[int, _Candidate]]:
    """Code blocks: in submission sections any, elsewhere after a cue, or (in evaluation
    sections) when they read as a table with example rows."""
    lines = section.lines
    for block in section.code_blocks:
        body = [ln for ln in block.lines if ln.strip()]
        if not body:
            continue
        table = section.is_evaluation and _has_rows(body)
        if not need_cue or table or _cue_before(lines, block.start):
            yield block.start, _Candidate(body[0], body)


def _line_candidates(section: Section, *, need_cue: bool) -> Iterator[tuple[int, _Candidate]]:
    lines = section.lines
    for i, line in section.prose_lines():
        if not line.strip():
            continue
        cue_here = bool(CUE_RE.search(line))
        for code in _INLINE_CODE_RE.findall(line) if cue_here else ():
            if parse_header(code) is not None or is_elided_header(code):
                yield i, _Candidate(code, [code])
        header = parse_header(line)
        if header is None and not is_elided_header(line):
            continue
        rows = _rows_after(lines, i + 1, len(header)) if header else []
        wrapped = line.strip().startswith(("`", "**"))
        cued = _cue_before(lines, i)
        if cued or (not need_cue and (rows or wrapped)):
            yield i, _Candidate(line, [line, *rows])


def _candidates(section: Section, *, need_cue: bool) -> list[_Candidate]:
    found = [*_block_candidates(section, need_cue=need_cue),
             *_line_candidates(section, need_cue=need_cue)]
    return [c for _, c in sorted(found, key=lambda ic: ic[0])]


def find_submission_example(sections: Sequence[Section]) -> HeaderFind | None:
    """The submission example (see the module docstring for the search order)."""
    tiers = [
        ([s for s in sections if s.is_submission], False),
        ([s for s in sections if s.is_evaluation and not s.is_submission], True),
        ([s for s in sections if not s.is_evaluation and not s.is_data], True),
        ([s for s in sections if s.is_data and not s.is_evaluation], True),
    ]
    for group, need_cue in tiers:
        for section in group:
            for cand in _candidates(section, need_cue=need_cue):
                if is_injection(cand.raw):
                    continue
                header = parse_header(cand.raw)
                if header is not None:
                    rows = [split_row(ln) for ln in cand.block[1:]
                            if ln.strip() and not _ETC_RE.match(_unwrap(ln))]
                    return HeaderFind(cand.raw, header, rows, cand.block, section)
                if is_elided_header(cand.raw):
                    return HeaderFind(cand.raw, None, [], cand.block, section)
    return None
