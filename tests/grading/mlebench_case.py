"""A generated MLE-bench study: raw downloads of two competitions, their data prepared as
MLE-bench's ``prepare.py`` prepares it, a run group as MLE-bench's ``run_agent.py`` leaves it,
and the ``submissions.jsonl`` MLE-bench's ``experiments/make_submission.py`` writes from it.

Everything is a function of fixed seeds. The prepared data here is written as MLE-bench's
``prepare.py`` of each competition writes it (``train_test_split(old_train, test_size=0.1,
random_state=0)``, the answers being the test rows); that it holds the very rows MLE-bench's
own ``prepare.py`` writes was checked by running MLE-bench's ``prepare.py`` (openai/mle-bench
at 783b15a) on :func:`write_raw`'s files beside it.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from sklearn.model_selection import train_test_split

SPACESHIP = "spaceship-titanic"
VOLCANO = "predict-volcanic-eruptions-ingv-oe"
#: The run group's name, as run_agent.py spells it (a timestamp, then the agent).
RUN_GROUP = "2025-01-02T03-04-05-GMT_run-group_dummy"


def _spaceship_rows(n: int) -> list[dict[str, str]]:
    rng = random.Random(36)
    rows = []
    for i in range(n):
        rows.append({
            "PassengerId": f"{i // 2 + 1:04d}_{i % 2 + 1:02d}",
            "HomePlanet": rng.choice(["Earth", "Europa", "Mars"]),
            "Age": str(rng.randint(1, 80)),
            "Transported": rng.choice(["True", "False"]),
        })
    return rows


def _volcano_rows(n: int) -> list[dict[str, str]]:
    rng = random.Random(37)
    ids = rng.sample(range(10**6, 2 * 10**9), n)
    return [{"segment_id": str(i), "time_to_eruption": str(rng.randint(10**5, 5 * 10**7))}
            for i in ids]


def _write(path: Path, rows: list[dict[str, str]], columns: list[str] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = columns or list(rows[0])
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        w.writerows([r[c] for c in cols] for r in rows)


def write_raw(root: Path) -> dict[str, list[dict[str, str]]]:
    """The two downloads' train.csv files (``<root>/<competition>/raw/train.csv``); the
    volcano's per-segment files are one line each."""
    raws = {SPACESHIP: _spaceship_rows(400), VOLCANO: _volcano_rows(300)}
    for comp, rows in raws.items():
        _write(root / comp / "raw" / "train.csv", rows)
    (root / VOLCANO / "raw" / "train").mkdir()
    for r in raws[VOLCANO]:
        (root / VOLCANO / "raw" / "train" / f"{r['segment_id']}.csv").write_text("sensor_1\n0\n")
    return raws


def write_prepared(data: Path) -> dict[str, list[dict[str, str]]]:
    """MLE-bench's prepared folders of both competitions (``<data>/<competition>/prepared/``):
    the test rows are ``train_test_split(rows, test_size=0.1, random_state=0)``'s, in its
    order; returns each competition's answers rows."""
    answers = {}
    for comp, rows in {SPACESHIP: _spaceship_rows(400), VOLCANO: _volcano_rows(300)}.items():
        target = "Transported" if comp == SPACESHIP else "time_to_eruption"
        ident = "PassengerId" if comp == SPACESHIP else "segment_id"
        train, test = train_test_split(rows, test_size=0.1, random_state=0)
        prepared = data / comp / "prepared"
        _write(prepared / "private" / "test.csv", test)
        _write(prepared / "public" / "train.csv", train)
        if comp == SPACESHIP:  # the volcano's prepare.py writes no public test.csv
            _write(prepared / "public" / "test.csv", test, [c for c in rows[0] if c != target])
        _write(prepared / "public" / "sample_submission.csv",
               [{ident: r[ident], target: "False" if comp == SPACESHIP else "0"} for r in test])
        answers[comp] = test
    return answers


def _spaceship_predictions(answers: list[dict[str, str]], wrong: int) -> list[dict[str, str]]:
    flip = {"True": "False", "False": "True"}
    return [{"PassengerId": r["PassengerId"],
             "Transported": flip[r["Transported"]] if i < wrong else r["Transported"]}
            for i, r in enumerate(answers)]


def _volcano_predictions(answers: list[dict[str, str]], spread: int) -> list[dict[str, str]]:
    """Predictions off by whole multiples of the 30 test rows, so that their mean absolute
    error is a whole number: MLE-bench's grader of this competition rounds the error to a
    whole number (its own departure from Kaggle's rule), tambench does not."""
    rng = random.Random(38)
    step = len(answers)
    return [{"segment_id": r["segment_id"], "time_to_eruption":
             f"{int(r['time_to_eruption']) + step * rng.randint(-spread, spread)}.0"}
            for r in answers]


def write_run_group(runs: Path, answers: dict[str, list[dict[str, str]]]) -> Path:
    """A run group of six runs (``<runs>/<group>/<competition>_<uuid>/submission/``) and its
    metadata.json; returns the group's folder. The runs: spaceship perfect, spaceship with 9 of
    40 predictions wrong, spaceship without a submission, spaceship perfect with an extra
    column, the volcano off by up to 6e6 and by up to 3e7, the volcano missing half its
    rows (their submissions are read and written as MLE-bench's would be)."""
    group = runs / RUN_GROUP
    space, volcano = answers[SPACESHIP], answers[VOLCANO]
    extra = [{**r, "note": "x"} for r in _spaceship_predictions(space, 0)]
    subs: list[tuple[str, list[dict[str, str]] | None]] = [
        (SPACESHIP, _spaceship_predictions(space, 0)),
        (SPACESHIP, _spaceship_predictions(space, 9)),
        (SPACESHIP, None),
        (SPACESHIP, extra),
        (VOLCANO, _volcano_predictions(volcano, 200_000)),
        (VOLCANO, _volcano_predictions(volcano, 1_000_000)),
        (VOLCANO, _volcano_predictions(volcano, 200_000)[: len(volcano) // 2]),
    ]
    run_ids = []
    for i, (comp, rows) in enumerate(subs):
        run_id = f"{comp}_{i + 1:08x}-0000-4000-8000-{i + 1:012x}"
        (group / run_id / "submission").mkdir(parents=True)
        (group / run_id / "logs").mkdir()
        if rows is not None:
            _write(group / run_id / "submission" / "submission.csv", rows)
        run_ids.append(run_id)
    metadata = {"run_group": RUN_GROUP, "created_at": "2025-01-02T03-04-05-GMT",
                "runs": {r: {"success": True} for r in run_ids}}
    (group / "metadata.json").write_text(json.dumps(metadata, indent=4))
    return group


def make_submission_jsonl(metadata: Path, output: Path) -> None:
    """What ``python experiments/make_submission.py --metadata METADATA --output OUTPUT``
    writes: one line per run of metadata.json, the competition id being the run id up to its
    first underscore, the path ``metadata.parent / run_id / "submission/submission.csv"``
    (relative when ``metadata`` is) or null when there is no such file."""
    lines = []
    for run_id in json.loads(metadata.read_text())["runs"]:
        run_dir = metadata.parent / run_id
        sub = run_dir / "submission/submission.csv"
        log, code = run_dir / "logs/agent.log", run_dir / "code/train.py"
        lines.append({"competition_id": run_id.split("_")[0],
                      "submission_path": sub.as_posix() if sub.exists() else None,
                      "logs_path": log.as_posix() if log.exists() else None,
                      "code_path": code.as_posix() if code.exists() else None})
    output.write_text("".join(f"{json.dumps(line)}\n" for line in lines))


CACTUS = "aerial-cactus-identification"


def write_cactus_raw(raw: Path) -> None:
    """A generated aerial-cactus download: train.csv (``id`` an image file name, ``has_cactus``)
    and one small file per image under ``train/`` (MLE-bench's download zips that folder as
    train.zip; its prepare.py extracts it)."""
    rng = random.Random(39)
    rows = [{"id": f"{rng.getrandbits(64):016x}.jpg", "has_cactus": str(rng.randint(0, 1))}
            for _ in range(250)]
    _write(raw / "train.csv", rows)
    (raw / "train").mkdir()
    for r in rows:
        (raw / "train" / r["id"]).write_bytes(r["id"].encode())
