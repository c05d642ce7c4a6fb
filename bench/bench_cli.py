"""Whole-process grading speed, as a user feels it: ``tambench grade`` against ``mlebench``.

Every figure is the wall time of a fresh process from the command line (interpreter start-up,
imports, parsing, checks, the metric, the report), best of ``--repeat`` runs, on the same
files for both tools. The workloads follow MLE-bench competitions, with answers files in the
layout MLE-bench's preparers write and ours read as they are:

=========  =============================================  ==================================
workload   MLE-bench competition                          size (``--scale 1``)
=========  =============================================  ==================================
accuracy   spaceship-titanic (accuracy)                   1M rows, 14 answers columns
auc        random-acts-of-pizza (ROC-AUC)                 1M rows
logloss    leaf-classification (multiclass log loss)      100k rows x 99 classes
rmse       new-york-city-taxi-fare-prediction (RMSE)      10M rows, 8 answers columns (1 GB)
masks      tgs-salt-identification-challenge (IoU mAP)    18,000 run-length masks, 101x101
text       text-normalization-challenge-english (exact)   1M rows
levenshtein bms-molecular-translation (mean edit distance) 1M InChI strings
batch      five of the above, 40 submissions each     200 submissions (grade-runs /
                                                          ``mlebench grade``)
startup    ``tambench grade`` on a 3-row file             imports measured by -X importtime
=========  =============================================  ==================================

The batch is timed twice for tambench: ``grade-runs submissions.jsonl --output-dir DIR``
writes what ``mlebench grade --submission submissions.jsonl --output-dir DIR`` writes (one
JSON grading report), the like-for-like figure; ``--out DIR`` writes the whole report set
(grades.json, grades.csv, report.html with its figures, manifest). The leaf-classification
submissions carry the competition's 99 species names (``data/leaf_classification_header.csv``)
so that MLE-bench grades them too.

MLE-bench is optional: ``--mlebench PATH`` names its ``mlebench`` executable (installed from
its repository into a separate environment). Without it, the reference column holds the
figures measured side by side earlier (``REFERENCE``). The load average is printed with each
figure; on a loaded 2-core machine timings vary by 30% or more.

Usage::

    python bench/bench_cli.py --scale 0.1                      # quick
    python bench/bench_cli.py --mlebench /path/to/bin/mlebench # full, side by side
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

REPO = Path(__file__).resolve().parents[1]
#: The ``tambench`` command as a user runs it: the console script installed beside this
#: interpreter (as ``mlebench`` is run), else the module (``python -m``: runpy adds ~25 ms).
_SCRIPT = Path(sys.executable).parent / "tambench"
TAMBENCH = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "tambench.cli.main"]

#: MLE-bench's whole-process times (seconds) measured side by side on this kind of machine
#: (batch: the competition's leaf species, bytecode cached, load about 1).
REFERENCE = {"accuracy": 5.8, "auc": 4.3, "logloss": 5.9, "rmse": 86.0, "masks": 9.6,
             "text": 4.05, "batch": 9.6, "levenshtein": float("nan")}


def load() -> float:
    return os.getloadavg()[0]


# --- data --------------------------------------------------------------------------------------


@dataclass
class Workload:
    """One competition's answers and submission, in MLE-bench's layout and our task layout."""

    name: str
    competition: str
    answers_name: str
    spec: dict[str, Any]
    make: Callable[[int, np.random.Generator], tuple[dict[str, Any], dict[str, Any]]]
    rows: int
    files: dict[str, Path] = field(default_factory=dict)


def _ids(prefix: str, n: int, rng: np.random.Generator) -> np.ndarray:
    return np.array([f"{prefix}{v:08d}" for v in rng.permutation(n)], dtype=object)


def _accuracy(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    ids = np.array([f"{v // 100:04d}_{v % 100:02d}" for v in rng.permutation(n)], dtype=object)
    truth = rng.random(n) < 0.5
    answers: dict[str, Any] = {"PassengerId": ids}
    for i, name in enumerate(["HomePlanet", "CryoSleep", "Cabin", "Destination", "Age", "VIP",
                              "RoomService", "FoodCourt", "ShoppingMall", "Spa", "VRDeck",
                              "Name"]):
        answers[name] = rng.integers(0, 1000, n).astype(str) if i % 2 else rng.random(n)
    answers["Transported"] = np.where(truth, "True", "False")
    pred = np.where(rng.random(n) < 0.8, truth, ~truth)
    return answers, {"PassengerId": ids, "Transported": np.where(pred, "True", "False")}


def _auc(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    ids = _ids("t3_", n, rng)
    truth = rng.random(n) < 0.25
    score = np.clip(truth * 0.3 + rng.random(n) * 0.7, 0, 1)
    return ({"request_id": ids, "requester_received_pizza": truth.astype(int)},
            {"request_id": ids, "requester_received_pizza": score})


#: The competition's sample-submission header (``id`` and its 99 species, as MLE-bench's
#: ``leaf-classification/classes.py`` lists them): MLE-bench's grader refuses other names.
LEAF_HEADER = Path(__file__).resolve().parent / "data" / "leaf_classification_header.csv"


def _classes(k: int) -> list[str]:
    """Leaf species names, the competition's own (both tools then grade every submission)."""
    names = LEAF_HEADER.read_text().strip().split(",")[1:]
    if len(names) != k:
        raise SystemExit(f"{LEAF_HEADER} lists {len(names)} species, not {k}")
    return names


def _logloss(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    k = 99
    ids = rng.permutation(n) + 1
    truth = rng.integers(0, k, n)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), truth] = 1.0
    probs = rng.random((n, k))
    probs[np.arange(n), truth] += 2.0
    probs /= probs.sum(axis=1, keepdims=True)
    names = _classes(k)
    return ({"id": ids, **{c: onehot[:, j] for j, c in enumerate(names)}},
            {"id": ids, **{c: probs[:, j] for j, c in enumerate(names)}})


def _rmse(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    keys = np.array([f"2015-01-{1 + v % 28:02d} 10:{v % 60:02d}:00.{v:07d}"
                     for v in rng.permutation(n)], dtype=object)
    fare = np.round(rng.gamma(2.0, 5.0, n), 2)
    answers = {"key": keys, "fare_amount": fare,
               "pickup_datetime": np.full(n, "2015-01-27 13:08:24 UTC", dtype=object),
               "pickup_longitude": rng.normal(-73.97, 0.04, n),
               "pickup_latitude": rng.normal(40.75, 0.03, n),
               "dropoff_longitude": rng.normal(-73.97, 0.04, n),
               "dropoff_latitude": rng.normal(40.75, 0.03, n),
               "passenger_count": rng.integers(1, 6, n)}
    return answers, {"key": keys, "fare_amount": fare + rng.normal(0, 2.0, n)}


def _rle(mask: np.ndarray) -> str:
    flat = np.concatenate([[0], mask.flatten(order="F"), [0]])
    edges = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    starts, ends = edges[::2], edges[1::2]
    return " ".join(f"{s} {e - s}" for s, e in zip(starts, ends, strict=True))


def _masks(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    # A letter first: pandas would read hex ids such as "00000001e5" as floats (MLE-bench
    # then mis-pairs rows); the point here is speed on files both tools read the same way.
    ids = np.array([f"m{v:09x}" for v in rng.permutation(n) * 7919], dtype=object)
    truths, preds = [], []
    yy, xx = np.mgrid[:101, :101]
    for _ in range(n):
        if rng.random() < 0.4:
            truths.append("")
            preds.append("" if rng.random() < 0.7 else _rle((xx < 10) & (yy < 10)))
            continue
        cy, cx, r = rng.integers(20, 80, 2).tolist() + [int(rng.integers(5, 30))]
        truth = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        shift = int(rng.integers(-4, 5))
        pred = (yy - cy - shift) ** 2 + (xx - cx) ** 2 < r * r
        truths.append(_rle(truth))
        preds.append(_rle(pred))
    return ({"id": ids, "rle_mask": np.array(truths, dtype=object)},
            {"id": ids, "rle_mask": np.array(preds, dtype=object)})


def _text(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    ids = np.array([f"{v // 20}_{v % 20}" for v in rng.permutation(n)], dtype=object)
    words = np.array(["the", "one hundred", "twenty three", "sil", "Mister", "a", "dollars",
                      "b c", "june first", "two thousand ten"], dtype=object)
    truth = words[rng.integers(0, len(words), n)]
    pred = np.where(rng.random(n) < 0.97, truth, words[rng.integers(0, len(words), n)])
    return {"id": ids, "after": truth}, {"id": ids, "after": pred}


def _inchi(n: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    """InChI-like strings of 40-80 characters; predictions with a few edits."""
    ids = np.array([f"{v:012x}" for v in rng.permutation(n) * 7919], dtype=object)
    alphabet = np.array(list("CHNOS0123456789()/,-+="))
    lengths = rng.integers(40, 80, n)
    chars = alphabet[rng.integers(0, len(alphabet), int(lengths.sum()))]
    cuts = np.cumsum(lengths)[:-1]
    truth = ["InChI=1S/" + "".join(part) for part in np.split(chars, cuts)]
    pred = []
    for t, k in zip(truth, rng.integers(0, 4, n).tolist(), strict=True):
        cells = list(t)
        for _ in range(k):
            at = int(rng.integers(9, len(cells)))
            cells[at] = "C"
        pred.append("".join(cells))
    return ({"image_id": ids, "InChI": np.array(truth, dtype=object)},
            {"image_id": ids, "InChI": np.array(pred, dtype=object)})


def workloads(scale: float) -> dict[str, Workload]:
    def rows(n: int) -> int:
        return max(100, int(n * scale))

    def spec(metric: str, id_col: str, targets: list[str], **params: Any) -> dict[str, Any]:
        return {"metric": metric, "id_columns": [id_col], "target_columns": targets,
                "submission_header": [id_col, *targets], "metric_params": params}

    return {w.name: w for w in [
        Workload("accuracy", "spaceship-titanic", "test.csv",
                 spec("accuracy", "PassengerId", ["Transported"]), _accuracy, rows(1_000_000)),
        Workload("auc", "random-acts-of-pizza", "test.csv",
                 spec("roc_auc", "request_id", ["requester_received_pizza"]), _auc,
                 rows(1_000_000)),
        Workload("logloss", "leaf-classification", "test.csv",
                 spec("multiclass_log_loss", "id", _classes(99)), _logloss, rows(100_000)),
        Workload("rmse", "new-york-city-taxi-fare-prediction", "test.csv",
                 spec("rmse", "key", ["fare_amount"]), _rmse, rows(10_000_000)),
        Workload("masks", "tgs-salt-identification-challenge", "test.csv",
                 spec("iou_thresholds_map", "id", ["rle_mask"]), _masks, rows(18_000)),
        Workload("text", "text-normalization-challenge-english-language", "answers.csv",
                 spec("exact_match", "id", ["after"]), _text, rows(1_000_000)),
        Workload("levenshtein", "bms-molecular-translation", "test.csv",
                 spec("levenshtein_mean", "image_id", ["InChI"]), _inchi, rows(1_000_000)),
    ]}


def write_table(path: Path, columns: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: pa.array(list(v) if isinstance(v, np.ndarray) and v.dtype == object else v)
              for k, v in columns.items()}
    pacsv.write_csv(pa.table(arrays), path,
                    write_options=pacsv.WriteOptions(quoting_style="needed"))


#: A folder of ``<competition>/leaderboard.csv`` (MLE-bench's competitions folder), set by
#: ``--leaderboards``: both tools then rank on the same board.
LEADERBOARDS: Path | None = None


def materialise(w: Workload, root: Path, seed: int, tag: str = "") -> dict[str, Path]:
    """Answers in MLE-bench's data dir (hard-linked into ours), our task.json, a submission."""
    rng = np.random.default_rng(seed)
    answers, submission = w.make(w.rows, rng)
    mle_answers = root / "mle-data" / w.competition / "prepared" / "private" / w.answers_name
    if not mle_answers.exists():
        write_table(mle_answers, answers)
        ours = root / "data" / "kaggle" / w.competition / "private" / "answers.csv"
        ours.parent.mkdir(parents=True, exist_ok=True)
        os.link(mle_answers, ours)
        task = {"id": f"kaggle/{w.competition}", "platform": "kaggle", "grading": w.spec}
        task_file = root / "catalogue" / "kaggle" / w.competition / "task.json"
        task_file.parent.mkdir(parents=True, exist_ok=True)
        task_file.write_text(json.dumps(task))
        board = LEADERBOARDS / w.competition / "leaderboard.csv" if LEADERBOARDS else None
        if board is not None and board.is_file() and not board.read_bytes().startswith(
                b"version https://git-lfs"):  # a Git LFS pointer is not the board
            shutil.copyfile(board, task_file.parent / "leaderboard.csv")
    sub = root / "subs" / f"{w.name}{tag}.csv"
    write_table(sub, submission)
    return {"answers": mle_answers, "submission": sub}


# --- running -----------------------------------------------------------------------------------


#: Where both tools' compiled bytecode is kept between runs (set by ``main``). A user's
#: installed package has its ``.pyc`` files; an environment with PYTHONDONTWRITEBYTECODE set
#: would otherwise compile every module of both tools on every run.
PYCACHE: Path | None = None


def child_env() -> dict[str, str]:
    """The environment of every timed command: bytecode cached in :data:`PYCACHE`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if PYCACHE is not None:
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=child_env())
    return time.perf_counter() - t0, proc


def best(cmd: list[str], repeat: int, cwd: Path | None = None) -> tuple[float, str, str]:
    times, out, err = [], "", ""
    for _ in range(repeat):
        dt, proc = timed(cmd, cwd)
        if proc.returncode not in (0, 3):
            raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
        times.append(dt)
        out, err = proc.stdout, proc.stderr
    return min(times), out, err


def best_side_by_side(cmds: list[list[str]], repeat: int,
                      cwd: Path | None = None) -> list[float]:
    """Best of ``repeat`` runs of each command, the commands taking turns (a, b, c, a, b, c,
    ...), so that all of them see the same load as it drifts; after one untimed run of each
    (bytecode compiled, files in the page cache)."""
    for cmd in cmds:
        best(cmd, 1, cwd)
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeat):
        for cmd, kept in zip(cmds, times, strict=True):
            kept.append(best(cmd, 1, cwd)[0])
    return [min(t) for t in times]


def ours_score(stdout: str) -> float | None:
    doc = json.loads(stdout)
    return doc.get("score")


def mlebench_score(stderr: str) -> float | None:
    match = re.search(r'"score":\s*([-0-9.eE]+|null|NaN)', stderr)
    if not match or match.group(1) in {"null", "NaN"}:
        return None
    return float(match.group(1))


def grade_one(w: Workload, root: Path, repeat: int, mlebench: str | None) -> dict[str, Any]:
    sub = w.files["submission"]
    ours_cmd = [*TAMBENCH, "grade", str(sub), "--task", f"kaggle/{w.competition}",
                "--catalogue", str(root / "catalogue"), "--data-dir", str(root / "data"), "--json"]
    before = load()
    t_ours, out, _ = best(ours_cmd, repeat)
    row: dict[str, Any] = {"workload": w.name, "rows": w.rows, "tambench_s": round(t_ours, 3),
                           "tambench_score": ours_score(out), "load_before": round(before, 2)}
    if mlebench:
        t_ref, _, err = best([mlebench, "grade-sample", str(sub), w.competition,
                              "--data-dir", str(root / "mle-data")], repeat, cwd=root)
        row.update(mlebench_s=round(t_ref, 3), mlebench_score=mlebench_score(err),
                   reference="measured")
    else:
        row.update(mlebench_s=REFERENCE[w.name], mlebench_score=None, reference="recorded")
    row["speedup"] = round(row["mlebench_s"] / t_ours, 1)
    row["load_after"] = round(load(), 2)
    return row


def _batch_files(root: Path, scale: float) -> Path:
    """200 submissions over five competitions (40 each) and MLE-bench's submissions.jsonl."""
    small = workloads(scale * 0.01)
    lines = []
    for name in ("accuracy", "auc", "logloss", "masks", "text"):
        w = small[name]
        w.files = materialise(w, root / "batch", seed=7)
        for i in range(40):
            sub = root / "batch" / "subs" / f"{name}_{i}.csv"
            if i == 0:
                sub = w.files["submission"]
            else:
                shutil.copyfile(w.files["submission"], sub)
            lines.append(json.dumps({"competition_id": w.competition, "submission_path": str(sub)}))
    jsonl = root / "batch" / "submissions.jsonl"
    jsonl.write_text("\n".join(lines) + "\n")
    return jsonl


def _valid_counts(batch: Path) -> dict[str, Any]:
    """Valid submissions in each tool's last report (both must grade the same runs)."""
    ours = json.loads((batch / "out" / "grades.json").read_text())
    out: dict[str, Any] = {"tambench_valid": sum(r["status"] == "graded_valid"
                                                 for r in ours["rows"])}
    mle = sorted((batch / "mle-out").glob("*_grading_report.json"))
    if mle:
        out["mlebench_valid"] = json.loads(mle[-1].read_text())["total_valid_submissions"]
    return out


def grade_batch(ws: dict[str, Workload], root: Path, scale: float, repeat: int,
                mlebench: str | None) -> dict[str, Any]:
    """200 submissions over five competitions: MLE-bench's submissions.jsonl read by both.

    Two tambench figures: ``tambench_s`` writes what ``mlebench grade`` writes, one JSON
    grading report (``--output-dir``); ``tambench_report_set_s`` writes the whole report set
    (``--out``: grades.json, grades.csv, report.html with its figures, manifest)."""
    jsonl = _batch_files(root, scale)
    batch = root / "batch"
    where = ["--catalogue", str(batch / "catalogue"), "--data-dir", str(batch / "data")]
    cmds = [[*TAMBENCH, "grade-runs", str(jsonl), *where, "--output-dir", str(batch / "ours-mle")],
            [*TAMBENCH, "grade-runs", str(jsonl), *where, "--out", str(batch / "out"), "--json"]]
    if mlebench:  # alternating runs, best of each: every command sees the same load
        cmds.append([mlebench, "grade", "--submission", str(jsonl), "--output-dir",
                     str(batch / "mle-out"), "--data-dir", str(batch / "mle-data")])
    before = load()
    times = best_side_by_side(cmds, repeat, cwd=root)
    row: dict[str, Any] = {"workload": "batch", "rows": 200, "tambench_s": round(times[0], 3),
                           "tambench_report_set_s": round(times[1], 3),
                           "load_before": round(before, 2)}
    if mlebench:
        row.update(mlebench_s=round(times[2], 3), reference="measured")
    else:
        row.update(mlebench_s=REFERENCE["batch"], reference="recorded")
    row["speedup"] = round(row["mlebench_s"] / times[0], 1)
    row["speedup_report_set"] = round(row["mlebench_s"] / times[1], 1)
    row.update(_valid_counts(batch))
    row["load_after"] = round(load(), 2)
    return row


def startup(root: Path, repeat: int) -> dict[str, Any]:
    """Imports of ``tambench grade`` on a 3-row file (-X importtime), and its wall time."""
    tiny = root / "tiny"
    tiny.mkdir(exist_ok=True)
    (tiny / "answers.csv").write_text("id,y\n1,0.5\n2,0.7\n3,0.1\n")
    (tiny / "sub.csv").write_text("id,y\n1,0.5\n2,0.6\n3,0.2\n")
    args = ["grade", "sub.csv", "--answers", "answers.csv", "--metric", "rmse",
            "--id-column", "id", "--target-column", "y"]
    imports, walls = [], []
    for _ in range(repeat):
        dt, proc = timed([sys.executable, "-X", "importtime", "-m", "tambench.cli.main", *args],
                         tiny)
        total = 0
        for line in proc.stderr.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$", line)
            if m and not m.group(2).startswith((" ",)):
                total += int(m.group(1))
        imports.append(total / 1e6)
        walls.append(timed([*TAMBENCH, *args], tiny)[0])
    return {"workload": "startup", "imports_s": round(min(imports), 3),
            "wall_s": round(min(walls), 3), "load": round(load(), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every row count")
    ap.add_argument("--repeat", type=int, default=3, help="runs per command (best kept)")
    ap.add_argument("--only",
                    default="startup,accuracy,auc,logloss,rmse,masks,text,levenshtein,batch")
    ap.add_argument("--mlebench", default=None, help="path of the mlebench executable")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument("--leaderboards", type=Path, default=None,
                    help="folder of <competition>/leaderboard.csv (MLE-bench's competitions "
                         "folder, its boards fetched): both tools rank on them")
    args = ap.parse_args()
    global LEADERBOARDS, PYCACHE
    LEADERBOARDS = args.leaderboards
    only = args.only.split(",")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench_cli_"))
    root.mkdir(parents=True, exist_ok=True)
    PYCACHE = root / "pycache"
    rows: list[dict[str, Any]] = []
    try:
        if "startup" in only:
            rows.append(startup(root, max(args.repeat, 5)))
            print(json.dumps(rows[-1]), flush=True)
        ws = workloads(args.scale)
        for name, w in ws.items():
            if name not in only:
                continue
            w.files = materialise(w, root, seed=sorted(ws).index(name))
            rows.append(grade_one(w, root, args.repeat, args.mlebench))
            print(json.dumps(rows[-1]), flush=True)
            w.files["submission"].unlink()
        if "batch" in only:
            rows.append(grade_batch(ws, root, args.scale, args.repeat, args.mlebench))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
