"""Which constraints a solution's code can show compliance with, and which it cannot.

A task's numbered constraints mix rules about the solution ("Use only train.csv", "Do not use
external data") with rules about the competition around it: accounts, teams, submissions per
day, deadlines, prizes, licences, the platform's notebook limits, descriptions of how the
organisers score, permissions that nothing can violate, and plain statements of fact. Only the
first kind can be judged from code; asking a judge about the others lowers every agent's pass
rate for no fault of its code (a careful judge answers "no" when the code shows no evidence).

:func:`classify_constraint` reads one constraint with an ordered table of patterns: the first
category that matches decides, and a constraint no category claims is checkable. The table is
data (:data:`NOT_CHECKABLE`); each row says why such a rule cannot be judged from code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tambench.judge.constraints import Constraint


@dataclass(frozen=True)
class Category:
    """A kind of constraint that no solution code can show compliance with."""

    name: str
    pattern: re.Pattern[str]
    reason: str


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


#: Ordered: the first category whose pattern matches a constraint claims it.
NOT_CHECKABLE: tuple[Category, ...] = (
    Category("account", _r(
        r"\b(?:one|single|multiple|more than one|separate|several)\s+(?:\w+\s+)?accounts?\b"
        r"|\baccounts? per (?:participant|person|user|team)\b|\bsign(?:ing)?[- ]?up\b"),
        "a rule about participants' accounts; no code can show it"),
    Category("team", _r(
        r"\bteam (?:size|merg\w*|limits?|members?\b.{0,20}\b(?:maximum|limit|up to))"
        r"|\bmerg\w* (?:teams|with (?:an)?other teams?)|\bteams? (?:of|up to|may have|can have) "
        r"(?:up to |at most )?\d+\b|\bprivate(?:ly)? shar\w*|\bshar\w* (?:code|data|models?) "
        r"(?:privately|outside)"),
        "a rule about teams and sharing between them; no code can show it"),
    Category("submission_limit", _r(
        r"\b(?:submissions?|entries) (?:per|a|each) (?:day|week|team)\b"
        r"|\b(?:daily|weekly) (?:submissions?|limit)\b|\bsubmission limits?\b"
        r"|\bfinal submissions?\b|\bselect (?:up to )?\w+ (?:final )?submissions?\b"
        r"|\bmaximum (?:of )?\d+ (?:entries|submissions)\b"),
        "a limit on submissions to the platform; no code can show it"),
    Category("schedule", _r(
        r"\bdeadlines?\b|\btimeline\b|\b(?:start|end|closing) date\b|\b\d{4}-\d{2}-\d{2}\b"
        r"|\b\d{1,2}:\d{2}\s*utc\b"),
        "a date or deadline of the competition; no code can show it"),
    Category("prize", _r(
        r"^\W*(?:for|to (?:be eligible|win|qualify) for) (?:the |a |any )?[\w\s&-]{0,40}?"
        r"(?:prizes?|awards?)\b|\beligib\w*|\bprize winners?\b|\bwinners? (?:must|will|shall|are "
        r"required)\b|\b(?:\d+|eighteen) years (?:of age|old|or older)\b"),
        "a condition of a prize or of eligibility; no code can show it"),
    Category("licence", _r(
        r"\blicen[cs]\w*|\bterms (?:of (?:use|service)|and conditions)\b|\bcopyright\b"
        r"|\bcc[- ]by\b|\bintellectual property\b|\bequally accessible\b|\bat no cost\b"),
        "a licensing or data-access condition; no code can show it"),
    Category("platform", _r(
        r"\bsubmissions? (?:must|should|will|are to|have to) be (?:made|submitted) (?:through|via"
        r"|in|using|from) (?:\w+ )?(?:notebooks?|kernels?)\b|\b(?:notebooks?|kernels?)\b.{0,40}"
        r"\brun[- ]?time\b|\brun[- ]?time\s*(?:of\s*)?(?:≤|<=|<|at most|maximum|max|no more than|up "
        r"to|limit)|\bmaximum run[- ]?time\b|\binternet(?: access)? (?:is |must be |will be )?"
        r"(?:disabled|enabled|not available|off)\b|\bgpu (?:quota|hours)\b"),
        "a setting of the platform that runs submissions; the final code cannot show it"),
    Category("evaluation", _r(
        r"^\W*(?:the )?(?:official )?(?:evaluation|scoring|leaderboard)(?: metric)?\b.{0,30}"
        r"\b(?:is|are|uses?|focuses|will|based|computed|calculated)\b"
        r"|^\W*submissions (?:are|will be) (?:evaluated|scored|ranked)\b"
        r"|\bto be (?:counted|scored) as correct\b|\b(?:contribute|count) to(?:wards)? the score\b"),
        "describes how the organisers score predictions; it asks nothing of the code"),
)

_PERMISSION_RE = _r(
    r"\b(?:is|are) (?:also )?(?:allowed|permitted|acceptable)\b|\bmay (?:be )?(?:use|used|"
    r"useful|need|required|help)\b|\byou may\b|\bcan (?:be )?(?:use|used)\b|\boptional(?:ly)?\b"
    r"|\bflexibility\b|\bfree to\b|\bno (?:specific |particular )?[\w\s-]{0,40}\b(?:is|are) "
    r"(?:required|enforced|specified|mandated|prescribed)\b|\bnot (?:explicitly )?(?:required|"
    r"specified|detailed)\b")
_PROHIBITION_RE = _r(
    r"\b(?:not|never|no)\b[^.;]{0,60}\b(?:allowed|permitted|acceptable)\b"
    r"|\b(?:prohibited|forbidden|disallowed|banned)\b")
_DIRECTIVE_RE = _r(
    r"\bmust\b|\bshould\b|\bshall\b|\bneeds? to\b|\bha(?:s|ve) to\b|\b(?<!may be )required\b"
    r"|\brequires?\b|\bensure\b|\bmake sure\b|\brecommended\b|\bencouraged\b|\bsuggested\b"
    r"|\bconsider\b|\bavoid\b|\bdo not\b|\bdon't\b|\bnever\b|\bonly\b|\bcannot\b|\bcan't\b"
    r"|\bexpected to\b|\baim to\b|\bplease\b")
#: Verbs that start an instruction ("Use ...", "If ..., output ...", "Preprocessing: Handle").
_IMPERATIVE_VERBS = frozenset("""
    use handle ensure provide output follow predict combine implement integrate simulate define
    segment document include exclude apply train avoid keep submit generate write save format
    normalize normalise treat report consider do make leverage incorporate tune build create
    perform remove replace convert encode map split set limit restrict address exploit compute
    calculate return produce store load read prefer try employ adopt explore utilize utilise
    select choose fill impute drop clip round sort order rank match align merge join aggregate
    sample augment pad truncate resize crop detect classify identify estimate forecast rely run
    check validate verify evaluate fine-tune finetune preprocess pre-process engineer extract
    model represent label name cite list give maintain preserve respect rescale scale standardize
    standardise weight balance fix seed store set pin freeze reuse measure post-process
    postprocess ensemble stack blend""".split())
#: A statement's verb: a form of "be" or "have", or one that describes ("includes", "holds").
_BE_VERB_RE = re.compile(r"^\W*(?:\S+\s+){0,15}?(?:is|are|was|were|has|have|includes?|contains?"
                         r"|consists?|means|refers|holds?|assumes?|describes?)\b", re.IGNORECASE)
_ADVERBS = frozenset("clearly carefully explicitly always strictly also then first finally "
                     "properly correctly".split())
_CLAUSE_SPLIT_RE = re.compile(r"[,:;]\s*|\.\s+")


@dataclass(frozen=True)
class Applicability:
    """Whether a constraint can be judged from code, and why not when it cannot."""

    checkable: bool
    category: str = "code"
    """"code" for checkable constraints, else a :data:`NOT_CHECKABLE` category, "permission"
    or "statement"."""

    reason: str = ""


CHECKABLE = Applicability(True)


def _first_words(clause: str) -> list[str]:
    words = [w.strip("\"'`*()[]").lower() for w in clause.split()]
    while words and words[0] in _ADVERBS:
        words.pop(0)
    return words


def _is_statement(text: str) -> bool:
    """Whether a constraint without any directive word reads as a statement of fact: a
    describing verb ("is", "are", "includes") and no clause that opens with an instruction verb
    ("Fix the seed", "If ..., output"). A fragment without a verb stays checkable."""
    clauses = [_first_words(c) for c in _CLAUSE_SPLIT_RE.split(text)]
    if any(words and words[0] in _IMPERATIVE_VERBS for words in clauses):
        return False
    return bool(_BE_VERB_RE.search(text))


def classify_constraint(text: str) -> Applicability:
    """Whether a constraint is checkable in code (see the module docstring).

    >>> classify_constraint("One account per participant").category
    'account'
    >>> classify_constraint("Use only the provided train.csv.").checkable
    True
    >>> classify_constraint("Public external data and models are allowed.").category
    'permission'
    >>> classify_constraint("There are 6 problem categories.").category
    'statement'
    """
    for cat in NOT_CHECKABLE:
        if cat.pattern.search(text):
            return Applicability(False, cat.name, cat.reason)
    prohibited = bool(_PROHIBITION_RE.search(text))
    directive = prohibited or bool(_DIRECTIVE_RE.search(_PERMISSION_RE.sub(" ", text)))
    if not directive and _PERMISSION_RE.search(text):
        return Applicability(False, "permission",
                             "only permits something; no code can violate it")
    if not directive and _is_statement(text):
        return Applicability(False, "statement",
                             "states a fact about the task; it asks nothing of the code")
    return CHECKABLE


def split_checkable(constraints: list[Constraint]) -> tuple[list[Constraint],
                                                             list[tuple[Constraint, Applicability]]]:
    """(checkable constraints, [(constraint, why not)] for the others), each in order."""
    checkable: list[Constraint] = []
    other: list[tuple[Constraint, Applicability]] = []
    for c in constraints:
        a = classify_constraint(c.text)
        if a.checkable:
            checkable.append(c)
        else:
            other.append((c, a))
    return checkable, other
