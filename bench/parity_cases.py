"""Generated cases for bench/parity_mlebench.py: the same data in tambench's and MLE-bench's form.

Each competition has a builder returning :class:`Case` objects (perfect, random, partial and
metric-specific edge cases): the arrays our metric receives from the grader (answers' rows in
order, auxiliary answers columns as keywords) and the DataFrames MLE-bench's ``grade`` reads.
:data:`PAIRS` says, per competition, which registered metric and parameters grade it and which
case kinds are known departures of MLE-bench from the competition's published rules, with the
reason (tambench follows the rules; a difference on any other kind is a disagreement).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd


@dataclass
class Case:
    """One comparison: our metric's inputs and MLE-bench's DataFrames."""

    kind: str
    y_true: Any
    y_pred: Any
    submission: Any
    answers: Any
    aux: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pair:
    """A competition, the metric that grades it and MLE-bench's documented departures."""

    competition: str
    metric: str
    build: Callable[[np.random.Generator], list[Case]]
    params: dict[str, Any] = field(default_factory=dict)
    departures: dict[str, str] = field(default_factory=dict)
    """Case kind -> why MLE-bench's number differs from the published rule's."""
    reproduce: Callable[[Case], float] | None = None
    """MLE-bench's deviation rebuilt from tambench's own pieces (its number, computed our way):
    a departure it reproduces is confirmed, not just asserted."""


def _obj(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=object)


def _mutate(rng: np.random.Generator, truth: list[str], fresh: Callable[[], str],
            share: float) -> list[str]:
    return [fresh() if rng.random() < share else t for t in truth]


# --- detection ------------------------------------------------------------------------------


def _boxes(rng: np.random.Generator, labels: list[str], k: int, conf: bool) -> str:
    out = []
    for _ in range(k):
        x, y = rng.uniform(0, 900, 2).round(1)
        w, h = rng.uniform(40, 300, 2).round(1)
        c = round(float(rng.uniform(0.05, 1.0)), 3) if conf else 1
        out.append(f"{rng.choice(labels)} {c} {x} {y} {round(x + w, 1)} {round(y + h, 1)}")
    return " ".join(out)


def _jitter_boxes(rng: np.random.Generator, cell: str, scale: float) -> str:
    tok = cell.split()
    for k in range(0, len(tok), 6):
        tok[k + 1] = f"{rng.uniform(0.05, 1.0):.3f}"
        for j in range(2, 6):
            tok[k + j] = f"{float(tok[k + j]) + rng.normal(0, scale):.1f}"
        x1, y1, x2, y2 = (float(t) for t in tok[k + 2 : k + 6])
        tok[k + 2 : k + 6] = [f"{min(x1, x2):.1f}", f"{min(y1, y2):.1f}", f"{max(x1, x2):.1f}",
                              f"{max(y1, y2):.1f}"]
    return " ".join(tok)


def siim_cases(rng: np.random.Generator) -> list[Case]:
    study = ["negative", "typical", "indeterminate", "atypical"]
    ids, truth = [], []
    for i in range(30):
        ids.append(f"s{i:03d}_study")
        truth.append(f"{rng.choice(study)} 1 0 0 1 1")
    for i in range(40):
        ids.append(f"i{i:03d}_image")
        k = int(rng.integers(0, 3))
        truth.append(_boxes(rng, ["opacity"], k, False) if k else "none 1 0 0 1 1")
    preds = {
        "perfect": truth,
        "partial": [_jitter_boxes(rng, t, 15.0) for t in truth],
        "random": [f"{rng.choice(study)} {rng.random():.3f} 0 0 1 1" if i.endswith("study")
                   else _boxes(rng, ["opacity", "none"], int(rng.integers(1, 3)), True)
                   for i in ids],
    }
    preds["random-2"] = [_jitter_boxes(rng, t, 60.0) for t in truth]
    return [Case(k, _obj(truth), _obj(p), pd.DataFrame({"id": ids, "PredictionString": p}),
                 pd.DataFrame({"id": ids, "PredictionString": truth})) for k, p in preds.items()]


def vinbig_cases(rng: np.random.Generator) -> list[Case]:
    classes = [str(c) for c in range(4)]
    image_ids, truth, rows = [], [], []
    for i in range(40):
        image = f"img{i:03d}"
        image_ids.append(image)
        k = int(rng.integers(0, 3))
        cell = _boxes(rng, classes, k, False) if k else "14 1 0 0 1 1"
        # one annotation per (image, class), as MLE-bench's consensus keeps
        tok = cell.split()
        seen: set[str] = set()
        kept = []
        for j in range(0, len(tok), 6):
            if tok[j] in seen:
                continue
            seen.add(tok[j])
            kept += tok[j : j + 6]
            rows.append({"image_id": image, "class_name": tok[j], "class_id": int(tok[j]),
                         "x_min": float(tok[j + 2]), "y_min": float(tok[j + 3]),
                         "x_max": float(tok[j + 4]), "y_max": float(tok[j + 5])})
        truth.append(" ".join(kept))
    answers = pd.DataFrame(rows)
    preds = {
        "perfect": truth,
        "partial": [_jitter_boxes(rng, t, 10.0) for t in truth],
        "random": [_jitter_boxes(rng, t, 80.0) for t in truth],
    }
    return [Case(k, _obj(truth), _obj(p), pd.DataFrame({"image_id": image_ids, "PredictionString": p}),
                 answers.copy()) for k, p in preds.items()]


def _boxes3d(rng: np.random.Generator, k: int) -> str:
    out = []
    for j in range(k):
        cx, cy = 30.0 * j + rng.uniform(0, 5, 2)
        out.append(f"1.0 {cx:.3f} {cy:.3f} {rng.uniform(-1, 1):.3f} {rng.uniform(1.5, 2.5):.3f} "
                   f"{rng.uniform(3.5, 5):.3f} {rng.uniform(1.4, 2):.3f} {rng.uniform(-3, 3):.3f} "
                   f"{rng.choice(['car', 'pedestrian', 'truck'])}")
    return " ".join(out)


def _shift3d(rng: np.random.Generator, cell: str, scale: float) -> str:
    tok = cell.split()
    for k in range(0, len(tok), 9):
        tok[k] = f"{rng.uniform(0.05, 1):.3f}"
        tok[k + 1] = f"{float(tok[k + 1]) + rng.normal(0, scale):.3f}"
        tok[k + 2] = f"{float(tok[k + 2]) + rng.normal(0, scale):.3f}"
    return " ".join(tok)


def lyft_cases(rng: np.random.Generator) -> list[Case]:
    ids = [f"tok{i:03d}" for i in range(25)]
    truth = [_boxes3d(rng, int(rng.integers(1, 4))) for _ in ids]
    preds = {
        "perfect": truth,
        "partial": [_shift3d(rng, t, 0.3) for t in truth],
        "random": [_shift3d(rng, t, 1.5) for t in truth],
    }
    return [Case(k, _obj(truth), _obj(p), pd.DataFrame({"Id": ids, "PredictionString": p}),
                 pd.DataFrame({"Id": ids, "PredictionString": truth})) for k, p in preds.items()]


def kuzushiji_cases(rng: np.random.Generator) -> list[Case]:
    chars = ["U+003F", "U+0041", "U+3042"]
    ids, truth, perfect, noisy = [], [], [], []
    for i in range(30):
        ids.append(f"page{i:03d}")
        boxes, points, guesses = [], [], []
        for _ in range(int(rng.integers(1, 6))):
            c = str(rng.choice(chars))
            x, y, w, h = (int(v) for v in rng.integers(1, 200, 4))
            boxes.append(f"{c} {x} {y} {w} {h}")
            points.append(f"{c} {x + w / 2} {y + h / 2}")
            guesses.append(f"{rng.choice(chars)} {x + rng.uniform(-0.5, 1.5) * w:.1f} {y + h / 2}")
        truth.append(" ".join(boxes))
        perfect.append(" ".join(points))
        noisy.append(" ".join(guesses))
    out = []
    for kind, p in (("perfect", perfect), ("random", noisy)):
        sub = pd.DataFrame({"image_id": ids, "labels": p})
        out.append(Case(kind, _obj(truth), _obj(p), sub, pd.DataFrame({"image_id": ids, "labels": truth})))
    return out


# --- orders, text, sets, spans --------------------------------------------------------------


def ai4code_cases(rng: np.random.Generator) -> list[Case]:
    ids, truth = [], []
    for i in range(50):
        ids.append(f"nb{i:04d}")
        truth.append(" ".join(f"{rng.integers(16**7, 16**8):08x}" for _ in range(int(rng.integers(2, 30)))))
    preds = {
        "perfect": truth,
        "random": [" ".join(rng.permutation(t.split())) for t in truth],
        "reversed": [" ".join(t.split()[::-1]) for t in truth],
        "partial": [" ".join(t.split()[1:] + t.split()[:1]) for t in truth],
    }
    return [Case(k, _obj(truth), _obj(p), pd.DataFrame({"id": ids, "cell_order": p}),
                 pd.DataFrame({"id": ids, "cell_order": truth})) for k, p in preds.items()]


def _sentence(rng: np.random.Generator) -> str:
    words = ["the", "team", "'s", "ambassador", "is", "going", "strong", "at", "83", ","]
    return " ".join(rng.choice(words, int(rng.integers(3, 15)))) + " ."


def _drop_word(rng: np.random.Generator, s: str) -> str:
    w = s.split()
    if len(w) > 2:
        del w[int(rng.integers(1, len(w) - 1))]
    return " ".join(w)


def text_cases(id_col: str, target: str, make: Callable[[np.random.Generator], str]) -> Callable[[np.random.Generator], list[Case]]:
    def build(rng: np.random.Generator) -> list[Case]:
        ids = [str(i) for i in range(80)]
        truth = [make(rng) for _ in ids]
        preds = {
            "perfect": truth,
            "partial": [_drop_word(rng, t) for t in truth],
            "random": [make(rng) for _ in ids],
            "empty": ["" for _ in ids] if target == "InChI" else ["x" for _ in ids],
        }
        return [Case(k, _obj(truth), _obj(p), pd.DataFrame({id_col: ids, target: p}),
                     pd.DataFrame({id_col: ids, target: truth})) for k, p in preds.items()]

    return build


def _inchi(rng: np.random.Generator) -> str:
    return "InChI=1S/" + "".join(rng.choice(list("CHNOS0123456789/-()"), int(rng.integers(10, 60))))


def imet_cases(rng: np.random.Generator) -> list[Case]:
    ids = [f"{i:032x}" for i in range(60)]

    def cell(top: int) -> str:
        return " ".join(str(x) for x in sorted(rng.choice(top, int(rng.integers(1, 4)), replace=False)))

    truth = [cell(20) for _ in ids]
    preds = {
        "perfect": truth,
        "partial": [t if rng.random() < 0.6 else cell(20) for t in truth],
        "random": [cell(20) for _ in ids],
        "labels-absent-from-answers": [cell(40) for _ in ids],
    }
    return [Case(k, _obj(truth), _obj(p), pd.DataFrame({"id": ids, "attribute_ids": p}),
                 pd.DataFrame({"id": ids, "attribute_ids": truth})) for k, p in preds.items()]


def tf2qa_cases(rng: np.random.Generator) -> list[Case]:
    samples, truth_cells, ids, perfect, noisy = [], [], [], [], []
    for _ in range(40):
        ex = str(-(10**18) + int(rng.integers(0, 10**12)))
        long_ok = rng.random() < 0.7
        ls = int(rng.integers(0, 500))
        long_span = (ls, ls + int(rng.integers(5, 50))) if long_ok else (-1, -1)
        shorts = []
        yes_no = "NONE"
        if long_ok and rng.random() < 0.2:
            yes_no = str(rng.choice(["YES", "NO"]))
        elif long_ok:
            for _ in range(int(rng.integers(0, 3))):
                s = int(rng.integers(long_span[0], long_span[1]))
                shorts.append((s, s + int(rng.integers(1, 4))))
        samples.append({"example_id": ex, "annotations": [{
            "long_answer": {"start_token": long_span[0], "end_token": long_span[1]},
            "short_answers": [{"start_token": a, "end_token": b} for a, b in shorts],
            "yes_no_answer": yes_no}]})
        long_cell = f"{long_span[0]}:{long_span[1]}" if long_ok else ""
        short_list = [f"{a}:{b}" for a, b in shorts] + ([yes_no] if yes_no != "NONE" else [])
        for suffix, cell, first in (("_long", long_cell, long_cell),
                                    ("_short", " ".join(short_list), short_list[0] if short_list else "")):
            ids.append(ex + suffix)
            truth_cells.append(cell)
            perfect.append(first)
            noisy.append(first if rng.random() < 0.5 else
                         str(rng.choice(["", "YES", f"{int(rng.integers(0, 9))}:{int(rng.integers(10, 20))}"])))
    out = []
    for kind, p in (("perfect", perfect), ("random", noisy)):
        out.append(Case(kind, _obj(truth_cells), _obj(p),
                        pd.DataFrame({"example_id": ids, "PredictionString": p}), samples))
    return out


# --- probabilities, values ------------------------------------------------------------------


def binary_cases(id_col: str, target: str, *, scores: bool) -> Callable[[np.random.Generator], list[Case]]:
    def build(rng: np.random.Generator) -> list[Case]:
        n = 400
        ids = [f"{i:05d}" for i in range(n)]
        y = rng.integers(0, 2, n).astype(float)
        y[:2] = [0, 1]
        preds = {
            "perfect": y.copy(),
            "random": np.round(rng.random(n), 3),
            "partial": np.clip(y + rng.normal(0, 0.4, n), 0, 1).round(3),
            "ties": np.round(rng.random(n), 1),
        }
        if scores:
            preds["unbounded-scores"] = np.round(rng.normal(0, 3, n) + 2 * y, 2)
        return [Case(k, y, p, pd.DataFrame({id_col: ids, target: p}),
                     pd.DataFrame({id_col: ids, target: y})) for k, p in preds.items()]

    return build


def quest_cases(rng: np.random.Generator, classes: list[str]) -> list[Case]:
    n = 120
    ids = list(range(n))
    t = np.round(rng.integers(0, 4, (n, len(classes))) / 3, 4)
    preds = {
        "perfect": t.copy(),
        "random": rng.random(t.shape).round(4),
        "partial": np.clip(t + rng.normal(0, 0.3, t.shape), 0, 1).round(4),
    }
    const = preds["random"].copy()
    const[:, 3] = 0.5
    preds["constant-prediction-column"] = const

    def frame(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"qa_id": ids, **{c: m[:, j] for j, c in enumerate(classes)}})

    return [Case(k, t, p, frame(p), frame(t)) for k, p in preds.items()]


def nomad_cases(rng: np.random.Generator) -> list[Case]:
    n = 200
    ids = list(range(1, n + 1))
    t = np.stack([rng.uniform(0, 0.5, n), rng.uniform(0, 5, n)], axis=1).round(4)
    preds = {"perfect": t.copy(), "random": rng.uniform(0, 3, t.shape).round(4),
             "partial": np.abs(t + rng.normal(0, 0.1, t.shape)).round(4)}
    cols = ["formation_energy_ev_natom", "bandgap_energy_ev"]

    def frame(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"id": ids, cols[0]: m[:, 0], cols[1]: m[:, 1]})

    return [Case(k, t, p, frame(p), frame(t)) for k, p in preds.items()]


JIGSAW = ["male", "female", "homosexual_gay_or_lesbian", "christian", "jewish", "muslim",
          "black", "white", "psychiatric_or_mental_illness"]


def jigsaw_cases(rng: np.random.Generator) -> list[Case]:
    n = 3000
    ids = list(range(7_000_000, 7_000_000 + n))
    tox = np.round(rng.beta(0.5, 2, n), 3)
    ident = np.where(rng.random((n, len(JIGSAW))) < 0.15, rng.uniform(0.5, 1, (n, len(JIGSAW))), 0.0).round(2)
    answers = pd.DataFrame({"id": ids, "toxicity": tox, **{c: ident[:, j] for j, c in enumerate(JIGSAW)}})
    preds = {
        "perfect": tox.copy(),
        "binary": (tox >= 0.5).astype(float),
        "random": rng.random(n).round(4),
        "partial": np.clip(tox + rng.normal(0, 0.2, n), 0, 1).round(4),
    }
    return [Case(k, tox, p, pd.DataFrame({"id": ids, "prediction": p}), answers.copy(),
                 aux={"identities": ident}) for k, p in preds.items()]


def cervical_cases(rng: np.random.Generator) -> list[Case]:
    types = ["patient_overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7"]
    rows = []
    for e in range(60):
        study = f"1.2.826.0.1.3680043.{e}"
        frac = rng.random(7) < 0.15
        for t, v in zip(types, [int(frac.any()), *frac.astype(int)], strict=True):
            rows.append({"StudyInstanceUID": study, "prediction_type": t,
                         "fractured": v, "row_id": f"{study}_{t}"})
    answers = pd.DataFrame(rows)
    y = answers["fractured"].to_numpy(float)
    preds = {
        "perfect": y.copy(),
        "random": rng.random(y.size).round(3),
        "partial": np.clip(y + rng.normal(0, 0.3, y.size), 0, 1).round(3),
    }
    return [Case(k, y, p, pd.DataFrame({"row_id": answers["row_id"], "fractured": p}),
                 answers.copy(), aux={"labels": answers["prediction_type"].to_numpy(object)})
            for k, p in preds.items()]


def gnss_cases(rng: np.random.Generator) -> list[Case]:
    trips, times, lat, lon = [], [], [], []
    for k in range(6):
        m = int(rng.integers(30, 80))
        trips += [f"2021-drive-{k}-Pixel4"] * m
        times += list(1_273_608_785_432 + 1000 * np.arange(m))
        lat += list(37.4 + np.cumsum(rng.normal(0, 1e-5, m)))
        lon += list(-122.1 + np.cumsum(rng.normal(0, 1e-5, m)))
    t = np.stack([lat, lon], axis=1)
    preds = {"perfect": t.copy(), "partial": t + rng.normal(0, 2e-5, t.shape),
             "random": t + rng.normal(0, 5e-4, t.shape)}

    def frame(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"tripId": trips, "UnixTimeMillis": times,
                             "LatitudeDegrees": m[:, 0], "LongitudeDegrees": m[:, 1]})

    return [Case(k, t, p, frame(p), frame(t), aux={"groups": np.array(trips, dtype=object)})
            for k, p in preds.items()]


# --- masks ----------------------------------------------------------------------------------


def rle(mask: np.ndarray) -> str:
    """Run-length encoding of a flat 0/1 array (1-based starts)."""
    padded = np.concatenate([[0], mask.astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(padded))
    return " ".join(f"{s + 1} {e - s}" for s, e in zip(edges[0::2], edges[1::2], strict=True))


def _blob(rng: np.random.Generator, h: int, w: int, order: str) -> np.ndarray:
    img = np.zeros((h, w), dtype=bool)
    if rng.random() < 0.25:
        return img.ravel(order=order)
    y, x = rng.integers(0, h - 4), rng.integers(0, w - 4)
    img[y : y + int(rng.integers(2, 8)), x : x + int(rng.integers(2, 8))] = True
    return img.ravel(order=order)


def uw_cases(rng: np.random.Generator) -> list[Case]:
    h, w = 24, 20
    ids, classes, truth, near, far = [], [], [], [], []
    for case in range(3):
        for z in range(1, 9):
            for cls in ("large_bowel", "small_bowel", "stomach"):
                ids.append(f"case{case}_day1_slice_{z:04d}")
                classes.append(cls)
                m = _blob(rng, h, w, "F")
                truth.append(rle(m))
                near.append(rle(np.roll(m, int(rng.integers(-2, 3)))))
                far.append(rle(_blob(rng, h, w, "F")))
    n = len(ids)
    answers = pd.DataFrame({"id": ids, "class": classes, "predicted": truth,
                            "image_height": h, "image_width": w})
    aux = {"ids": np.array(ids, dtype=object), "classes": np.array(classes, dtype=object),
           "height": np.full(n, float(h)), "width": np.full(n, float(w))}
    return [Case(k, _obj(truth), _obj(p), pd.DataFrame({"id": ids, "class": classes, "predicted": p}),
                 answers.copy(), aux=dict(aux))
            for k, p in (("perfect", truth), ("partial", near), ("random", far))]


def vesuvius_cases(rng: np.random.Generator) -> list[Case]:
    h, w = 40, 50
    out = []
    base = rng.random(h * w) < 0.3
    empty = np.zeros(h * w, dtype=bool)
    variants = {"perfect": (base, base), "partial": (base, base & (rng.random(h * w) < 0.8)),
                "random": (base, rng.random(h * w) < 0.3), "empty-prediction": (base, empty),
                "both-empty": (empty, empty)}
    for kind, (t, m) in variants.items():
        answers = pd.DataFrame({"Id": ["a"], "Predicted": [rle(t)], "width": [w], "height": [h]})
        sub = pd.DataFrame({"Id": ["a"], "Predicted": [rle(m)]})
        out.append(Case(kind, _obj([rle(t)]), _obj([rle(m)]), sub, answers,
                        aux={"height": np.array([float(h)]), "width": np.array([float(w)])}))
    return out


# --- existing metrics with known departures -------------------------------------------------


def logloss_cases(rng: np.random.Generator) -> list[Case]:
    n = 300
    ids = list(range(n))
    y = rng.integers(0, 2, n).astype(float)
    preds = {"random": rng.random(n).round(3), "perfect": y.copy(),
             "confident-wrong": np.where(rng.random(n) < 0.05, 1 - y, y)}
    return [Case(k, y, p, pd.DataFrame({"id": ids, "is_iceberg": p}),
                 pd.DataFrame({"id": ids, "is_iceberg": y})) for k, p in preds.items()]


def qwk_cases(rng: np.random.Generator) -> list[Case]:
    n = 200
    ids = [f"{i:012x}" for i in range(n)]
    y = rng.integers(0, 5, n)
    gap = np.array([0, 1, 2, 4])  # rating 3 absent from both sides
    preds = {"perfect": y.copy(), "random": rng.integers(0, 5, n),
             "partial": np.clip(y + rng.integers(-1, 2, n), 0, 4),
             "absent-ratings": gap[rng.integers(0, 4, n)]}
    t = y.astype(str).astype(object)
    out = []
    for k, p in preds.items():
        if k == "absent-ratings":
            y2 = gap[rng.integers(0, 4, n)]
            out.append(Case(k, y2.astype(str).astype(object), p.astype(str).astype(object),
                            pd.DataFrame({"id_code": ids, "diagnosis": p}),
                            pd.DataFrame({"id_code": ids, "diagnosis": y2})))
            continue
        out.append(Case(k, t, p.astype(str).astype(object), pd.DataFrame({"id_code": ids, "diagnosis": p}),
                        pd.DataFrame({"id_code": ids, "diagnosis": y})))
    return out


def champs_cases(rng: np.random.Generator) -> list[Case]:
    n = 300
    ids = list(range(n))
    types = np.array([("1JHC", "2JHH", "3JHN")[i % 3] for i in range(n)], dtype=object)
    y = rng.normal(0, 20, n).round(5)
    preds = {"perfect": y.copy(), "random": rng.normal(0, 20, n).round(5),
             "partial": (y + rng.normal(0, 1, n)).round(5)}
    return [Case(k, y, p, pd.DataFrame({"id": ids, "scalar_coupling_constant": p}),
                 pd.DataFrame({"id": ids, "scalar_coupling_constant": y, "type": types}),
                 aux={"groups": types}) for k, p in preds.items()]


# --- single-table competitions: one id column, one or more target columns --------------------


def value_cases(id_col: str, targets: list[str], truth: Callable[[np.random.Generator, int], np.ndarray],
                noise: float, *, n: int = 300,
                bounds: tuple[float, float] | None = None) -> Callable[[np.random.Generator], list[Case]]:
    """Real-valued targets: perfect, a noisy copy, unrelated values and a constant prediction;
    predictions stay within ``bounds`` when the task declares a range (range checks are the
    validator's, not the metric's)."""

    def build(rng: np.random.Generator) -> list[Case]:
        ids = [f"k{i:05d}" for i in range(n)]
        t = truth(rng, n)
        shape = t.shape
        preds = {"perfect": t.copy(), "partial": t + rng.normal(0, noise, shape),
                 "random": truth(rng, n), "constant": np.full(shape, float(np.mean(t)))}
        if bounds is not None:
            preds = {k: np.clip(v, *bounds) for k, v in preds.items()}

        def frame(m: np.ndarray) -> pd.DataFrame:
            cols = m if m.ndim == 2 else m[:, None]
            return pd.DataFrame({id_col: ids, **{c: cols[:, j] for j, c in enumerate(targets)}})

        return [Case(k, t, p, frame(p), frame(t)) for k, p in preds.items()]

    return build


def label_cases(id_col: str, target: str, classes: list[str], *, numeric: bool = False,
                n: int = 300) -> Callable[[np.random.Generator], list[Case]]:
    """Labels: perfect, random, partly right, one class for every row."""

    def build(rng: np.random.Generator) -> list[Case]:
        ids = [f"p{i:05d}" for i in range(n)]
        t = rng.choice(classes, n)
        preds = {"perfect": t.copy(), "random": rng.choice(classes, n),
                 "partial": np.where(rng.random(n) < 0.7, t, rng.choice(classes, n)),
                 "constant": np.full(n, classes[0])}

        def col(v: np.ndarray) -> Any:
            return v.astype(int) if numeric else v

        return [Case(k, t.astype(str).astype(object), p.astype(str).astype(object),
                     pd.DataFrame({id_col: ids, target: col(p)}), pd.DataFrame({id_col: ids, target: col(t)}))
                for k, p in preds.items()]

    return build


def tweet_cases(rng: np.random.Generator) -> list[Case]:
    words = ["good", "bad", "Happy", "sad", "day", "the", "so", "very"]
    n = 200
    ids = [f"t{i:04d}" for i in range(n)]

    def cell() -> str:
        return " ".join(rng.choice(words, int(rng.integers(1, 6))))

    t = [cell() for _ in ids]
    preds = {"perfect": t, "random": [cell() for _ in ids],
             "partial": [" ".join(x.split()[:-1]) or x for x in t]}
    return [Case(k, _obj(t), _obj(p), pd.DataFrame({"textID": ids, "selected_text": p}),
                 pd.DataFrame({"textID": ids, "selected_text": t})) for k, p in preds.items()]


def icecube_cases(rng: np.random.Generator) -> list[Case]:
    n = 300
    ids = list(range(n))
    t = np.stack([rng.uniform(0, 2 * np.pi, n), rng.uniform(0, np.pi, n)], axis=1)
    preds = {"perfect": t.copy(), "partial": np.stack([(t[:, 0] + rng.normal(0, 0.2, n)) % (2 * np.pi),
                                                       np.clip(t[:, 1] + rng.normal(0, 0.2, n), 0, np.pi)], axis=1),
             "random": np.stack([rng.uniform(0, 2 * np.pi, n), rng.uniform(0, np.pi, n)], axis=1)}

    def frame(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"event_id": ids, "azimuth": m[:, 0], "zenith": m[:, 1]})

    return [Case(k, t, p, frame(p), frame(t)) for k, p in preds.items()]
