"""Fit the calibrated difficulty model to MLE-bench's complexity labels, and measure it.

Development-time script. Its data are the bundled catalogue's shipped leaderboards and their
``reference_tiers["mle-bench"]`` labels, which ``scripts/ship_leaderboards.py`` copied from
``../shared/data/leaderboards`` (low / medium / high -> easy / medium / hard); nothing else.

1. Every labelled entry with a leaderboard and a score scale becomes a board of statistics.
2. A seeded, stratified fifth of them is held out of everything below.
3. Each candidate specification (:data:`CANDIDATES`: statistics x ridge penalty) is measured
   by repeated stratified 5-fold cross-validation on the rest; the best mean agreement wins
   (ties: fewer statistics, then the larger penalty), provided it makes at most one two-step
   jump per 20 boards.
4. The winner is fitted on all non-held-out boards and written to
   ``tambench/difficulty/calibrated_params.json``; its check on the held-out boards, the
   paper's and the robust formula's agreement on the same boards, and every candidate's
   figures go to ``docs/difficulty-fit.json``.

Usage: .venv/bin/python scripts/fit_difficulty.py [--catalogue DIR] [--check]
``--check`` writes nothing and exits 1 when the stored parameters differ from a fresh fit.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from tambench.core.leaderboard import read_leaderboard
from tambench.difficulty.calibrated import PARAMS_FILE
from tambench.difficulty.features import board_stats
from tambench.difficulty.fit import (
    CrossValidation,
    FitReport,
    LabelledBoard,
    agreement_of,
    cross_validate,
    fit_model,
    hold_out,
    predict,
)
from tambench.difficulty.formula import TIER_ORDER, paper_difficulty, robust_difficulty
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir
from tambench.tasks.leaderboards import scale_of

REPO = Path(__file__).resolve().parents[1]
REPORT_FILE = REPO / "docs" / "difficulty-fit.json"
LABELS = "mle-bench"
LABEL_TIERS = {"low": 0, "medium": 1, "high": 2}
HELD_OUT_SHARE = 0.2
SEED = 0
FOLDS, REPEATS = 5, 10
#: The undefined winner's gap (unbounded metrics) is filled with the gap of a winner at the
#: worst end of the range (log10(1 + 0.01)); the ``unbounded`` indicator carries the case.
FILL = {"log_winner_gap": 0.00432137378264258, "log_podium_gap": 0.00432137378264258}
_BASE = ["log_winner_gap", "unbounded"]
_PODIUM = ["log_podium_gap", "unbounded"]
CANDIDATES: list[list[str]] = [
    _BASE,
    _PODIUM,
    [*_BASE, "log_participants"],
    [*_PODIUM, "log_participants"],
    [*_BASE, "norm_mean"],
    [*_PODIUM, "norm_mean"],
    [*_BASE, "top_median_gap"],
    [*_BASE, "top_crowding"],
    ["norm_mean", "log_participants", *_BASE],
    [*_BASE, "log_participants", "norm_mean", "top_median_gap", "top_crowding"],
]
PENALTIES = (0.03, 0.1, 1.0)


def labelled_boards(root: Path) -> tuple[list[LabelledBoard], dict[str, tuple[str, str]]]:
    """Boards with a label, and for each its paper and robust tiers."""
    boards: list[LabelledBoard] = []
    formula_tiers: dict[str, tuple[str, str]] = {}
    for entry in sorted(Catalogue(root), key=lambda e: e.id):
        label = entry.spec.reference_tiers.get(LABELS)
        scale = scale_of(entry.spec)
        if label is None or scale is None or not entry.has_leaderboard:
            continue
        lb = read_leaderboard(entry.leaderboard_path)
        boards.append(LabelledBoard(entry.id, board_stats(lb, scale).as_dict(),
                                    LABEL_TIERS[label]))
        formula_tiers[entry.id] = (paper_difficulty(lb, scale).tier.value,
                                   robust_difficulty(lb, scale).tier.value)
    return boards, formula_tiers


def choose(results: list[CrossValidation], n: int) -> CrossValidation:
    """The best candidate by mean agreement (see the module docstring)."""
    allowed = [r for r in results if r.mean_two_step_jumps <= n / 20] or results
    return max(allowed, key=lambda r: (round(r.mean_agreement, 6), -len(r.features), r.l2))


def _formula_agreement(boards: list[LabelledBoard], tiers: dict[str, tuple[str, str]],
                       which: int) -> object:
    names = [t.value for t in TIER_ORDER]
    return agreement_of([b.tier for b in boards],
                        [names.index(tiers[b.task][which]) for b in boards])


def run(root: Path) -> tuple[str, FitReport]:
    """Fit and measure; returns the parameters' JSON text and the report."""
    boards, formula_tiers = labelled_boards(root)
    fitted, held = hold_out(boards, HELD_OUT_SHARE, SEED)
    results = [cross_validate(fitted, feats, FILL, l2, folds=FOLDS, repeats=REPEATS, seed=SEED)
               for feats in CANDIDATES for l2 in PENALTIES]
    best = choose(results, len(fitted))
    params = fit_model(fitted, best.features, FILL, best.l2)
    index_text = "".join(f"{b.task},{b.tier}\n" for b in boards)
    params = params.model_copy(update={
        "labels": f"reference_tiers['{LABELS}'] of the bundled catalogue (MLE-bench complexity "
                  "labels from ../shared/data/leaderboards/index.csv)",
        "fitted_on": [b.task for b in fitted], "held_out": [b.task for b in held],
        "data": f"{len(boards)} labelled boards; sha256 of 'task,tier' lines "
                f"{hashlib.sha256(index_text.encode()).hexdigest()}"})
    pred = predict(params, held)
    names = [t.value for t in TIER_ORDER]
    report = FitReport(
        labelled=len(boards), fitted_on=params.fitted_on, held_out=params.held_out,
        candidates=results, chosen=best,
        held_out_check=agreement_of([b.tier for b in held], pred),
        held_out_predictions={b.task: [names[b.tier], names[p]] for b, p in zip(held, pred,
                                                                               strict=True)},
        paper_on_fitted=_formula_agreement(fitted, formula_tiers, 0),
        paper_on_held_out=_formula_agreement(held, formula_tiers, 0),
        robust_on_fitted=_formula_agreement(fitted, formula_tiers, 1),
        robust_on_held_out=_formula_agreement(held, formula_tiers, 1),
    )
    return params.model_dump_json(indent=2) + "\n", report


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--catalogue", type=Path, default=bundled_catalogue_dir())
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    params_text, report = run(args.catalogue)
    c, h = report.chosen, report.held_out_check
    print(f"{report.labelled} labelled boards: {len(report.fitted_on)} fitted on, "
          f"{len(report.held_out)} held out")
    for r in report.candidates:
        print(f"  {'+'.join(r.features):80s} l2={r.l2:<4} CV {r.mean_agreement:.3f} "
              f"[{r.min_agreement:.3f}, {r.max_agreement:.3f}] jumps {r.mean_two_step_jumps:.1f}")
    print(f"chosen: {'+'.join(c.features)} l2={c.l2}: CV agreement {c.mean_agreement:.3f}, "
          f"held-out {h.agreement:.3f} ({h.n} boards, {h.two_step_jumps:g} two-step jumps)")
    print(f"paper on the same boards: {report.paper_on_fitted.agreement:.3f} (fitted set), "
          f"{report.paper_on_held_out.agreement:.3f} (held out)")
    if args.check:
        same = PARAMS_FILE.read_text(encoding="utf-8") == params_text
        print("stored parameters match a fresh fit" if same else "stored parameters DIFFER")
        return 0 if same else 1
    PARAMS_FILE.write_text(params_text, encoding="utf-8")
    REPORT_FILE.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    print(f"wrote {PARAMS_FILE} and {REPORT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
