"""Labels written in another spelling of the same class: named, or graded as that class where
the task declares the spellings equivalent.

A class label is an exact string: ``1`` is not ``True``, ``3.0`` is not ``3`` and ``Cat`` is not
``cat``. Compared as strings, a respelt label is simply a wrong prediction, and a correct
submission would score 0 without a word. So:

* With a declared label set (``GradingSpec.labels`` / ``labels_from``), an unknown label is
  refused, and when it respells one declared label (:data:`RESPELLINGS`: booleans, numbers,
  case, surrounding spaces, Unicode form) the message names the declared spelling. Only the
  task's declared labels are consulted, never the private answers.
* Where the task declares spellings equivalent (``GradingSpec.label_equivalence``, any of
  :data:`EQUIVALENCES`), a submitted label outside the set that matches exactly one declared
  label under those rules is graded as that label.
* Ad hoc grading (the user holds the answers): :func:`answers_overlap_warning` says when few or
  none of the predicted labels occur among the answers' values, and which respelling would
  match them.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from tambench.validation.reading.text import MAX_EXAMPLES, echo, format_examples

#: Declarable equivalences (``GradingSpec.label_equivalence``), in the order they apply.
EQUIVALENCES = ("case", "boolean", "number")
#: Below this share of predicted rows found among the answers' values, ad hoc grading warns.
FEW_SHARE = 0.5

_TRUE, _FALSE = ("true",), ("false",)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _boolean(text: str) -> bool | None:
    low = text.strip().casefold()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    value = _number(low)
    return None if value not in (0.0, 1.0) else value == 1.0


def equivalence_key(label: str, rules: Iterable[str]) -> tuple[str, object]:
    """The class a label stands for under the declared rules (equal keys: the same class).

    >>> equivalence_key("3.0", ["number"]) == equivalence_key("3", ["number"])
    True
    >>> equivalence_key("1", ["boolean"]) == equivalence_key("True", ["boolean"])
    True
    >>> equivalence_key("Cat", ["case"]) == equivalence_key("cat", ["case"])
    True
    >>> equivalence_key("Cat", []) == equivalence_key("cat", [])
    False
    """
    chosen = set(rules)
    text = label.casefold() if "case" in chosen else label
    if "boolean" in chosen:
        flag = _boolean(text)
        if flag is not None:
            return ("boolean", flag)
    if "number" in chosen:
        value = _number(text.strip())
        if value is not None:
            return ("number", value)
    return ("text", text)


#: Respellings a message can name: (what differs, the key two spellings share, how ad hoc
#: grading declares them equivalent).
RESPELLINGS: tuple[tuple[str, Callable[[str], tuple[str, object]], str], ...] = (
    ("surrounding spaces", lambda s: ("s", s.strip()), "--value-policy strip_spaces=true"),
    ("case", lambda s: ("c", s.strip().casefold()), "--label-equivalence case"),
    ("a boolean written another way", lambda s: ("b", _boolean(s)),
     "--label-equivalence boolean"),
    ("a number written another way", lambda s: ("n", _number(s.strip())),
     "--label-equivalence number"),
    ("Unicode form", lambda s: ("u", unicodedata.normalize("NFKC", s).strip().casefold()), ""),
)


def respelled(label: str, targets: Sequence[str]) -> tuple[str, str, str] | None:
    """(the target ``label`` respells, what differs, the ad hoc remedy), when exactly one
    target matches it under one of :data:`RESPELLINGS`; None otherwise."""
    if label in targets:
        return None
    for what, key, remedy in RESPELLINGS:
        k = key(label)
        if k[1] is None:
            continue
        hits = [t for t in targets if t != label and key(t) == k]
        if len(hits) == 1:
            return hits[0], what, remedy
    return None


def _pairs(unknown: Sequence[str], labels: Sequence[str]) -> tuple[list[str], list[str]]:
    """``'1' respells 'True' (a boolean written another way)`` for up to five unknown labels,
    and the remedies that would declare them equivalent."""
    pairs, remedies = [], []
    for u in unknown:
        hit = respelled(u, labels)
        if hit is not None:
            pairs.append(f"{echo(u)} respells {echo(hit[0])} ({hit[1]})")
            if hit[2] and hit[2] not in remedies:
                remedies.append(hit[2])
        if len(pairs) >= MAX_EXAMPLES:
            break
    return pairs, remedies


def respelling_hint(unknown: Sequence[str], labels: Sequence[str]) -> str:
    """``; labels are exact strings, write them as declared: '1' respells 'True' (...)``: up
    to five unknown labels paired with the declared label each respells; empty when none
    does. Reads the declared labels only."""
    pairs, _ = _pairs(unknown, labels)
    if not pairs:
        return ""
    return "; labels are exact strings, write them as declared: " + ", ".join(pairs)


def equivalent_labels(unknown: Iterable[str], labels: Sequence[str],
                      rules: Sequence[str]) -> dict[str, str]:
    """Each unknown label that matches exactly one declared label under ``rules`` -> that
    label (a key shared by several declared labels matches none)."""
    if not rules:
        return {}
    by_key: dict[tuple[str, object], list[str]] = {}
    for label in labels:
        by_key.setdefault(equivalence_key(label, rules), []).append(label)
    out = {}
    for u in unknown:
        hits = by_key.get(equivalence_key(u, rules), [])
        if len(hits) == 1:
            out[u] = hits[0]
    return out


def answers_overlap_warning(y_pred: np.ndarray, y_true: np.ndarray) -> str | None:
    """Ad hoc grading only (it quotes the answers' values): a warning when fewer than
    :data:`FEW_SHARE` of the predicted labels occur among the answers' values, naming the
    respelling that would match them; None when most do."""
    predicted = Counter(np.asarray(y_pred, dtype=object).ravel().tolist())
    truths = sorted({str(v) for v in np.asarray(y_true, dtype=object).ravel().tolist()})
    known = set(truths)
    total = sum(predicted.values())
    found = sum(n for v, n in predicted.items() if v in known)
    if total == 0 or found >= FEW_SHARE * total:
        return None
    strangers = [str(v) for v, _ in predicted.most_common() if v not in known]
    share = "none" if found == 0 else f"{found} of {total}"
    text = (f"{share} of the predicted labels occur among the answers' values: predicted "
            f"{format_examples(strangers)}, the answers hold {format_examples(truths)}")
    pairs, remedies = _pairs(strangers, truths)
    if pairs:
        text += "; labels are exact strings: " + ", ".join(pairs)
        if remedies:
            text += (" (to grade them as the same classes, give the labels with --label and "
                     f"{' '.join(remedies)})")
    return text
