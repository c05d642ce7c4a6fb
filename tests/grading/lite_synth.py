"""Synthetic private answers for the 18 Lite tasks, in each task's exact file format.

``make_answers`` writes answers as the task's ``grading`` spec describes them (CSV with the
submission header plus any auxiliary answer-only column, JSON or text lines) with realistic
ids; ``make_submission_from_answers`` turns answers into a submission, optionally with rows
shuffled or every id scrambled. ``read_answers`` parses answers the way the calling contract
of the metrics describes, for tests that call metrics directly.
"""

from __future__ import annotations

import csv
import io
import json
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tambench.core.metrics import get_metric
from tambench.schema.taskspec import SubmissionFormat, TaskSpec

Rows = list[list[str]]
HEX = "0123456789abcdef"
SPEECH_LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go",
                 "silence", "unknown"]
BIRDS = ["amecro", "amerob", "bkcchi", "norcar", "rewbla", "sonspa", "houspa"]


def _hex(rng: np.random.Generator, k: int) -> str:
    return "".join(rng.choice(list(HEX), size=k))


def _f(x: float) -> str:
    return repr(float(x))  # shortest text that reads back to the same float


def _unique(make: Callable[[int], str], n: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    i = 0
    while len(out) < n:
        v = make(i)
        i += 1
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def _binary(rng: np.random.Generator, n: int) -> list[int]:
    y = [int(v) for v in rng.integers(0, 2, size=n)]
    y[0], y[-1] = 0, 1
    return y


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] *= -1
    return q


# --- CSV tasks: rows in the header's column order (plus aux columns at the end) --------------


def _mlsp(rng: np.random.Generator, n: int) -> Rows:
    ys = _binary(rng, n)
    return [[str((1 + i // 19) * 100 + i % 19), str(y)] for i, y in enumerate(ys)]


def _speech(rng: np.random.Generator, n: int) -> Rows:
    names = _unique(lambda i: f"clip_{_hex(rng, 9)}.wav", n)
    labels = [SPEECH_LABELS[i % len(SPEECH_LABELS)] for i in range(n)]
    return [[f, lab] for f, lab in zip(names, rng.permutation(labels), strict=True)]


def _cornell(rng: np.random.Generator, n: int) -> Rows:
    rows = []
    for i in range(n):
        k = int(rng.integers(0, 3))
        birds = " ".join(rng.choice(BIRDS, size=k, replace=False)) if k else "nocall"
        rows.append([f"site_{1 + i % 3}_{_hex(rng, 5)}_{5 * (i + 1)}", birds])
    return rows


def _denoising(rng: np.random.Generator, n: int) -> Rows:
    return [[f"{1 + i // 64}_{1 + (i // 8) % 8}_{1 + i % 8}", _f(round(rng.random(), 4))]
            for i in range(n)]


def _statoil(rng: np.random.Generator, n: int) -> Rows:
    ids = _unique(lambda i: _hex(rng, 8), n)
    return [[i, str(y)] for i, y in zip(ids, _binary(rng, n), strict=True)]


def _image_matching(rng: np.random.Generator, n: int) -> Rows:
    rows = []
    for i in range(n):
        pose = [*_rotation(rng).ravel(), *rng.normal(0, 3, size=3)]
        rows.append([f"img_{i:05d}", *(_f(v) for v in pose)])
    return rows


def _gesture(rng: np.random.Generator, n: int) -> Rows:
    return [[f"{300 + i:04d}", " ".join(str(int(g)) for g in rng.integers(1, 21, size=int(rng.integers(1, 10))))]
            for i in range(n)]


def _planttraits(rng: np.random.Generator, n: int) -> Rows:
    ids = _unique(lambda i: str(int(rng.integers(10_000, 200_000_000))), n)
    return [[i, *(_f(round(v, 5)) for v in rng.lognormal(0, 1, size=6))] for i in ids]


def _taxi(rng: np.random.Generator, n: int) -> Rows:
    keys = _unique(
        lambda i: f"2015-0{1 + i % 9}-{10 + i % 18} 1{i % 10}:0{i % 6}:2{i % 10}.{int(rng.integers(1, 10**7)):07d}",
        n,
    )
    return [[k, f"{rng.uniform(2.5, 80):.2f}"] for k in keys]


def _mushrooms(rng: np.random.Generator, n: int) -> Rows:
    return [[str(3116945 + i), "ep"[y]] for i, y in enumerate(_binary(rng, n))]


def _covid(rng: np.random.Generator, n: int) -> Rows:
    length, scored_positions = 10, 7
    rows = []
    n_seq = max(1, -(-n // length))
    for _ in range(n_seq):
        seq = f"id_{_hex(rng, 9)}"
        for pos in range(length):
            scored = pos < scored_positions
            values = rng.normal(0.5, 0.4, size=5) if scored else np.zeros(5)
            rows.append([f"{seq}_{pos}", *(_f(round(v, 6)) for v in values),
                         "True" if scored else "False"])  # MLE-bench's `keep` column
    return rows[: max(n, scored_positions)]


def _text_normalization(rng: np.random.Generator, n: int) -> Rows:
    words = ["twenty one", "the", "one, two", 'say "hi"', "NA", "sil", "january first", "w w w"]
    return [[f"{i // 7}_{i % 7}", words[int(rng.integers(0, len(words)))]] for i in range(n)]


def _lmsys(rng: np.random.Generator, n: int) -> Rows:
    ids = _unique(lambda i: str(int(rng.integers(30_000, 4_300_000_000))), n)
    winners = rng.integers(0, 3, size=n)
    return [[i, *("1" if w == j else "0" for j in range(3))] for i, w in zip(ids, winners, strict=True)]


def _eedi(rng: np.random.Generator, n: int) -> Rows:
    return [[f"{1869 + i // 3}_{'ABCD'[1 + i % 3]}", str(int(rng.integers(0, 2587)))] for i in range(n)]


CSV_MAKERS: dict[str, Callable[[np.random.Generator, int], Rows]] = {
    "kaggle/mlsp-2013-birds": _mlsp,
    "kaggle/tensorflow-speech-recognition-challenge": _speech,
    "kaggle/cornell-birdcall-identification": _cornell,
    "kaggle/denoising-dirty-documents": _denoising,
    "kaggle/statoil-iceberg-classifier-challenge": _statoil,
    "kaggle/image-matching-challenge-2024-hexathlon": _image_matching,
    "kaggle/multi-modal-gesture-recognition": _gesture,
    "kaggle/planttraits2024": _planttraits,
    "kaggle/new-york-city-taxi-fare-prediction": _taxi,
    "kaggle/binary-prediction-of-poisonous-mushrooms": _mushrooms,
    "kaggle/stanford-covid-vaccine": _covid,
    "kaggle/text-normalization-challenge-english-language": _text_normalization,
    "kaggle/lmsys-chatbot-arena": _lmsys,
    "kaggle/eedi-mining-misconceptions-in-mathematics": _eedi,
}


# --- JSON and text tasks --------------------------------------------------------------------


def _ind(rng: np.random.Generator, n: int) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    papers_left = max(n, 6)
    while papers_left > 0:
        k = min(papers_left, int(rng.integers(3, 9)))
        labels = [1, 0, *(int(v) for v in (rng.random(size=k - 2) < 0.8))][:k] if k >= 2 else [1]
        out[_hex(rng, 8)] = {_hex(rng, 12): lab for lab in rng.permutation(labels).tolist()}
        papers_left -= k
    return out


def _pst(rng: np.random.Generator, n: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for _ in range(max(1, n // 5)):
        m = int(rng.integers(3, 15))
        labels = [1, *(int(v) for v in (rng.random(size=m - 1) < 0.2))]
        out[_hex(rng, 24)] = [int(v) for v in rng.permutation(labels)]
    return out


def _aqa(rng: np.random.Generator, n: int) -> list[str]:
    return [",".join(_hex(rng, 24) for _ in range(int(rng.integers(1, 6)))) for _ in range(n)]


def _nextproduct(rng: np.random.Generator, n: int) -> list[str]:
    alnum = list(string.ascii_uppercase + string.digits)
    return ["B0" + "".join(rng.choice(alnum, size=8)) for _ in range(n)]


DOC_MAKERS: dict[str, Callable[[np.random.Generator, int], Any]] = {
    "biendata/ind": _ind,
    "biendata/pst": _pst,
    "biendata/aqa": _aqa,
    "aicrowd/nextproductprediction": _nextproduct,
}

LITE_TASK_IDS = sorted([*CSV_MAKERS, *DOC_MAKERS])


def answers_header(spec: TaskSpec) -> list[str]:
    """The answers' CSV header: the submission header plus the auxiliary columns and the
    scored-row flag (under its first spelling: MLE-bench's)."""
    g = spec.grading
    assert g is not None
    aux = list(get_metric(g.metric).aux_columns(g.metric_params).values())
    rule = g.scored_rows
    if rule is not None and rule.rule == "where":
        aux.append(rule.column if isinstance(rule.column, str) else rule.column[0])
    return [*g.submission_header, *aux]


def _write_csv(path: Path, header: list[str], rows: Rows) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def make_answers(spec: TaskSpec, tmp_dir: Path, n_rows: int = 60, seed: int = 0) -> Path:
    """Write synthetic private answers for a Lite task; returns the file's path."""
    g = spec.grading
    assert g is not None, f"{spec.id} has no grading spec"
    rng = np.random.default_rng(seed)
    path = Path(tmp_dir) / g.answers_file
    if spec.id in CSV_MAKERS:
        _write_csv(path, answers_header(spec), CSV_MAKERS[spec.id](rng, n_rows))
    elif g.submission_format == SubmissionFormat.JSON:
        path.write_text(json.dumps(DOC_MAKERS[spec.id](rng, n_rows), indent=1), encoding="utf-8")
    else:
        path.write_text("\n".join(DOC_MAKERS[spec.id](rng, n_rows)) + "\n", encoding="utf-8")
    return path


def _scramble(value: str, taken: set[str], rng: np.random.Generator) -> str:
    chars = list(value)
    for _ in range(20):
        cand = "".join(rng.permutation(chars)) if len(chars) > 1 else value
        if cand not in taken:
            return cand
    return value + "~"  # no permutation avoids every answer id: still never an answer id


def make_submission_from_answers(
    spec: TaskSpec,
    answers_path: Path,
    out_path: Path,
    shuffle_rows: bool = False,
    shuffle_ids: bool = False,
    seed: int = 1,
) -> Path:
    """Turn answers into a submission file of the task's format.

    ``shuffle_rows`` reorders CSV rows or JSON keys (the score must not change). For text-line
    tasks, lines are keyed by position, so ``shuffle_rows`` leaves them alone.
    ``shuffle_ids`` scrambles every id (the characters of each id permuted so that it matches
    no answer id; same row count): the grader must reject the file. Text-line tasks have no
    ids: their lines are permuted instead, which moves every prediction to another question.
    """
    g = spec.grading
    assert g is not None
    rng = np.random.default_rng(seed)
    out_path = Path(out_path)
    text = Path(answers_path).read_text(encoding="utf-8")
    if g.submission_format == SubmissionFormat.JSON:
        doc = json.loads(text)
        keys = list(doc)
        if shuffle_rows:
            keys = [keys[i] for i in rng.permutation(len(keys))]
        taken = set(doc)
        names = {k: (_scramble(k, taken, rng) if shuffle_ids else k) for k in keys}
        out_path.write_text(json.dumps({names[k]: doc[k] for k in keys}), encoding="utf-8")
        return out_path
    if g.submission_format == SubmissionFormat.TXT:
        lines = text.splitlines()
        if shuffle_ids:
            order = rng.permutation(len(lines))
            if len(lines) > 1 and (order == np.arange(len(lines))).all():
                order = np.roll(order, 1)
            lines = [lines[i] for i in order]
        out_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return out_path
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    cols = [header.index(c) for c in g.submission_header]
    body = [[r[c] for c in cols] for r in body]
    if shuffle_rows:
        body = [body[i] for i in rng.permutation(len(body))]
    if shuffle_ids:
        id_pos = g.submission_header.index(g.id_columns[0])
        taken = {r[id_pos] for r in body}
        for r in body:
            r[id_pos] = _scramble(r[id_pos], taken, rng)
    _write_csv(out_path, g.submission_header, body)
    return out_path


def read_answers(spec: TaskSpec, path: Path) -> tuple[Any, dict[str, Any]]:
    """Answers as a metric receives them (calling contract): (y_true, auxiliary arrays)."""
    g = spec.grading
    assert g is not None
    metric = get_metric(g.metric)
    text = Path(path).read_text(encoding="utf-8")
    if g.submission_format == SubmissionFormat.JSON:
        return json.loads(text), {}
    if g.submission_format == SubmissionFormat.TXT:
        return text.splitlines(), {}
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    numeric = metric.kind in {"value", "probability"}

    def column(name: str, as_float: bool) -> np.ndarray:
        j = header.index(name)
        vals = [r[j] for r in body]
        return np.array(vals, dtype=np.float64) if as_float else np.array(vals, dtype=object)

    cols = [column(c, numeric) for c in g.target_columns]
    y_true = cols[0] if len(cols) == 1 else np.column_stack(cols)
    aux = {k: column(c, False) for k, c in metric.aux_columns(g.metric_params).items()}
    return y_true, aux
