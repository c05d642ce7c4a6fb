"""A baseline agent of the demo, run by ``tambench run`` inside the sandbox.

The demo copies this file into an MLE-bench-style agent folder (``agent.py`` beside
``start.sh``, ``config.yaml`` and ``tasks.json``); it imports nothing of tambench. It reads the
task's public files from ``$DATA_DIR``, fits ``$DEMO_MODEL`` (``constant``, ``linear``,
``forest``; ``careless`` breaks the rules on purpose) on the training table (a bootstrap sample
for seeds above 0), writes ``$SUBMISSION_DIR/submission.csv`` and copies itself to
``$CODE_DIR/best_solution.py`` as its solution code. ``tasks.json`` says, per task id, the id
and target columns, the kind of prediction the task's metric scores (``value``,
``probability``, ``label``) and the task's slug.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any


def _read(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def _estimator(model: str, kind: str, seed: int) -> Any:
    from sklearn.dummy import DummyClassifier, DummyRegressor
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "value":
        return {"constant": DummyRegressor(strategy="mean"),
                "linear": make_pipeline(StandardScaler(), Ridge(alpha=1.0)),
                "forest": RandomForestRegressor(n_estimators=200, random_state=seed)}[model]
    return {"constant": DummyClassifier(strategy="prior"),
            "linear": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
            "forest": RandomForestClassifier(n_estimators=200, random_state=seed)}[model]


def predict(data: Path, task: dict[str, Any], model: str, seed: int) -> tuple[list[str], list[str]]:
    """(test ids, predictions as text) of ``model`` fitted on the public training table."""
    import numpy as np

    head, train = _read(data / "train.csv")
    test_head, test = _read(data / "test.csv")
    id_col, target, kind = task["id"], task["target"], task["kind"]
    features = [c for c in head if c not in (id_col, *task["targets"])]
    x_train = np.array([[float(r[head.index(c)]) for c in features] for r in train])
    x_test = np.array([[float(r[test_head.index(c)]) for c in features] for r in test])
    y_train = [r[head.index(target)] for r in train]
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(y_train), len(y_train)) if seed else np.arange(len(y_train))
    x_fit, y_fit = x_train[rows], [y_train[i] for i in rows]
    est = _estimator(model, kind, seed)
    ids = [r[test_head.index(id_col)] for r in test]
    if kind == "value":
        est.fit(x_fit, np.array([float(v) for v in y_fit]))
        return ids, [repr(round(float(v), 6)) for v in est.predict(x_test)]
    est.fit(x_fit, y_fit)
    if kind == "probability":
        positive = list(est.classes_).index("1")
        return ids, [repr(round(float(p), 6)) for p in est.predict_proba(x_test)[:, positive]]
    return ids, [str(v) for v in est.predict(x_test)]


def write(path: Path, header: list[str], ids: list[str], values: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(header)
        out.writerows(zip(ids, values, strict=True))


def careless(data: Path, task: dict[str, Any], out: Path) -> int:
    """Three kinds of broken runs, one per task, so the report shows what validation says."""
    header, _ = _read(data / "sample_submission.csv")
    ids, values = predict(data, task, "linear", 0)
    slot = sum(task["slug"].encode()) % 3
    if slot == 0:  # header in the wrong case
        write(out, [c.upper() for c in header], ids, values)
    elif slot == 1:  # three rows lost and one id duplicated in their place
        write(out, header, ids[3:] + ids[3:4], values[3:] + values[3:4])
    else:  # crashed before writing anything
        print("careless agent: crashed", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    data = Path(os.environ["DATA_DIR"])
    out = Path(os.environ["SUBMISSION_DIR"]) / "submission.csv"
    tasks = json.loads((Path(os.environ["AGENT_DIR"]) / "tasks.json").read_text())
    task = tasks[os.environ["TAMBENCH_TASK"]]
    model = os.environ["DEMO_MODEL"]
    if model == "careless":
        return careless(data, task, out)
    header, _ = _read(data / "sample_submission.csv")
    ids, values = predict(data, task, model, int(os.environ.get("TAMBENCH_SEED", "0")))
    write(out, header, ids, values)
    shutil.copy(__file__, Path(os.environ["CODE_DIR"]) / "best_solution.py")
    print(f"{model} model: {len(ids)} predictions written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
