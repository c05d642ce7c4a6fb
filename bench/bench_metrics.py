"""Benchmark: the registry's numpy metrics against scikit-learn on the issue's sizes.

Measures, as medians of ``--repeats`` runs on the same arrays (so parsing is excluded):

- binary ROC-AUC, 1M rows with ties (``roc_auc`` vs ``sklearn.metrics.roc_auc_score``);
- multi-class log loss, 100k rows x 100 classes (``multiclass_log_loss`` vs ``log_loss``);
- binary log loss, 1M rows (``log_loss`` vs ``log_loss``);
- RMSE, 10M rows (``rmse`` vs ``root_mean_squared_error``);
- raw character Levenshtein, 1M rows of InChI-like strings (``levenshtein_mean`` on
  rapidfuzz's C kernel vs a pure-Python dynamic programme, the package's former kernel, timed
  on 2,000 rows and scaled to the full size), and one 900 KB predicted cell against a 900 KB
  truth (the adversarial cell that took 78 s), with the default length limit lifted;

and checks that both sides agree within 1e-9 (relative). It also times importing the metric
registry against importing scikit-learn's metrics, in fresh interpreters, and the metrics
MLE-Dojo's competitions added on their competitions' sizes and on adversarial cells
(:func:`dojo_cases`: Life boards, object masks, wheat boxes, spans, row orders, the
Flavours filter; scikit-learn's value beside them where it has the metric).

Usage::

    python bench/bench_metrics.py              # the issue's sizes
    python bench/bench_metrics.py --scale 0.1  # a tenth of the rows (a quick check)

Figures go to stdout as a table and to bench/results/bench_metrics.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tambench.core.metrics import get_metric

RESULTS = Path(__file__).resolve().parent / "results" / "bench_metrics.json"


def median_seconds(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times = []
    value = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), value


def import_seconds(statement: str, repeats: int) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(repeats)
    ]
    return statistics.median(out)


def python_levenshtein(a: str, b: str) -> int:
    """The pure-Python edit distance the text metrics used before rapidfuzz (reference)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def inchi_like(rng: np.random.Generator, n: int, length: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """n truths of ``length`` characters and predictions with a few random edits each."""
    alphabet = np.array(list("CHNOS0123456789/=()-+,ch"))
    truths = ["InChI=1S/" + "".join(rng.choice(alphabet, length)) for _ in range(n)]
    preds = []
    for t in truths:
        chars = list(t)
        for _ in range(int(rng.integers(0, 6))):
            k = int(rng.integers(0, len(chars)))
            chars[k] = str(rng.choice(alphabet))
        preds.append("".join(chars))
    return np.array(truths, dtype=object), np.array(preds, dtype=object)


def levenshtein_cases(scale: float, rng: np.random.Generator) -> list[dict[str, Any]]:
    n = int(1_000_000 * scale)
    truths, preds = inchi_like(rng, n)
    sample = 2_000
    big_t = "".join(rng.choice(list("ACGT"), 900_000))
    big_p = big_t[:450_000] + "".join(rng.choice(list("ACGT"), 450_000))
    metric = get_metric("levenshtein_mean")
    return [
        {
            "name": f"levenshtein_mean, {n:,} rows",
            "ours": lambda: metric(truths, preds),
            # the reference is timed on `sample` rows; the factor scales it to n
            "reference": lambda: float(np.mean([python_levenshtein(a, b) for a, b in
                                                zip(truths[:sample], preds[:sample], strict=True)])),
            "check": lambda: metric(truths[:sample], preds[:sample]),
            "factor": n / sample,
        },
        {
            "name": "levenshtein_mean, one 900 KB cell",
            "ours": lambda: metric([big_t], [big_p], max_length=1_000_000),
            "reference": None,
            "check": None,
            "factor": 1.0,
        },
    ]


def run_levenshtein(scale: float, repeats: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    for case in levenshtein_cases(scale, rng):
        ours_s, ours_v = median_seconds(case["ours"], repeats)
        row: dict[str, Any] = {"case": case["name"], "ours_s": ours_s, "ours": ours_v,
                               "load_avg_1m": os.getloadavg()[0]}
        if case["reference"] is not None:
            ref_s, ref_v = median_seconds(case["reference"], 1)
            row.update(reference_s_scaled=ref_s * case["factor"], reference_sample=ref_v,
                       rel_diff=abs(case["check"]() - ref_v) / max(abs(ref_v), 1e-300))
        rows.append(row)
        extra = (f"  pure Python (scaled) {row['reference_s_scaled']:.1f} s, rel diff "
                 f"{row['rel_diff']:.1e}" if "reference_s_scaled" in row else "")
        print(f"{row['case']:36} {ours_s:10.4f} s{extra}  (load avg {row['load_avg_1m']:.2f})")
    return rows


def cases(scale: float, rng: np.random.Generator) -> list[dict[str, Any]]:
    from sklearn import metrics as skm

    n_auc = int(1_000_000 * scale)
    y_auc = rng.integers(0, 2, n_auc).astype(np.float64)
    s_auc = np.round(rng.random(n_auc), 4)  # 10,001 distinct scores: many ties

    n_mc, k = int(100_000 * scale), 100
    labels = rng.integers(0, k, n_mc)
    onehot = np.zeros((n_mc, k))
    onehot[np.arange(n_mc), labels] = 1.0
    probs = rng.random((n_mc, k)) + 1e-3
    probs /= probs.sum(axis=1, keepdims=True)

    n_ll = int(1_000_000 * scale)
    y_ll = rng.integers(0, 2, n_ll).astype(np.float64)
    p_ll = rng.uniform(0.01, 0.99, n_ll)

    n_rmse = int(10_000_000 * scale)
    t_rmse = rng.normal(size=n_rmse)
    p_rmse = t_rmse + rng.normal(size=n_rmse)

    return [
        {
            "name": f"roc_auc, {n_auc:,} rows",
            "ours": lambda: get_metric("roc_auc")(y_auc, s_auc),
            "sklearn": lambda: skm.roc_auc_score(y_auc, s_auc),
        },
        {
            "name": f"multiclass_log_loss, {n_mc:,} x {k}",
            "ours": lambda: get_metric("multiclass_log_loss")(onehot, probs),
            "sklearn": lambda: skm.log_loss(labels, probs, labels=np.arange(k)),
        },
        {
            "name": f"log_loss, {n_ll:,} rows",
            "ours": lambda: get_metric("log_loss")(y_ll, p_ll),
            "sklearn": lambda: skm.log_loss(y_ll, p_ll),
        },
        {
            "name": f"rmse, {n_rmse:,} rows",
            "ours": lambda: get_metric("rmse")(t_rmse, p_rmse),
            "sklearn": lambda: skm.root_mean_squared_error(t_rmse, p_rmse),
        },
    ]


def _objects_cell(rng: np.random.Generator, n_objects: int, runs: int, width: int = 768 * 768) -> str:
    """``n_objects`` disjoint objects of ``runs`` runs each on one image, joined by '|'."""
    starts = np.sort(rng.choice(width // 4, size=n_objects * runs, replace=False)) * 4 + 1
    cells = [" ".join(f"{s} 2" for s in starts[i::n_objects]) for i in range(n_objects)]
    return "|".join(cells)


def _wheat_cell(rng: np.random.Generator, k: int, conf: bool) -> str:
    xy = rng.uniform(0, 1000, (k, 2))
    wh = rng.uniform(20, 80, (k, 2))
    c = np.round(rng.random(k), 3) if conf else np.ones(k)
    return " ".join(f"{c[i]} {xy[i, 0]:.1f} {xy[i, 1]:.1f} {wh[i, 0]:.1f} {wh[i, 1]:.1f}" for i in range(k))


def dojo_cases(scale: float, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Workloads of the metrics MLE-Dojo's competitions added, with a reference when one exists."""
    from sklearn import metrics as skm

    n_life = max(1, int(50_000 * scale))  # Kaggle's test games: 50,000 boards of 25 x 25
    stops = (rng.random((n_life, 625)) < 0.2).astype(np.float64)
    starts = (rng.random((n_life, 625)) < 0.2).astype(np.float64)
    delta = rng.integers(1, 6, n_life).astype(np.float64)
    n_img = max(1, int(1_000 * scale))
    ships_t = np.array([_objects_cell(rng, 20, 30) for _ in range(n_img)], dtype=object)
    ships_p = np.array([_objects_cell(rng, 20, 30) for _ in range(n_img)], dtype=object)
    crowd_t = np.array([_objects_cell(rng, 50, 4)], dtype=object)
    crowd_p = np.array([_objects_cell(rng, 10_000, 2)], dtype=object)  # 10,000 tiny objects
    wheat_t = np.array([_wheat_cell(rng, 50, False) for _ in range(n_img)], dtype=object)
    wheat_p = np.array([_wheat_cell(rng, 100, True) for _ in range(n_img)], dtype=object)
    dup_p = np.array([" ".join(["0.9 " + " ".join(wheat_t[0].split()[1:5])] * 10_000)], dtype=object)
    n_rows = max(2, int(100_000 * scale))
    spans_t = np.array([f"{i % 500} {i % 500 + 40}; {i % 700 + 600} {i % 700 + 650}"
                        for i in range(n_rows)], dtype=object)
    spans_p = np.array([f"{i % 480} {i % 480 + 60}" for i in range(n_rows)], dtype=object)
    days_t = np.array([" ".join(map(str, rng.permutation(5) + 1)) for _ in range(n_rows)], dtype=object)
    days_p = np.array([" ".join(map(str, rng.integers(1, 6, 5))) for _ in range(n_rows)], dtype=object)
    n_fl = max(2, int(855_000 * scale))  # Flavours of Physics' test events
    y_fl = rng.integers(0, 2, n_fl).astype(np.float64)
    p_fl = np.round(rng.random(n_fl), 5)
    muon = rng.random(n_fl)
    n_g = max(2, int(1_000_000 * scale))
    y_g = rng.integers(0, 2, n_g).astype(np.float64)
    p_g = np.round(rng.random(n_g), 4)
    wheat = {"iou_thresholds": [0.5, 0.55, 0.6, 0.65, 0.7, 0.75], "form": "image_precision",
             "layout": "conf_xywh"}
    flavours = {"tpr_thresholds": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
                "weights": [2.0, 1.5, 1.0, 0.5, 0.0], "filter_above": 0.4}
    return [
        {"name": f"game_of_life_mae, {n_life:,} boards", "ours": lambda: get_metric(
            "game_of_life_mae")(stops, starts, delta=delta), "reference": None},
        {"name": f"mask_object_fbeta, {n_img:,} images", "ours": lambda: get_metric(
            "mask_object_fbeta")(ships_t, ships_p), "reference": None},
        {"name": "mask_object_fbeta, 10,000 objects", "ours": lambda: get_metric(
            "mask_object_fbeta")(crowd_t, crowd_p), "reference": None},
        {"name": f"box_map wheat, {n_img:,} images", "ours": lambda: get_metric("box_map")(
            wheat_t, wheat_p, **wheat), "reference": None},
        {"name": "box_map wheat, 10,000 duplicates", "ours": lambda: get_metric("box_map")(
            wheat_t[:1], dup_p, **wheat), "reference": None},
        {"name": f"char_span_micro_f1, {n_rows:,} rows", "ours": lambda: get_metric(
            "char_span_micro_f1")(spans_t, spans_p), "reference": None},
        {"name": f"spearman_orders, {n_rows:,} rows", "ours": lambda: get_metric(
            "spearman_orders")(days_t, days_p), "reference": None},
        {"name": f"weighted_auc_tpr flavours, {n_fl:,}", "ours": lambda: get_metric(
            "weighted_auc_tpr")(y_fl, p_fl, filter=muon, **flavours), "reference": None},
        {"name": f"normalized_gini, {n_g:,} rows", "ours": lambda: get_metric(
            "normalized_gini")(y_g, p_g), "reference": lambda: 2 * skm.roc_auc_score(y_g, p_g) - 1},
        {"name": f"median_absolute_error, {n_g:,}", "ours": lambda: get_metric(
            "median_absolute_error")(y_g, p_g),
         "reference": lambda: skm.median_absolute_error(y_g, p_g)},
    ]


def run_dojo(scale: float, repeats: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    for case in dojo_cases(scale, rng):
        ours_s, ours_v = median_seconds(case["ours"], repeats)
        row: dict[str, Any] = {"case": case["name"], "ours_s": ours_s, "ours": ours_v,
                               "load_avg_1m": os.getloadavg()[0]}
        extra = ""
        if case["reference"] is not None:
            ref_s, ref_v = median_seconds(case["reference"], repeats)
            row.update(sklearn_s=ref_s, sklearn=ref_v,
                       rel_diff=abs(ours_v - ref_v) / max(abs(ref_v), 1e-300))
            extra = f"  scikit-learn {ref_s:.4f} s, rel diff {row['rel_diff']:.1e}"
        rows.append(row)
        print(f"{row['case']:36} {ours_s:10.4f} s{extra}  (load avg {row['load_avg_1m']:.2f})")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the issue's sizes")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for case in cases(args.scale, rng):
        ours_s, ours_v = median_seconds(case["ours"], args.repeats)
        sk_s, sk_v = median_seconds(case["sklearn"], args.repeats)
        rel = abs(ours_v - sk_v) / max(abs(sk_v), 1e-300)
        rows.append({
            "case": case["name"], "ours_s": ours_s, "sklearn_s": sk_s,
            "speedup": sk_s / ours_s, "ours": ours_v, "sklearn": sk_v, "rel_diff": rel,
        })
    text_rows = run_levenshtein(args.scale, max(1, min(args.repeats, 3)), rng)
    dojo_rows = run_dojo(args.scale, max(1, min(args.repeats, 3)), rng)
    imports = {
        "tambench.core.metrics": import_seconds("import tambench.core.metrics", 3),
        "sklearn.metrics": import_seconds("import sklearn.metrics", 3),
    }
    print(f"{'case':36} {'ours (s)':>10} {'sklearn (s)':>12} {'speedup':>8} {'rel diff':>10}"
          f"  (load avg {os.getloadavg()[0]:.2f})")
    for r in rows:
        print(f"{r['case']:36} {r['ours_s']:10.4f} {r['sklearn_s']:12.4f} "
              f"{r['speedup']:7.1f}x {r['rel_diff']:10.1e}")
    for name, secs in imports.items():
        print(f"import {name:29} {secs:10.3f} s")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "scale": args.scale, "repeats": args.repeats, "machine": platform.platform(),
        "python": platform.python_version(), "cases": rows, "text_cases": text_rows,
        "dojo_cases": dojo_rows,
        "import_seconds": imports, "load_avg_1m": os.getloadavg()[0],
    }, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    bad = [r["case"] for r in [*rows, *text_rows, *dojo_rows] if r.get("rel_diff", 0.0) > 1e-9]
    if bad:
        print(f"DISAGREEMENT with scikit-learn: {bad}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
