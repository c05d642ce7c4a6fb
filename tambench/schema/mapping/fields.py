"""The descriptive fields the offline mapper reads: title, goal, formula, modality, data files,
target column and constraints. Each finder returns the value with the raw text it came from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tambench.schema.mapping.markdown import (
    Section,
    is_injection,
    paragraphs,
    plain,
)
from tambench.schema.taskspec import DataLocation, Modality

#: A citation line: "Author (2020). The Title. Kaggle." The platform's name is found first and
#: the year looked for in the MAX_TITLE_CHARS before it, so each piece of text is read once.
_CITATION_RE = re.compile(
    r"\(\d{4}\)\.\s{1,5}(?P<title>[^\n]{1,300}?)\.\s{1,5}(?:Kaggle|AIcrowd|Biendata|biendata"
    r"|aicrowd)\b")
_PLATFORM_RE = re.compile(r"\.\s{1,5}(?:Kaggle|AIcrowd|Biendata|biendata|aicrowd)\b")
MAX_TITLE_CHARS = 300
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




#: Characters of description text the goal and modality finders read: both look at the first
#: statements of the task, and a page is not read further for them.
READ_WINDOW_CHARS = 200_000


def clean_sentences(section: Section) -> tuple[str, ...]:
    """The section's title and sentences, without instruction-like ones."""
    return section.clean_sentence_list


def _window(sections: Sequence[Section]) -> list[tuple[Section, str]]:
    """(section, clean sentence) pairs in order, up to READ_WINDOW_CHARS characters."""
    out: list[tuple[Section, str]] = []
    used = 0
    for s in sections:
        for sent in clean_sentences(s):
            used += len(sent)
            if used > READ_WINDOW_CHARS:
                return out
            out.append((s, sent))
    return out


def find_title(sections: Sequence[Section]) -> tuple[str, str] | None:
    """The title from a citation line ("Author (2020). The Title. Kaggle.")."""
    for s in sections:
        for para in paragraphs(s):
            if _PLATFORM_RE.search(para) is None or is_injection(para):
                continue
            for platform in _PLATFORM_RE.finditer(para):
                start = max(0, platform.start() - MAX_TITLE_CHARS - 12)
                m = _CITATION_RE.search(para, start, platform.end())
                if m:
                    return m.group("title").strip(), m.group(0)
    return None


def find_goal(sections: Sequence[Section]) -> str | None:
    """The sentence stating the task: under a Goal / Objective heading, else the first
    description sentence with a strong cue ("In this competition", "you're challenged"...),
    else the first with a weaker one ("predict", "build", "identify"...)."""
    for s in sections:
        if _GOAL_TITLE_RE.search(s.title):
            for sent in clean_sentences(s):
                if sent != s.title and len(sent) > 30:
                    return sent
    desc = _window([s for s in sections
                    if not s.is_data and not s.is_evaluation and not s.is_rules])
    candidates = [(sent, plain(sent)) for s, sent in desc
                  if sent != s.title and len(sent) >= 30 and not sent.startswith(("!", "[", "|"))]
    for cue in (_GOAL_STRONG_RE, _GOAL_CUE_RE):
        for sent, text in candidates:
            if cue.search(text):
                return sent
    return None


#: Longest formula read between ``$$`` or ``$`` delimiters.
MAX_FORMULA_CHARS = 2000
_TEX_COMMANDS = ("\\frac", "\\sum", "\\sqrt", "\\log")


def _display_formula(text: str) -> str | None:
    """The first ``$$...$$`` block (at most MAX_FORMULA_CHARS inside)."""
    start = text.find("$$")
    while start >= 0:
        end = text.find("$$", start + 2, start + 4 + MAX_FORMULA_CHARS)
        if end > start + 2:
            return text[start:end + 2]
        start = text.find("$$", start + 2)
    return None


def _inline_formula(text: str) -> str | None:
    """The first ``$...$`` on one line holding a TeX command (\\frac, \\sum, \\sqrt, \\log)."""
    for line in text.splitlines():
        if "$" not in line or "\\" not in line:
            continue
        parts = line.split("$")
        for inner in parts[1:-1]:
            if inner and len(inner) <= MAX_FORMULA_CHARS and any(c in inner
                                                                  for c in _TEX_COMMANDS):
                return f"${inner}$"
    return None


def find_formula(sections: Sequence[Section]) -> str | None:
    """The first formula of the evaluation part: a ``$$`` block, else an inline ``$`` formula
    with a TeX command. Plain string scans, linear in the text."""
    for s in sections:
        if not s.is_evaluation:
            continue
        text = s.text
        found = _display_formula(text) or _inline_formula(text)
        if found and not is_injection(found):
            return found
    return None


def find_modality(sections: Sequence[Section]) -> tuple[Modality, str] | None:
    """The data's modality, by the words of the data description (its first
    READ_WINDOW_CHARS characters): multimodal when it says so, else the modality named most
    (at least twice), else tabular when it speaks of columns or features."""
    data = [s for s in sections if s.is_data] or list(sections)
    sents = [(sent, plain(sent)) for _, sent in _window(data)]
    text = "\n".join(p for _, p in sents)
    for sent, p in sents:
        if _MULTIMODAL_RE.search(p):
            return Modality.MULTIMODAL, sent
    counts = {mod: len(pat.findall(text)) for mod, pat in _MODALITY_PATTERNS.items()}
    best = max(counts, key=lambda k: counts[k])
    if counts[best] >= 2:
        for sent, p in sents:
            if _MODALITY_PATTERNS[best].search(p):
                return best, sent
    for sent, p in sents:
        if _TABULAR_RE.search(p):
            return Modality.TABULAR, sent
    return None


def find_files(sections: Sequence[Section]) -> dict[str, tuple[DataLocation, str]]:
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


def find_target_field(sections: Sequence[Section]) -> tuple[str, str] | None:
    for s in sections:
        for _, line in s.prose_lines():
            m = _TARGET_FIELD_RE.match(line)
            if m and not is_injection(line):
                return m.group("col"), line.strip()
    return None


def find_constraints(sections: Sequence[Section]) -> list[str]:
    items: list[str] = []
    for s in sections:
        if s.is_rules:
            for para in paragraphs(s):
                if para.lstrip().startswith(("-", "*", "+")) or re.match(r"\s*\d+[.)]\s", para):
                    item = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", para).strip()
                    if item and not is_injection(item):
                        items.append(item)
        elif s.is_submission:
            for sent in clean_sentences(s):
                if sent != s.title and _CONSTRAINT_RE.search(plain(sent)) and len(sent) < 300:
                    items.append(sent)
    return list(dict.fromkeys(items))[:12]


#: A listed column: "- delta: the number of steps", "- **weight** - the row's weight",
#: "IsHoliday - whether the week is a holiday week".
_FIELD_LINE_RE = re.compile(r"\s{0,8}(?:[-*+]\s{1,4})?(?:\*\*|`)?(?P<name>[A-Za-z_][\w.]{0,60}?)"
                            r"(?:\*\*|`)?\s{0,4}(?::|\s[-\u2013\u2014]\s)\s{0,4}(?P<desc>\S[^\n]{0,300})")
#: Columns read from the data description at most.
MAX_FIELDS = 2000


def data_fields(sections: Sequence[Section]) -> tuple[tuple[str, str], ...]:
    """(column, description) pairs the data description lists, in order (file names left
    out), up to MAX_FIELDS."""
    out: list[tuple[str, str]] = []
    for s in sections:
        if not s.is_data:
            continue
        for _, line in s.prose_lines():
            m = _FIELD_LINE_RE.match(line)
            if m and not _FILE_EXT_RE.search(m.group("name")) and not is_injection(line):
                out.append((m.group("name"), plain(m.group("desc")).strip()))
                if len(out) >= MAX_FIELDS:
                    return tuple(out)
    return tuple(out)


def page_text(sections: Sequence[Section], *, data_only: bool = False) -> str:
    """The pages' (or only the data description's) plain text, titles included, up to
    READ_WINDOW_CHARS characters."""
    out: list[str] = []
    used = 0
    for s in sections:
        if (s.is_data or not data_only) and used < READ_WINDOW_CHARS:
            out.append(plain((s.title + "\n" + s.text)[:READ_WINDOW_CHARS - used]))
            used += len(out[-1])
    return "\n".join(out)

