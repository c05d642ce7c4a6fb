"""The words pages use for metrics: one vocabulary of families, spellings folded, not per page.

A page names its metric in one of many spellings: "RMSLE", "root mean squared logarithmic
error", "Root-Mean-Square Log Error", "RMSE between the logarithms"; "log loss", "logloss",
"Log-Loss", "cross-entropy"; "AUC", "AUC-ROC", "area under the ROC curve". Two things make
them comparable:

* :func:`fold` maps look-alike characters to one form (dashes, superscript two, TeX braces)
  and keeps every character's position, so a match still points at the page's own words;
* :data:`FAMILY_TERMS` spells each family with separators that accept a space, a hyphen, an
  underscore, a slash or nothing ("log loss" also matches "log-loss" and "logloss"), and
  lists each family's synonyms once.

A family is what the page measures ("rmse", "f1", "auc"); which registered id computes it
exactly depends on modifiers (column-wise, weighted, multi-label, ...) and is decided in
:mod:`tambench.schema.mapping.metric_rules`. Families without any registered id ("rmspe",
"gini", "wer", ...) are listed too: a page that names one is read as "a metric tambench does
not have", never as its nearest neighbour.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from tambench.schema.mapping.wordre import WordPattern, lower

_FOLD = str.maketrans({
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00b2": "2", "\u2082": "2", "\u2019": "'", "\u2018": "'", "$": " ", "{": " ", "}": " ",
    "\\": " ", "\u00a0": " ", "\u00b7": " ", "*": " ",
})

#: What a space in a term matches: a short run of separators, or none ("logloss", "log-loss",
#: "log - loss"). Bounded, so that a term never backtracks over a long run of separators or
#: underscores (which are word characters too).
SEP = r"[\s\-_/]{0,3}"


def fold(text: str) -> str:
    """``text`` with look-alike characters replaced one for one (positions are kept).

    >>> fold("Root–Mean–Square $R^{2}$ (R²)")
    'Root-Mean-Square  R^ 2   (R2)'
    """
    return text.translate(_FOLD)


def term(pattern: str, *, cased: bool = False) -> WordPattern:
    r"""Compile a term: spaces become :data:`SEP`; matching is case-insensitive unless
    ``cased``. Every alternative begins with ``\b`` (a term is a run of whole words).

    >>> t = term(r"\blog loss")
    >>> bool(t.search("scored by Log-Loss")), bool(t.search("logloss"))
    (True, True)
    """
    return WordPattern(pattern.replace(" ", SEP), cased=cased)


def each_of(starts: list[str], rest: str) -> str:
    """Alternatives ``\b<start><rest>``, one per start (literal starts scan fast)."""
    return "|".join(rf"\b{w}{rest}" for w in starts)


_SHARE = ["fraction", "percentage", "proportion", "share"]

#: Ordered, most specific first. A sentence names the family whose match starts first (after
#: the words that define the score, when there are some); among matches starting at the same
#: place, the earlier family wins (so "weighted multi-label log loss" is not read as "log
#: loss", and "word error rate" is not read as "error rate"). A third member is a
#: case-sensitive term ("mAP", "AP").
_TERMS: tuple[tuple[str, ...], ...] = (
    ("weighted_multilabel_log_loss", r"\bweighted multi ?label log(?:arithmic)? loss"),
    ("balanced_log_loss", r"\bbalanced log(?:arithmic)? loss"),
    ("log_loss", r"\blog(?:arithmic)? loss|\blogloss\b|\bcross entropy\b|\blog likelihood loss"),
    ("kl_divergence", r"\bkullback l[ei]{1,3}bler|\bkl div(?:ergence)?\b"),
    ("mcrmse", r"\bmcrmse\b|\bmean column ?wise root mean squared? error"),
    ("rmspe", r"\brmspe\b|\broot mean squared? percent(?:age)? error"),
    ("rmsle", r"\brmsle\b|\broot mean squared? log(?:arithmic)? error"
              r"|\brmse\b[^.;]{0,60}?\blog(?:arithm)?s?\b"
              r"|\broot mean squared? error[^.;]{0,60}?\blog(?:arithm)?s?\b"),
    ("rmse", r"\brmse\b|\broot mean squared? (?:error|deviation)|\brmsd\b"),
    ("msle", r"\bmsle\b|\bmean squared log(?:arithmic)? error"),
    ("smape", r"\bsmape\b|\bsymmetric mean absolute percent(?:age)? error"),
    ("mape", r"\bmape\b|\bmean absolute percent(?:age)? error"),
    ("mse", r"\bmse\b|\bmean squared error"),
    ("median_ae", r"\bmedian absolute error|\bmedae\b"),
    ("log_mae", r"\blog(?:arithm)?(?: of the)? (?:mean absolute error|mae)\b|\blog ?mae\b"),
    ("mae", r"\bmae\b|\bwmae\b|\bmean absolute (?:error|deviation)"),
    ("dice_hausdorff", r"\bdice\b[^.;]{0,80}\bhausdorff|\bhausdorff\b[^.;]{0,80}\bdice\b"),
    ("global_dice", r"\bglobal dice\b"),
    ("dice", r"\bdice\b|\bsørensen\b|\bsorensen\b"),
    ("top_k_error", r"\btop ?(\d+) (?:classification )?error"),
    ("error_rate", r"\bclassification error rate|\bmisclassification error rate|\berror rate"
                   r"|\bmisclassification rate|\bclassification error\b|"
                   + each_of(_SHARE, r" of (?:\w{1,40}\s{1,3}){0,4}?(?:incorrect(?:ly)?|misclassified"
                                   r"|wrong(?:ly)?)\b")),
    ("map_at_k", r"\bmap ?@ ?(\d+|k)\b|\bmpa ?@ ?(\d+|k)\b"
                 r"|\bmean average precision ?(?:@|at) ?(\d+|k)\b"),
    ("detection_map", r"\bmean average precision\b[^.]{0,120}?(?:\biou\b|intersection over union)"
                      r"|\baverage precision\b[^.]{0,120}?(?:\biou\b|intersection over union)"
                      r"|\bmap\b[^.]{0,60}?\biou\b"),
    ("map", r"\bmean average precision", r"\bmAP\b|\bMAP\b|\bAP\b"),
    ("mrr", r"\bmean reciprocal rank|\bmrr\b"),
    ("ndcg", r"\bndcg\b|\bdcg\b|\bdiscounted cumulative gain"),
    ("gini", r"\bgini\b"),
    ("pr_auc", r"\bprecision ?recall (?:curve|auc)|\bpr auc\b|\bauprc\b"
               r"|\barea under (?:the )?precision"),
    ("auc", r"\barea under (?:the )?(?:roc|receiver)[^.;]{0,40}?curve|\barea under (?:the )?curve"
            r"|\broc auc\b|\bauc roc\b|\bauc\b|\bauroc\b|\broc\b"),
    ("mcc", r"\bmatthews"),
    ("qwk", r"\bquadratic(?:ally)? weighted (?:cohen'?s )?kappa|\bqwk\b|\bquadratic kappa"),
    ("kappa", r"\bkappa\b"),
    ("spearman", r"\bspearman"),
    ("pearson", r"\bpearson"),
    ("kendall", r"\bkendall"),
    ("probabilistic_f1", r"\bprobabilistic f ?(?:1|score)|\bpf1\b"),
    ("fbeta", r"\bf ?(?:2|0?\.5|beta|β)\b(?: score| measure)?"),
    ("f1", r"\bf ?1\b|\bf score\b|\bf measure\b|\bmeanfscore\b"),
    ("levenshtein", r"\blevensh?te?in|\blevenhstein|\bedit distance"),
    ("jaccard", r"\bjaccard"),
    ("iou", r"\bmean iou\b|\biou\b|\bintersection over union"),
    ("lwlrap", r"\blwlrap\b|\blabel weighted label ranking average precision"),
    ("lrap", r"\blrap\b|\blabel ranking average precision"),
    ("angular_error", r"\bangular (?:error|distance)"),
    ("haversine", r"\bhaversine|\bgreat circle distance"),
    ("distance_error", r"\bdistance errors?\b|\bmean (?:euclidean )?distance\b"),
    ("laplace", r"\blaplace log likelihood"),
    ("pose_maa", r"\bmean average accuracy|\bmaa\b"),
    ("balanced_accuracy", r"\bbalanced accuracy|\bmacro (?:averaged )?recall|\bmean recall"),
    ("exact_match", r"\bexact match(?:es)? (?:accuracy|score|ratio)"),
    ("top_k_accuracy", r"\btop ?(\d+) (?:classification )?accuracy"),
    ("accuracy", r"\baccuracy|" + each_of(_SHARE, r" of (?:\w{1,40}\s{1,3}){0,4}?(?:predicted )?"
                                                r"correct(?:ly)?\b")),
    ("r2", r"\br ?2\b|\br ?\^ ?2\b|\br squared|\bcoefficient of determination"),
    # Families no registered id computes: named so that they are never read as a neighbour.
    ("wer", r"\bword error rate|\bwer\b"),
    ("cer", r"\bcharacter error rate|\bcer\b"),
    ("bleu", r"\bbleu\b"),
    ("rouge", r"\brouge\b"),
    ("ssim", r"\bssim\b|\bstructural similarity"),
    ("psnr", r"\bpsnr\b|\bpeak signal ?to ?noise"),
    ("crps", r"\bcontinuous ranked probability|\bcrps\b"),
    ("pinball", r"\bpinball|\bquantile loss"),
    ("sharpe", r"\bsharpe ratio"),
    ("precision_at_k", r"\bprecision ?(?:@|at) ?\d+"),
    ("recall_at_k", r"\brecall ?(?:@|at) ?\d+"),
)


@dataclass(frozen=True)
class FamilyTerm:
    """The words naming one family: a case-insensitive term and, for a few families, a
    case-sensitive one ("mAP")."""

    family: str
    words: WordPattern
    cased: WordPattern | None = None

    def search(self, text: str, low: str, pos: int = 0) -> re.Match[str] | None:
        """The first match at or after ``pos`` (``low`` is ``lower(text)``); a
        case-insensitive match wins over a cased one starting at the same place."""
        m = self.words.search(text, pos, low=low)
        if self.cased is not None:
            c = self.cased.search(text, pos)
            if c is not None and (m is None or c.start() < m.start()):
                return c
        return m


FAMILY_TERMS: tuple[FamilyTerm, ...] = tuple(
    FamilyTerm(t[0], term(t[1]), term(t[2], cased=True) if len(t) > 2 else None)
    for t in _TERMS)


_CUE_SUBJECTS = ["submissions?", "entries", "predictions?", "models?", "solutions?", "results?",
                 "this competition", "the competition", "the challenge", "performance",
                 "leaderboard"]
_CUE_WORDS = "|".join([
    each_of(_CUE_SUBJECTS, r"\b[^.]{0,60}?\b(?:is|are|will be|be|gets?|get) (?:evaluated|scored"
                            r"|judged|ranked|measured|assessed|graded|compared)\b"),
    r"\bevaluation (?:metric|criteri(?:on|a)|measure)s?\b[^.]{0,40}?(?:\bis\b|\bare\b|:|\bwill\b"
    r"|\buses?\b)",
    each_of(["the", "our", "competition"], r" metric (?:is|used|for)\b"),
    r"\bscor(?:ed|ing) (?:on|using|by|with|based on|according to)\b",
    r"\bevaluated (?:on|using|by|with|based on|according to|in terms of)\b",
    r"\bmetric(?: used)? (?:is|will be)\b",
    r"\bis used as the (?:evaluation )?metric",
    r"\bscore is (?:the|calculated|computed|defined)\b",
    r"\bis used to (?:measure|evaluate|score|rank|assess)\b",
    r"\bused as the (?:evaluation |scoring )?(?:metric|measure)\b"])
_CUE_START = r"^\W*(?:evaluation )?metric\s*:"
_CUE_SCAN = WordPattern(_CUE_WORDS)
_CUE_START_RE = re.compile(_CUE_START, re.IGNORECASE)

#: Sentences that define how submissions are scored ("Submissions are evaluated on ...",
#: "The evaluation metric for this competition is ...", "Evaluation metric: ..."). For long
#: texts use :func:`defining_cue`, which finds the same match faster.
DEFINING_CUE_RE = re.compile(_CUE_WORDS + "|" + _CUE_START, re.IGNORECASE)


def defining_cue(sentence: str, low: str | None = None, *,
                 words_pattern: WordPattern = _CUE_SCAN) -> re.Match[str] | None:
    """``DEFINING_CUE_RE.search(sentence)``'s match position, found with a fast scan (the match
    is on the lowered sentence when it comes from the word alternatives); ``words_pattern``
    replaces the cue words (a stricter set), the "metric:" start stays."""
    words = words_pattern.search(sentence, low=low)
    if words is not None and words.start() == 0:
        return words
    return _CUE_START_RE.match(sentence) or words


#: The words right after a defining cue, taken as the metric's name when no family matches.
NAME_AFTER_CUE_RE = re.compile(
    r"(?:evaluated|scored|judged|ranked|measured|assessed|graded)\s+(?:on|using|by|with|based "
    r"on|according to|in terms of)\s+(?:the\s+|an?\s+)?(?P<a>[^.;,()]{3,80})"
    r"|metric[^.:]{0,30}?(?:is|:)\s+(?:the\s+|an?\s+)?(?P<b>[^.;,()]{3,80})", re.IGNORECASE)


#: Families whose words are also ordinary English ("evaluated based on accuracy using the
#: RMSE"): another family named in the same sentence wins over them.
GENERIC_FAMILIES = frozenset({"accuracy"})


def _first_matches(sentence: str, after: int, families: frozenset[str] | None
                   ) -> list[tuple[str, re.Match[str] | None, re.Match[str] | None]]:
    """Per family: its first match in the sentence, and its first match at or after ``after``."""
    low = lower(sentence)
    out = []
    for t in FAMILY_TERMS:
        if families is not None and t.family not in families:
            continue
        first = t.search(sentence, low)
        later = first if first is None or first.start() >= after else t.search(sentence, low,
                                                                               after)
        out.append((t.family, first, later))
    return out


def find_family(sentence: str, families: frozenset[str] | None = None
                ) -> tuple[str, re.Match[str]] | None:
    """The family a (folded, plain-text) sentence names, with its match: the first named after
    the words defining the score ("Submissions are evaluated on ..."), else the first named.
    Words that are also ordinary English (:data:`GENERIC_FAMILIES`) count only when no other
    family is named. The match's text is the sentence lowered (positions are the sentence's).
    ``families``: only these can match (from :func:`scan_sentences`); None reads them all.

    >>> fam, m = find_family(fold("Submissions are evaluated on Root-Mean-Square Log Error."))
    >>> fam, m.span()
    ('rmsle', (29, 55))
    >>> find_family("Unlike accuracy, submissions are evaluated on the F1 score.")[0]
    'f1'
    >>> find_family("Scored by word error rate (WER).")[0]
    'wer'
    >>> find_family("Models are evaluated based on accuracy using the RMSE metric.")[0]
    'rmse'
    >>> find_family('The Root Mean Squared Error ("RMSE") is used to measure the accuracy:')[0]
    'rmse'
    """
    cue = defining_cue(sentence)
    after = cue.end() if cue else 0
    if families is not None and not families:
        return None
    firsts = _first_matches(sentence, after, families)
    for use_later, generic in ((True, False), (False, False), (True, True), (False, True)):
        best: tuple[str, re.Match[str]] | None = None
        for family, first, later in firsts:
            m = later if use_later else first
            if (family in GENERIC_FAMILIES) == generic and m is not None and (
                    best is None or m.start() < best[1].start()):
                best = (family, m)
        if best is not None:
            return best
    return None


def named_after_cue(sentence: str) -> str:
    """The words a defining sentence gives as the metric's name ("" when it gives none).

    >>> named_after_cue("Submissions are evaluated on the Sharpe ratio of daily returns.")
    'Sharpe ratio of daily returns'
    """
    m = NAME_AFTER_CUE_RE.search(sentence)
    if not m:
        return ""
    name = (m.group("a") or m.group("b") or "").strip()
    return re.split(r"\s{1,5}(?:between|for|where|which|computed|calculated|as)\s{1,5}",
                    name)[0].strip()


#: Joins sentences for one scan: no term or cue can match across it (a period stops every
#: bounded gap, NULs are neither space nor word).
_JOIN = "\x00.\x00"


@dataclass(frozen=True)
class ScannedSentences:
    """What one pass over many sentences found: per sentence, the families whose words may
    occur in it (a superset: :func:`find_family` decides) and whether it defines the score."""

    families: list[frozenset[str]]
    defining: list[bool]


def scan_sentences(sentences: list[str]) -> ScannedSentences:
    """Scan many (folded, plain) sentences at once: each pattern runs once over their joined
    text, so the cost is one fast scan per pattern plus a little per hit, however short the
    sentences are."""
    joined = _JOIN.join(sentences)
    low = lower(joined)
    starts: list[int] = []
    pos = 0
    for sent in sentences:
        starts.append(pos)
        pos += len(sent) + len(_JOIN)
    families: list[set[str]] = [set() for _ in sentences]
    for t in FAMILY_TERMS:
        parts = [(t.words.scan, low)] + ([(t.cased.scan, joined)] if t.cased else [])
        for scan, text in parts:
            for m in scan.finditer(text):
                families[bisect_right(starts, m.start()) - 1].add(t.family)
    defining = [False] * len(sentences)
    for m in _CUE_SCAN.finditer(joined, low=low):
        defining[bisect_right(starts, m.start()) - 1] = True
    for i, sent in enumerate(sentences):
        if not defining[i] and _CUE_START_RE.match(sent):
            defining[i] = True
    return ScannedSentences([frozenset(f) for f in families], defining)
