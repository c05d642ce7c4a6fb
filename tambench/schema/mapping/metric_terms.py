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

_FOLD = str.maketrans({
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00b2": "2", "\u2082": "2", "\u2019": "'", "\u2018": "'", "$": " ", "{": " ", "}": " ",
    "\\": " ", "\u00a0": " ", "\u00b7": " ", "*": " ",
})

#: What a space in a term matches: any run of separators, or none ("logloss", "log-loss").
SEP = r"[\s\-_/]*"


def fold(text: str) -> str:
    """``text`` with look-alike characters replaced one for one (positions are kept).

    >>> fold("Root–Mean–Square $R^{2}$ (R²)")
    'Root-Mean-Square  R^ 2   (R2)'
    """
    return text.translate(_FOLD)


def term(pattern: str) -> re.Pattern[str]:
    """Compile a term: spaces become :data:`SEP`, matching is case-insensitive.

    >>> bool(term("log loss").search("scored by Log-Loss")), bool(term("log loss").search("logloss"))
    (True, True)
    """
    return re.compile(pattern.replace(" ", SEP), re.IGNORECASE)


#: Ordered, most specific first. A sentence names the family whose match starts first (after
#: the words that define the score, when there are some); among matches starting at the same
#: place, the earlier family wins (so "weighted multi-label log loss" is not read as "log
#: loss", and "word error rate" is not read as "error rate").
FAMILY_TERMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((f, term(p)) for f, p in (
    ("weighted_multilabel_log_loss", r"weighted multi ?label log(?:arithmic)? loss"),
    ("balanced_log_loss", r"balanced log(?:arithmic)? loss"),
    ("log_loss", r"\blog(?:arithmic)? loss|\blogloss\b|\bcross entropy\b|\blog likelihood loss"),
    ("kl_divergence", r"kullback l[ei]{1,3}bler|\bkl div(?:ergence)?\b"),
    ("mcrmse", r"\bmcrmse\b|mean column ?wise root mean squared? error"),
    ("rmspe", r"\brmspe\b|root mean squared? percent(?:age)? error"),
    ("rmsle", r"\brmsle\b|root mean squared? log(?:arithmic)? error"
              r"|(?:\brmse\b|root mean squared? error)[^.;]{0,60}?\blog(?:arithm)?s?\b"),
    ("rmse", r"\brmse\b|root mean squared? (?:error|deviation)|\brmsd\b"),
    ("msle", r"\bmsle\b|mean squared log(?:arithmic)? error"),
    ("smape", r"\bsmape\b|symmetric mean absolute percent(?:age)? error"),
    ("mape", r"\bmape\b|mean absolute percent(?:age)? error"),
    ("mse", r"\bmse\b|mean squared error"),
    ("median_ae", r"median absolute error"),
    ("log_mae", r"\blog(?:arithm)?(?: of the)? (?:mean absolute error|mae)\b|\blog ?mae\b"),
    ("mae", r"\bw?mae\b|mean absolute (?:error|deviation)"),
    ("dice_hausdorff", r"\bdice\b[^.;]{0,80}\bhausdorff|\bhausdorff\b[^.;]{0,80}\bdice\b"),
    ("global_dice", r"\bglobal dice\b"),
    ("dice", r"\bdice\b|\bs(?:ø|o)rensen\b"),
    ("top_k_error", r"\btop ?(\d+) (?:classification )?error"),
    ("error_rate", r"(?:classification |misclassification )?error rate|misclassification rate"
                   r"|\bclassification error\b|(?:fraction|percentage|proportion|share) of "
                   r"(?:\w+\s+){0,4}?(?:incorrect(?:ly)?|misclassified|wrong(?:ly)?)\b"),
    ("map_at_k", r"\bm(?:ap|pa) ?@ ?(\d+|k)\b|mean average precision ?(?:@|at) ?(\d+|k)\b"),
    ("detection_map", r"(?:mean )?average precision\b[^.]{0,120}?(?:\biou\b|intersection over union)"
                      r"|\bmap\b[^.]{0,60}?\biou\b"),
    ("map", r"mean average precision|(?-i:\b[mM]?AP\b)"),
    ("mrr", r"mean reciprocal rank|\bmrr\b"),
    ("ndcg", r"\bn?dcg\b|discounted cumulative gain"),
    ("gini", r"\bgini\b"),
    ("pr_auc", r"precision ?recall (?:curve|auc)|\bpr auc\b|\bauprc\b|area under (?:the )?precision"),
    ("auc", r"area under (?:the )?(?:roc|receiver)[^.;]{0,40}?curve|area under (?:the )?curve"
            r"|\broc auc\b|\bauc roc\b|\bauc\b|\bauroc\b|\broc\b"),
    ("mcc", r"matthews"),
    ("qwk", r"quadratic(?:ally)? weighted (?:cohen'?s )?kappa|\bqwk\b|quadratic kappa"),
    ("kappa", r"\bkappa\b"),
    ("spearman", r"spearman"),
    ("pearson", r"pearson"),
    ("kendall", r"kendall"),
    ("probabilistic_f1", r"probabilistic f ?(?:1|score)|\bpf1\b"),
    ("fbeta", r"\bf ?(?:2|0?\.5|beta|β)\b(?: score| measure)?"),
    ("f1", r"\bf ?1\b|\bf score\b|\bf measure\b|\bmeanfscore\b"),
    ("levenshtein", r"levensh?te?in|levenhstein|edit distance"),
    ("jaccard", r"jaccard"),
    ("iou", r"\b(?:mean )?iou\b|intersection over union"),
    ("lwlrap", r"\blwlrap\b|label weighted label ranking average precision"),
    ("lrap", r"\blrap\b|label ranking average precision"),
    ("angular_error", r"angular (?:error|distance)"),
    ("haversine", r"haversine|great circle distance"),
    ("distance_error", r"distance errors?\b|\bmean (?:euclidean )?distance\b"),
    ("laplace", r"laplace log likelihood"),
    ("pose_maa", r"mean average accuracy|\bmaa\b"),
    ("balanced_accuracy", r"balanced accuracy|macro (?:averaged )?recall|mean recall"),
    ("exact_match", r"exact match(?:es)? (?:accuracy|score|ratio)"),
    ("top_k_accuracy", r"\btop ?(\d+) (?:classification )?accuracy"),
    ("accuracy", r"accuracy|(?:fraction|percentage|proportion|share) of (?:\w+\s+){0,4}?"
                 r"(?:predicted )?correct(?:ly)?\b"),
    ("r2", r"\br ?\^? ?2\b|r squared|coefficient of determination"),
    # Families no registered id computes: named so that they are never read as a neighbour.
    ("wer", r"word error rate|\bwer\b"),
    ("cer", r"character error rate|\bcer\b"),
    ("bleu", r"\bbleu\b"),
    ("rouge", r"\brouge\b"),
    ("ssim", r"\bssim\b|structural similarity"),
    ("psnr", r"\bpsnr\b|peak signal ?to ?noise"),
    ("crps", r"continuous ranked probability|\bcrps\b"),
    ("pinball", r"pinball|quantile loss"),
    ("sharpe", r"sharpe ratio"),
    ("precision_at_k", r"\bprecision ?(?:@|at) ?\d+"),
    ("recall_at_k", r"\brecall ?(?:@|at) ?\d+"),
))

#: Sentences that define how submissions are scored ("Submissions are evaluated on ...",
#: "The evaluation metric for this competition is ...", "Evaluation metric: ...").
DEFINING_CUE_RE = re.compile(
    r"\b(?:submissions?|entries|predictions?|models?|solutions?|results?|this competition|the "
    r"competition|the challenge|performance|leaderboard)\b[^.]{0,60}?\b(?:is|are|will be|be|"
    r"gets?|get) (?:evaluated|scored|judged|ranked|measured|assessed|graded|compared)\b"
    r"|\bevaluation (?:metric|criteri(?:on|a)|measure)s?\b[^.]{0,40}?(?:\bis\b|\bare\b|:|\bwill\b"
    r"|\buses?\b)|\b(?:the|our|competition) metric (?:is|used|for)\b|\bscor(?:ed|ing) "
    r"(?:on|using|by|with|based on|according to)\b|\bevaluated (?:on|using|by|with|based on|"
    r"according to|in terms of)\b|\bmetric(?: used)? (?:is|will be)\b|\bis used as the "
    r"(?:evaluation )?metric|\bscore is (?:the|calculated|computed|defined)\b"
    r"|\bis used to (?:measure|evaluate|score|rank|assess)\b|\bused as the (?:evaluation |scoring )?"
    r"(?:metric|measure)\b"
    r"|^\W*(?:evaluation )?metric\s*:", re.IGNORECASE)

#: The words right after a defining cue, taken as the metric's name when no family matches.
NAME_AFTER_CUE_RE = re.compile(
    r"(?:evaluated|scored|judged|ranked|measured|assessed|graded)\s+(?:on|using|by|with|based "
    r"on|according to|in terms of)\s+(?:the\s+|an?\s+)?(?P<a>[^.;,()]{3,80})"
    r"|metric[^.:]{0,30}?(?:is|:)\s+(?:the\s+|an?\s+)?(?P<b>[^.;,()]{3,80})", re.IGNORECASE)


#: Families whose words are also ordinary English ("evaluated based on accuracy using the
#: RMSE"): another family named in the same sentence wins over them.
GENERIC_FAMILIES = frozenset({"accuracy"})


def _leftmost(sentence: str, start: int, *, generic: bool) -> tuple[str, re.Match[str]] | None:
    best: tuple[str, re.Match[str]] | None = None
    for family, pattern in FAMILY_TERMS:
        if (family in GENERIC_FAMILIES) != generic:
            continue
        m = pattern.search(sentence, start)
        if m and (best is None or m.start() < best[1].start()):
            best = (family, m)
    return best


def find_family(sentence: str) -> tuple[str, re.Match[str]] | None:
    """The family a (folded, plain-text) sentence names, with its match: the first named after
    the words defining the score ("Submissions are evaluated on ..."), else the first named.

    >>> fam, m = find_family(fold("Submissions are evaluated on Root-Mean-Square Log Error."))
    >>> fam, m.group(0)
    ('rmsle', 'Root-Mean-Square Log Error')
    >>> find_family("Unlike accuracy, submissions are evaluated on the F1 score.")[0]
    'f1'
    >>> find_family("Scored by word error rate (WER).")[0]
    'wer'
    >>> find_family("Models are evaluated based on accuracy using the RMSE metric.")[0]
    'rmse'
    >>> find_family('The Root Mean Squared Error ("RMSE") is used to measure the accuracy:')[0]
    'rmse'
    """
    cue = DEFINING_CUE_RE.search(sentence)
    after = cue.end() if cue else 0
    for start, generic in ((after, False), (0, False), (after, True), (0, True)):
        found = _leftmost(sentence, start, generic=generic)
        if found is not None:
            return found
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
    return re.split(r"\s+(?:between|for|where|which|computed|calculated|as)\s+", name)[0].strip()
