"""Data generators for split tests: real-shaped tables, files, series and groups, made at test time."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from tambench.schema.taskspec import TaskSpec


def make_spec(slug: str, split: dict[str, Any], *, metric: str = "accuracy",
              targets: tuple[str, ...] = ("label",), id_col: str = "id",
              grading: dict[str, Any] | None = None) -> TaskSpec:
    g = {"metric": metric, "id_columns": [id_col], "target_columns": list(targets)}
    g.update(grading or {})
    return TaskSpec.model_validate({
        "id": f"kaggle/{slug}", "platform": "kaggle", "grading": g,
        "split": {"id_column": id_col, **split},
    })


def tabular(raw: Path, n: int = 1200, seed: int = 0, n_classes: int = 3) -> pl.DataFrame:
    """A customer-churn-like table: string ids with leading zeros, numbers, a class label."""
    rng = np.random.default_rng(seed)
    df = pl.DataFrame({
        "id": [f"{i:06d}" for i in range(n)],
        "age": rng.integers(18, 90, n).astype(str),
        "income": [f"{v:.2f}" for v in rng.lognormal(10, 1, n)],
        "city": rng.choice(["paris", "lyon", "nice", "lille"], n),
        "label": rng.choice([f"c{k}" for k in range(n_classes)], n, p=None),
    })
    raw.mkdir(parents=True, exist_ok=True)
    df.write_csv(raw / "train.csv")
    return df


def grouped(raw: Path, n_patients: int = 60, per: int = 20, seed: int = 1) -> pl.DataFrame:
    """Several recordings per patient; the patient must not cross the split."""
    rng = np.random.default_rng(seed)
    n = n_patients * per
    df = pl.DataFrame({
        "id": [f"rec{i}" for i in range(n)],
        "patient": [f"p{i // per:03d}" for i in range(n)],
        "signal": [f"{v:.4f}" for v in rng.normal(size=n)],
        "label": rng.integers(0, 2, n).astype(str),
    })
    raw.mkdir(parents=True, exist_ok=True)
    df.write_csv(raw / "train.csv")
    return df


def time_series(raw: Path, n_days: int = 60, n_stores: int = 10, seed: int = 2) -> pl.DataFrame:
    """Daily sales per store."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_days):
        day = np.datetime64("2021-01-01") + np.timedelta64(d, "D")
        for s in range(n_stores):
            rows.append((f"{s}_{d}", str(day), f"s{s}", f"{rng.poisson(20) + d * 0.1:.1f}"))
    df = pl.DataFrame(rows, schema=["id", "date", "store", "sales"], orient="row")
    raw.mkdir(parents=True, exist_ok=True)
    df.write_csv(raw / "train.csv")
    return df


def images(raw: Path, n: int = 150, seed: int = 3) -> pl.DataFrame:
    """Small image-like files named by id, labels in a table."""
    rng = np.random.default_rng(seed)
    (raw / "images").mkdir(parents=True, exist_ok=True)
    ids = [f"img{i:04d}" for i in range(n)]
    for i in ids:
        (raw / "images" / f"{i}.png").write_bytes(b"\x89PNG" + rng.bytes(64))
    df = pl.DataFrame({"id": ids, "label": rng.choice(["cat", "dog"], n)})
    df.write_csv(raw / "labels.csv")
    return df


def read(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, infer_schema=False)


@dataclass
class FakeSource:
    """A source that writes given files into the working folder (and counts its calls)."""

    files: dict[str, bytes]
    calls: list[Path] = field(default_factory=list)

    def describe(self) -> str:
        return "fake"

    def fetch(self, workdir: Path) -> Path:
        self.calls.append(workdir)
        root = workdir / "raw"
        for rel, data in self.files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        return root
