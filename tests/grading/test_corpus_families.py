"""The adversarial corpus per metric family (tests/grading/corpus/families.py): every case gets
the outcome written beside it, and refusals never depend on the private answers' values."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tambench.grading.grade import grade_submission
from tests.grading.corpus.families import CASES, FamilyCase, build, family_of, judge

FAMILY_NAMES = ["label", "probability", "value", "ranking", "set", "text", "mask", "structured"]


def _param(case: FamilyCase) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=f"pending metric work: {case.pending}")] \
        if case.pending else []
    return pytest.param(case, id=case.id, marks=marks)


def test_every_family_meets_at_least_forty_attacks() -> None:
    counts = Counter(family_of(c) for c in CASES)
    assert sorted(counts) == sorted(FAMILY_NAMES)
    assert all(n >= 40 for n in counts.values()), counts
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_family_case_gets_its_written_outcome(case: FamilyCase, tmp_path: Path) -> None:
    verdict, detail = judge(case, tmp_path)
    assert verdict == "right", detail


def _permuted_answers(case: FamilyCase, folder: Path, seed: int) -> Path:
    """The family's answers with the truths moved to other rows (ids unchanged)."""
    import numpy as np

    from tests.grading.corpus.families import FAMILIES, csv_text

    f = FAMILIES[case.family]
    order = np.random.default_rng(seed).permutation(len(f.truths))
    rows = [[i, f.truths[int(j)]] for i, j in zip(f.ids, order, strict=True)]
    folder.mkdir(parents=True)
    path = folder / "answers.csv"
    path.write_text(csv_text(f.header, rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "case",
    [_param(c) for c in CASES if c.want == "R" and not c.pending
     and family_of(c) != "structured" and "hard_link" not in c.name],
)
def test_family_refusals_do_not_depend_on_the_private_truths(
    case: FamilyCase, tmp_path: Path
) -> None:
    spec, answers, sub, _ = build(case, tmp_path / "a")
    original = grade_submission(sub, spec, answers).errors
    for seed in (1, 2):
        permuted = _permuted_answers(case, tmp_path / f"p{seed}", seed)
        assert grade_submission(sub, spec, permuted).errors == original
