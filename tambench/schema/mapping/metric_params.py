"""Reading a metric's parameters from the page: each reader returns what the text settles, or
None when it does not say (the decision then leaves the metric empty with the reason).

Covered: the columns a score is grouped by or weighted by, rules that turn a column into
weights ("w = 5 if the week is a holiday week, 1 otherwise"), TPR bands written in prose, a row
filter ("only for events with min_ANNmuon > 0.4"), the form and layout of box detections, the
number of relevant items per row of a ranking, and sklearn's ``eps="auto"``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tambench.schema.mapping.metric_context import NUMBER, MetricContext, r_

#: scikit-learn's eps="auto" for float64 probabilities (numpy's float64 machine epsilon).
EPS_AUTO = 2.220446049250313e-16
_EPS_AUTO_RE = r_(r"\beps\s*=\s*['\"]?auto\b")


def eps_auto(ctx: MetricContext) -> bool:
    """Whether the page says log loss uses ``eps="auto"``."""
    return bool(_EPS_AUTO_RE.search(ctx.window))


# --- columns -----------------------------------------------------------------------------------


def _field(ctx: MetricContext, pattern: re.Pattern[str]) -> str | None:
    """The one listed column whose name or description matches ``pattern``."""
    hits = [name for name, desc in ctx.fields if pattern.search(name + " " + desc)]
    return hits[0] if len(set(hits)) == 1 else None


#: A name written like a column: CamelCase ("IsHoliday") or snake_case ("is_holiday").
_IDENTIFIER_RE = re.compile(r"\b(?:[A-Z][a-z]+[A-Z]\w*|[a-z]+[A-Z]\w*|[A-Za-z]+_\w+)\b")


def column_named_with(ctx: MetricContext, word: str) -> str | None:
    """The one column name (listed, or written like a column in the data description or the
    evaluation text) that holds ``word``: "holiday" -> "IsHoliday"."""
    word = word.lower()
    names = {n for n, _ in ctx.fields if word in n.lower()}
    for text in (ctx.data, ctx.window):
        names |= {m.group(0) for m in _IDENTIFIER_RE.finditer(text) if word in m.group(0).lower()}
    return names.pop() if len(names) == 1 else None


def _known_columns(ctx: MetricContext) -> list[str]:
    return list(dict.fromkeys([*ctx.header, *(n for n, _ in ctx.fields)]))


_FOR_EACH_PAIR_RE = r_(r"\bfor (?:each|every) (\w{1,40}) and `?(\w{1,60})`?")


def grouping_column(ctx: MetricContext, unit: str) -> str | None:
    """The column holding the unit the score is computed per ("phone", "type", "component"),
    or None when the text does not settle it.

    1. a column of the submission or the data description named like the unit;
    2. the submission's id column the text pairs with the unit ("For each phone and
       UnixTimeMillis" against the id columns tripId, UnixTimeMillis);
    3. a column named after the unit when the submission is keyed by one id column (the unit
       is then a column the answers carry).
    A submission keyed by several columns, none of them the unit, or no known submission
    header, leaves it unsettled.
    """
    unit = unit.lower()
    for col in _known_columns(ctx):
        if col.lower() in (unit, unit + "_id", unit + "id", unit.replace(" ", "_")):
            return col
    for m in _FOR_EACH_PAIR_RE.finditer(ctx.window):
        first, second = m.group(1).lower(), m.group(2)
        ids = list(ctx.ids)
        if first == unit and second in ids and ids.index(second) == 1:
            return ids[0]
    if len(ctx.ids) == 1:
        return unit.replace(" ", "_")
    return None


_STEPS_FIELD_RE = r_(r"\bnumber of (?:steps|generations|iterations)\b")


def steps_column(ctx: MetricContext) -> str | None:
    """The listed column giving each row's number of steps ("delta: the number of steps")."""
    return _field(ctx, _STEPS_FIELD_RE)


_WEIGHT_COLUMN_RE = r_(r"\bweighted (?:as (?:indicated|given) (?:by|in)|by|according to) "
                       r"(?:the|its|their|a) `?(\w{1,40})`? (?:column|field|variable)\b")
_WEIGHT_RULE_RE = r_(rf"\bw(?:_i)?\s*=\s*({NUMBER}) if (?:the|a|an) (\w{{1,30}}) is an? (\w{{1,30}})"
                     rf" \w{{1,30}},? (?:and )?({NUMBER}) otherwise")
_PER_N_RE = r_(r"\bfrac\s*1\s*n\b|\bdivided by (?:the number of (?:rows|predictions|observations)"
               r"|n)\b")
_PER_WEIGHTS_RE = r_(r"\bfrac\s*1\s*(?:\\?sum|sum)\s*w|\bdivided by the sum of (?:the )?weights")


def weights_of(ctx: MetricContext) -> dict[str, object] | None:
    """weighted_mae's parameters: the weights column (named, or a boolean column the weight
    rule speaks of) with its value map, and what the sum is divided by; None when unsettled."""
    params: dict[str, object] = {}
    named = _WEIGHT_COLUMN_RE.search(ctx.window)
    rule = _WEIGHT_RULE_RE.search(ctx.window)
    if named:
        params["weights_column"] = named.group(1)
    elif rule:
        column = column_named_with(ctx, rule.group(3))
        if column is None:
            return None
        params["weights_column"] = column
        params["weight_map"] = {"True": float(rule.group(1)), "False": float(rule.group(4))}
    else:
        return None
    if _PER_N_RE.search(ctx.window):
        params["divide_by"] = "n"
    elif _PER_WEIGHTS_RE.search(ctx.window) or "weighted mean" in ctx.window.lower() or named:
        params["divide_by"] = "weights"
    else:
        return None
    return params


# --- TPR bands and row filters -------------------------------------------------------------------

_BAND_RE = r_(rf"\btpr (?:in )?\[\s*({NUMBER})\.?\s*,\s*({NUMBER})\s*\] (?:by|with) (?:a )?"
              rf"(?:weight )?(?:of )?({NUMBER})")
_ABOVE_RE = r_(rf"\babove an? tpr of ({NUMBER}) (?:has|have|gets?) (?:a )?weight (?:of )?({NUMBER})")


def tpr_bands(text: str) -> tuple[list[float], list[float]] | None:
    """(tpr_thresholds, weights) written in prose ("the area with TPR in [0., 0.2] by weight
    2.0, ..., anything above a TPR of 0.8 has weight 0"); None when they are not all there.

    >>> tpr_bands("TPR in [0., 0.4] by weight 2. Anything above a TPR of 0.4 has weight 1.")
    ([0.0, 0.4, 1.0], [2.0, 1.0])
    """
    bands = [(float(a), float(b), float(w)) for a, b, w in _BAND_RE.findall(text)]
    above = _ABOVE_RE.search(text)
    if above:
        bands.append((float(above.group(1)), 1.0, float(above.group(2))))
    bands.sort()
    if not bands or bands[0][0] != 0.0 or bands[-1][1] != 1.0:
        return None
    if any(a[1] != b[0] for a, b in zip(bands, bands[1:], strict=False)):
        return None
    return [b[0] for b in bands] + [1.0], [b[2] for b in bands]


_ROW_FILTER_COLUMN_RE = r_(rf"\b(?:calculated|computed|evaluated|scored) only (?:for|on) [^.]{{0,200}}?"
                           rf"\bwith `?(\w{{1,60}})`? ?(?:>|above|greater than) ?({NUMBER})")


def row_filter(ctx: MetricContext) -> tuple[str, float] | None:
    """(column, threshold) of "computed only for rows with <column> > <threshold>"."""
    m = _ROW_FILTER_COLUMN_RE.search(ctx.window)
    return (m.group(1), float(m.group(2))) if m else None


_CHECKS_RE = r_(r"\bmust (?:also )?pass [^.]{0,80}?(?:checks|tests)\b[^.]{0,120}")


def extra_checks(ctx: MetricContext) -> str:
    """The checks a page requires beyond the score ("must pass two addition checks: ...")."""
    m = _CHECKS_RE.search(ctx.window)
    return m.group(0).strip() if m else ""


# --- detections -------------------------------------------------------------------------------

_IMAGE_PRECISION_RE = r_(r"\btp(?:\(t\))? ?\+ ?fp(?:\(t\))? ?\+ ?fn\b"
                         r"|\btp(?:\(t\))? ?\+ ?fn(?:\(t\))? ?\+ ?fp\b")
_CLASS_AP_RE = r_(r"\bpascal voc\b|\bcoco\b|\bper class\b|\bfor each class\b"
                  r"|\bprecision[- ]recall curve\b|\bp/r curve\b")


def detection_form(ctx: MetricContext) -> str | None:
    """"image_precision" (per image TP / (TP + FP + FN) over thresholds), "class_ap" (a
    PASCAL VOC / COCO average precision per class), or None when the page says neither or
    both."""
    image = bool(_IMAGE_PRECISION_RE.search(ctx.window))
    klass = bool(_CLASS_AP_RE.search(ctx.window))
    if image == klass:
        return None
    return "image_precision" if image else "class_ap"


_XYWH_RE = r_(r"\bwidth and (?:a )?height\b|\bx y w(?:idth)? h(?:eight)?\b|\bxywh\b"
              r"|\b(?:x|x_?min) ?,? (?:y|y_?min) ?,? (?:w|width) ?,? (?:h|height)\b")
_XYXY_RE = r_(r"\bx_?min ?,? y_?min ?,? x_?max ?,? y_?max\b")


def box_layout(ctx: MetricContext) -> str | None:
    """"label_conf_xyxy" (label, confidence, corners: "xmin ymin xmax ymax") or "conf_xywh"
    (confidence, x, y, width, height, no label), from the page's words (anywhere on it) and
    example cells of six or five numbers an object; None when unsettled."""
    cells = [v.split() for v in ctx.values if v.strip()]
    five = bool(cells) and all(len(c) % 5 == 0 and _all_numbers(c) for c in cells)
    six = bool(cells) and all(len(c) % 6 == 0 for c in cells)
    text = ctx.window + "\n" + ctx.page
    if _XYXY_RE.search(text) and (six or not cells) and not five:
        return "label_conf_xyxy"
    if _XYWH_RE.search(text) and (five or not cells) and not six:
        return "conf_xywh"
    return None


def _all_numbers(tokens: Sequence[str]) -> bool:
    return all(re.fullmatch(rf"-?{NUMBER}", t) for t in tokens)


# --- rankings ---------------------------------------------------------------------------------

_ONE_RELEVANT_RE = r_(
    r"\b(?:the|a) correct (?:label|answer|item|class|id|prediction) (?:is|occurs|for)\b"
    r"|\b(?:exactly |only )?one (?:correct|true|ground[- ]truth|relevant) (?:label|answer|item"
    r"|class|id|value)\b|\bthe earlier (?:a|the) correct \w{1,20} (?:occurs|appears|is)\b"
    r"|\bmarked with relevance ?=? ?1,? (?:while|and) the rest (?:have|with) relevance ?=? ?0")
_SEVERAL_RELEVANT_RE = r_(
    r"\bmin\s*\(\s*m\s*,|\bnumber of (?:ground[- ]truth|true|relevant|correct) (?:values|labels"
    r"|items|answers)\b|\bmultiple (?:correct|relevant|true) (?:labels|items|answers)\b")
_MAP_FORMULA_RE = r_(r"\bmap\s*@\s*\d+\s*=\s*\\?frac")


def relevant_items(ctx: MetricContext) -> str | None:
    """"single" when the page states one relevant item per row (or writes MAP@k's formula
    without the per-row 1 / min(m, k)), "multiple" when it states several; None otherwise."""
    several = bool(_SEVERAL_RELEVANT_RE.search(ctx.window))
    one = bool(_ONE_RELEVANT_RE.search(ctx.window))
    if several and not one:
        return "multiple"
    if one and not several:
        return "single"
    if not several and _MAP_FORMULA_RE.search(ctx.window):
        return "single"
    return None
