"""Small raw downloads generated in a competition's real layout, to check its recipe.

A task's ``raw_fixture.json`` (beside its task.json) describes the download as
``kaggle competitions download`` gives it: the tables (CSV, JSON, Parquet or NumPy, their columns,
rows), the per-row files, which archive each file sits in, and where that layout was read
(``sources``).
:func:`make_download` writes such a download (one zip holding everything, as Kaggle delivers
it) from the description, with seeded values, so the recipe goes through prepare, the audit
and grading on the real names, nesting and columns, in seconds.

Column kinds (``"name": "kind"``): ``seq:<template>`` (``{i}`` is the row number, e.g.
``seq:id{i:05d}``), ``group:<k>:<template>`` (``{g}`` = row // k), ``int:<lo>:<hi>``,
``float:<lo>:<hi>``, ``choice:<a>|<b>|...`` (every value appears), ``multi:<a>|<b>|...``
(one or two of them joined by ``,``), ``text``, ``date:<YYYY-MM-DD>`` (one day per row),
``const:<value>``, ``bool`` (JSON booleans in JSON tables, else True/False), ``list``
(a JSON list, JSON tables only), ``floats:<n>`` (a JSON list of n numbers), ``onehot:<group>`` (the columns of one group hold a single 1
per row, the others 0: answers given as one column per class).
"""

from __future__ import annotations

import csv
import io
import json
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from pydantic import BaseModel, Field

from tambench._optional import require
from tambench.core.bounded import load_json
from tambench.core.fielddocs import DOCUMENTED
from tambench.core.layout import RAW_FIXTURE_FILE
from tambench.schema.splitspec import RecipeSource

FIXTURE_FILE = RAW_FIXTURE_FILE


class FixtureTable(BaseModel):
    """One raw table."""

    model_config = DOCUMENTED

    path: str
    """Its path once unpacked, e.g. "train.csv"."""
    columns: dict[str, str]
    """Column -> kind (see the module's documentation), in file order."""
    rows: int = 0
    """Rows (0: the fixture's ``rows``)."""
    archive: str = ""
    """The archive inside the download that holds it ("train.csv.zip"); empty: none."""
    member: str = ""
    """Its path inside that archive (empty: its path's file name)."""
    lines: bool = False
    """A ``.json`` table written as JSON lines (one record a line) instead of a list."""
    virtual: bool = False
    """Only names per-row files (labels in file names): not written into the download."""


class FixtureFiles(BaseModel):
    """Per-row files, one per row of a table."""

    model_config = DOCUMENTED

    pattern: str
    """Path with ``{column}`` fields of the table's rows, e.g. "train/{id}.jpg"."""
    table: str
    """The table (its path) whose rows name the files."""
    archive: str = ""
    """The archive inside the download holding them ("train.zip"); members keep the pattern's
    path."""
    size: int = 16
    """Bytes per file."""


class RawFixture(BaseModel):
    """A generated raw download in a competition's real layout."""

    model_config = DOCUMENTED

    sources: list[RecipeSource] = Field(min_length=1)
    """Where the layout was read (the peers' prepare scripts, data pages)."""
    rows: int = Field(default=60, ge=8)
    """Rows of every table that does not set its own."""
    tables: list[FixtureTable] = Field(min_length=1)
    """The tables."""
    files: list[FixtureFiles] = Field(default_factory=list)
    """Per-row files."""
    extra: dict[str, str] = Field(default_factory=dict)
    """Other files (path -> text), e.g. a readme."""

    @classmethod
    def read(cls, path: Path) -> RawFixture:
        """Load a ``raw_fixture.json``."""
        return cls.model_validate(load_json(path))


def _column(kind: str, n: int, rng: np.random.Generator) -> list[Any]:
    head, _, rest = kind.partition(":")
    if head == "seq":
        return [rest.format(i=i) for i in range(n)]
    if head == "group":
        k, _, template = rest.partition(":")
        return [template.format(g=i // int(k)) for i in range(n)]
    if head in ("int", "float"):
        lo, hi = (float(v) for v in rest.split(":"))
        if head == "int":
            return [str(int(v)) for v in rng.integers(int(lo), int(hi) + 1, n)]
        return [f"{v:.4f}" for v in rng.uniform(lo, hi, n)]
    if head in ("choice", "multi"):
        options = rest.split("|")
        picks = [options[i % len(options)] for i in range(n)]
        rng.shuffle(picks)
        if head == "multi":
            extra = rng.choice(options, n)
            picks = [p if p == e or rng.random() < 0.5 else f"{p},{e}"
                     for p, e in zip(picks, extra, strict=True)]
        return picks
    if head == "text":
        words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
        return [" ".join(rng.choice(words, 4)) + f" {i}" for i in range(n)]
    if head == "date":
        start = np.datetime64(rest)
        return [str(start + np.timedelta64(i, "D")) for i in range(n)]
    if head == "const":
        return [rest] * n
    if head == "bool":
        return [bool(v) for v in rng.random(n) < 0.5]
    if head == "onehot":
        return ["0"] * n  # set per group by _one_hot_groups
    if head == "floats":
        return [[round(float(v), 4) for v in rng.uniform(0, 2, int(rest))] for _ in range(n)]
    if head == "list":
        return [[f"v{int(v)}"] for v in rng.integers(0, 5, n)]
    raise ValueError(f"unknown fixture column kind {kind!r}")


def _one_hot_groups(columns: dict[str, str], rows: dict[str, list[Any]],
                    rng: np.random.Generator) -> None:
    groups: dict[str, list[str]] = {}
    for c, kind in columns.items():
        if kind.startswith("onehot:"):
            groups.setdefault(kind, []).append(c)
    for names in groups.values():
        n = len(rows[names[0]])
        hot = [i % len(names) for i in range(n)]
        rng.shuffle(hot)
        for i, k in enumerate(hot):
            rows[names[k]][i] = "1"


def _table_bytes(table: FixtureTable, rows: dict[str, list[Any]]) -> bytes:
    names = list(table.columns)
    n = len(rows[names[0]])
    if table.path.endswith(".npy"):  # one column: a 1-D array; several: 2-D numbers
        buf = io.BytesIO()
        np.save(buf, np.array(rows[names[0]]) if len(names) == 1 else
                np.array([[float(rows[c][i]) for c in names] for i in range(n)], np.float32))
        return buf.getvalue()
    if table.path.endswith(".parquet"):
        buf = io.BytesIO()
        pl.DataFrame({c: rows[c] for c in names}).write_parquet(buf)
        return buf.getvalue()
    if table.path.endswith(".json"):
        records = [{c: rows[c][i] for c in names} for i in range(n)]
        if table.lines:
            return "".join(json.dumps(r) + "\n" for r in records).encode()
        return json.dumps(records).encode()
    out = io.StringIO()
    if table.path.endswith(".tsv"):
        w = csv.writer(out, lineterminator="\n", delimiter="\t", quoting=csv.QUOTE_NONE,
                       escapechar="\\")
    else:
        w = csv.writer(out, lineterminator="\n")
    w.writerow(names)
    for i in range(n):
        w.writerow([rows[c][i] for c in names])
    return out.getvalue().encode()


def generate(fixture: RawFixture, seed: int = 0) -> dict[str, dict[str, bytes]]:
    """Archive name ("" for the download itself) -> member path -> bytes."""
    rng = np.random.default_rng(seed)
    members: dict[str, dict[str, bytes]] = {"": {}}
    values: dict[str, dict[str, list[Any]]] = {}
    for table in fixture.tables:
        n = table.rows or fixture.rows
        rows = {c: _column(kind, n, rng) for c, kind in table.columns.items()}
        _one_hot_groups(table.columns, rows, rng)
        values[table.path] = rows
        if table.virtual:
            continue
        name = table.member or Path(table.path).name if table.archive else table.path
        members.setdefault(table.archive, {})[name] = _table_bytes(table, rows)
    for files in fixture.files:
        rows = values[files.table]
        n = len(next(iter(rows.values())))
        for i in range(n):
            rel = files.pattern.format(**{c: rows[c][i] for c in rows})
            members.setdefault(files.archive, {})[rel] = rng.bytes(files.size)
    for rel, text in fixture.extra.items():
        members[""][rel] = text.encode()
    return members


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(members):
            z.writestr(name, members[name])
    return buf.getvalue()


def _7z(members: dict[str, bytes]) -> bytes:
    py7zr = require("py7zr", extra="kaggle", feature="7z archives in a download")
    buf = io.BytesIO()
    with py7zr.SevenZipFile(buf, "w") as z:
        for name in sorted(members):
            z.writestr(members[name], name)
    return buf.getvalue()


def _tar(members: dict[str, bytes], gzip: bool) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gzip else "w:") as t:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size = len(members[name])
            t.addfile(info, io.BytesIO(members[name]))
    return buf.getvalue()


def _archive(name: str, members: dict[str, bytes]) -> bytes:
    """An inner archive in the format its name says (zip unless .7z, .tar, .tar.gz, .tgz)."""
    if name.endswith(".7z"):
        return _7z(members)
    if name.endswith((".tar.gz", ".tgz")):
        return _tar(members, gzip=True)
    return _tar(members, gzip=False) if name.endswith(".tar") else _zip(members)


def make_download(fixture: RawFixture, dest: Path, seed: int = 0) -> Path:
    """Write the download (one zip, inner archives inside it: zip, or 7z or tar by their
    name) to ``dest``; returns it."""
    members = generate(fixture, seed)
    top = dict(members.pop(""))
    for archive, inner in members.items():
        top[archive] = _archive(archive, inner)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(_zip(top))
    return dest
