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
``const:<value>``, ``ints:<lo>:<hi>:<n>`` (n integers joined by ``,``: a sequence),
``bool`` (JSON booleans in JSON tables, else True/False), ``list``
(a JSON list, JSON tables only), ``floats:<n>`` (a JSON list of n numbers), ``onehot:<group>`` (the columns of one group hold a single 1
per row, the others 0: answers given as one column per class), ``subset:<marker>:<a>|<b>|...``
(zero to three distinct options joined by ``,``; every eighth row holds ``<marker>`` alone
when it is not empty: a label withheld, as ``?``), ``joined:<n>:<lo>:<hi>`` (n numbers in
[lo, hi] joined by ";" in one cell: a flattened matrix, as the Image Matching Challenge's
rotation_matrix), ``ids:<n>`` (a JSON list of n random 24-hex-digit ids, as biendata's paper
ids), ``titled:<n>`` (a JSON list of n records with an ``_id`` and a random ``title``, as
PST's ``refs_trace``), ``rle:<k>:<e>`` (a run-length encoding of one object per row, the
rows in blocks of k as ``group:<k>`` makes them, each row's run its own so the objects of a
block never overlap; every e-th block's rows are empty: airbus' images without a ship),
``num:<lo>:<hi>`` (integers written as numbers in JSON and BSON tables: Natural Questions'
int64 example ids), ``count:<step>`` (row i holds the number i * step: ascending ids with
gaps), ``candidates:<n>`` (a JSON list of n token spans ``start_token``, ``top_level``,
``end_token``: Natural Questions' long answer candidates), ``nq_annotation`` (a JSON list of one
Natural Questions annotation, ``yes_no_answer``, ``long_answer``, ``short_answers``,
``annotation_id``; the rows cycle through no answer, a YES answer, a long answer with two short
ones, one with one, and a long answer alone), ``pictures:<n>`` (one to n records
``{"picture": <bytes>}`` of seeded JPEG-like bytes, BSON tables only: Cdiscount's ``imgs``).

A ``.bson`` table is written as one BSON document per row (its columns in order), as
Cdiscount's ``train.bson``; it needs pymongo's ``bson`` (the ``mlebench`` extra).

A ``ragged`` table is written without quoting, its rows' fields joined by ``,`` with empty
trailing fields left out (a line per row holding as many fields as it has values: mlsp-2013-birds'
``rec_id,label,label``); ``header`` replaces its header line. Per-row files with ``image``
("WxH") are grayscale PNG images of that size with seeded pixels; with ``npy`` ("HxWxC")
NumPy arrays of seeded 0s and 1s; with ``id3`` (a template
of the row's columns) they are MP3-like files whose ID3v2 title frame and ID3v1 tag hold that
text around seeded bytes, as xeno-canto recordings carry their species; with ``tei`` (a
``titled`` column of the row) they are TEI XML papers as GROBID writes them, whose
bibliography (``biblStruct`` entries ``b0``, ``b1``, ...) holds that column's titles, in
title case, among other titles, with an entry (``b2``) without an analytic title and a header
``biblStruct`` without an id (PST's ``paper-xml``).

``records`` spread a table's rows over TFRecord files of ``tf.train.Example`` records (cassava's
``train_tfrecords/ld_train00-1338.tfrec``): the rows seeded-shuffled, cut into ``shards``
files named by their number and record count, each record holding features read from the
row (``bytes:<column>``, ``int:<column>``) or the bytes of the row's per-row file
(``file:<pattern>``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import struct
import tarfile
import zipfile
import zlib
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
from tambench.splits.tfrecord import encode_example, frame_records

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
    """The archive inside the download that holds it ("train.csv.zip"; a ".gz" one, not a tar,
    holds this table alone, "trainHistory.csv.gz"); empty: none."""
    member: str = ""
    """Its path inside that archive (empty: its path's file name)."""
    lines: bool = False
    """A ``.json`` table written as JSON lines (one record a line) instead of a list; any
    other table (biendata's ``qa_train.txt``) written as JSON lines instead of CSV."""
    encoding: str = ""
    """Text encoding of its bytes when not UTF-8 ("latin-1")."""
    quoted: bool = False
    """Every field in double quotes (a ``.tsv`` table is otherwise written unquoted)."""
    keyed: str = ""
    """A ``.json`` table written as one object: this column's value -> the rest of the
    record (biendata's train_author.json); empty: a list of records."""
    virtual: bool = False
    """Only names per-row files (labels in file names): not written into the download."""
    ragged: bool = False
    """Written as lines of unquoted fields, empty trailing fields left out (see the module)."""
    header: str = ""
    """A ragged table's header line, written instead of the column names (empty: the
    names)."""
    plain: bool = False
    """Written as plain text, its one column's values a line each, with no header
    (billion-word-imputation's ``train_v2.txt``)."""
    head_of: str = ""
    """Another table (its path, listed before) whose first ``rows`` rows this one holds, its
    columns named alike (Cdiscount's ``train_example.bson``); empty: rows of its own."""
    numbers: bool = False
    """A Parquet table's columns of numbers written as int64 (all integers) or float64 columns
    instead of text (IceCube's ``train_meta.parquet``)."""


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
    image: str = ""
    """"WxH": each file is a grayscale PNG image of that size (empty: ``size`` random bytes)."""
    id3: str = ""
    """Text (``{column}`` fields of the row) written into ID3v2 and ID3v1 tags around the
    file's ``size`` seeded bytes (empty: no tags)."""
    tei: str = ""
    """A ``titled`` column of the table: each file is a TEI XML paper whose bibliography
    lists that column's titles among others (see the module; empty: not a TEI paper)."""
    npy: str = ""
    """"HxW" or "HxWxC": each file is a NumPy ``.npy`` array of that shape holding seeded 0s
    and 1s (uint8: a mask, or a stand-in for bands); empty: not an array."""


class FixtureRecords(BaseModel):
    """TFRecord files holding one ``tf.train.Example`` per row of a table."""

    model_config = DOCUMENTED

    pattern: str
    """File path with ``{shard}`` (its number) and ``{count}`` (its records), e.g.
    "train_tfrecords/ld_train{shard:02d}-{count}.tfrec"."""
    table: str
    """The table (its path) whose rows the records hold."""
    shards: int = Field(ge=1)
    """Files the rows are spread over (seeded shuffle, then cut in order)."""
    features: dict[str, str]
    """Feature name -> ``bytes:<column>``, ``int:<column>`` or ``file:<pattern>`` (the bytes
    of the row's per-row file written by ``files``)."""


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
    records: list[FixtureRecords] = Field(default_factory=list)
    """TFRecord files of a table's rows."""
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
    if head == "ints":
        lo_s, hi_s, k = rest.split(":")
        return [",".join(str(v) for v in rng.integers(int(lo_s), int(hi_s) + 1, int(k)))
                for _ in range(n)]
    if head == "bool":
        return [bool(v) for v in rng.random(n) < 0.5]
    if head == "onehot":
        return ["0"] * n  # set per group by _one_hot_groups
    if head == "floats":
        return [[round(float(v), 4) for v in rng.uniform(0, 2, int(rest))] for _ in range(n)]
    if head == "subset":
        marker, _, listed = rest.partition(":")
        return _subsets(marker, listed.split("|"), n, rng)
    if head == "joined":
        count, low, high = rest.split(":")
        return [";".join(f"{v:.6f}" for v in rng.uniform(float(low), float(high), int(count)))
                for _ in range(n)]
    if head == "ids":
        return [[rng.bytes(12).hex() for _ in range(int(rest))] for _ in range(n)]
    if head == "rle":
        block, every = (int(v) for v in rest.split(":"))
        return ["" if (i // block) % every == every - 1 else f"{100 * i + 1} {1 + i % 7}"
                for i in range(n)]
    if head == "titled":
        return [[{"_id": rng.bytes(12).hex(), "title": _title(rng)} for _ in range(int(rest))]
                for _ in range(n)]
    if head == "list":
        return [[f"v{int(v)}"] for v in rng.integers(0, 5, n)]
    return _structured(kind, n, rng)


def _structured(kind: str, n: int, rng: np.random.Generator) -> list[Any]:
    """The kinds whose values are numbers or records (JSON and BSON tables)."""
    head, _, rest = kind.partition(":")
    if head == "num":
        lo, hi = (int(v) for v in rest.split(":"))
        return [int(v) for v in rng.integers(lo, hi, n, endpoint=True)]
    if head == "count":
        return [i * int(rest) for i in range(n)]
    if head == "candidates":
        return [_spans(int(rest), rng) for _ in range(n)]
    if head == "nq_annotation":
        return [[_nq_annotation(i, rng)] for i in range(n)]
    if head == "pictures":
        return [[{"picture": b"\xff\xd8\xff\xe0" + rng.bytes(24) + b"\xff\xd9"}
                 for _ in range(1 + int(rng.integers(0, int(rest))))] for _ in range(n)]
    raise ValueError(f"unknown fixture column kind {kind!r}")


def _spans(n: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    starts = np.sort(rng.choice(200, n, replace=False))
    return [{"start_token": int(s), "top_level": k % 2 == 0,
             "end_token": int(s) + 1 + int(rng.integers(1, 30))} for k, s in enumerate(starts)]


def _nq_annotation(i: int, rng: np.random.Generator) -> dict[str, Any]:
    """Row ``i``'s annotation (see ``nq_annotation`` in the module's documentation)."""
    case = i % 5
    start = int(rng.integers(0, 150))
    long = ({"start_token": -1, "candidate_index": -1, "end_token": -1} if case == 0 else
            {"start_token": start, "candidate_index": int(rng.integers(0, 4)),
             "end_token": start + 40})
    shorts = [{"start_token": start + 2 + 5 * k, "end_token": start + 4 + 5 * k}
              for k in range({2: 2, 3: 1}.get(case, 0))]
    return {"yes_no_answer": "YES" if case == 1 else "NONE", "long_answer": long,
            "short_answers": shorts, "annotation_id": int(rng.integers(0, 2**62))}


def _subsets(marker: str, options: list[str], n: int, rng: np.random.Generator) -> list[str]:
    out = []
    for i in range(n):
        if marker and i % 8 == 3:
            out.append(marker)
            continue
        k = int(rng.integers(0, 4))
        picks = {options[i % len(options)], *rng.choice(options, k)} if k else set()
        out.append(",".join(sorted(picks, key=options.index)))
    return out


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


def _numbers(values: list[Any]) -> list[Any]:
    """``values`` as ints, else floats, else unchanged."""
    for kind in (int, float):
        try:
            return [kind(v) for v in values]
        except (TypeError, ValueError):
            continue
    return values


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
        try:  # typed columns where the values allow, else text
            frame = pl.DataFrame({c: _numbers(rows[c]) if table.numbers else rows[c]
                                  for c in names})
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            frame = pl.DataFrame({c: [None if v is None else str(v) for v in rows[c]]
                                  for c in names}, schema=dict.fromkeys(names, pl.String))
        frame.write_parquet(buf)
        return buf.getvalue()
    if table.path.endswith(".bson"):
        bson = require("bson", extra="mlebench", feature="BSON tables in a raw fixture")
        return b"".join(bson.encode({c: rows[c][i] for c in names}) for i in range(n))
    if table.path.endswith(".json") or table.lines:
        records = [{c: rows[c][i] for c in names} for i in range(n)]
        if table.keyed:
            return json.dumps({r.pop(table.keyed): r for r in records}).encode()
        if table.lines:
            return "".join(json.dumps(r) + "\n" for r in records).encode()
        return json.dumps(records).encode()
    out = io.StringIO()
    if table.plain:
        return "".join(f"{rows[names[0]][i]}\n" for i in range(n)).encode()
    if table.ragged:
        lines = [table.header or ",".join(names)]
        lines += [",".join(str(rows[c][i]) for c in names).rstrip(",") for i in range(n)]
        return ("\n".join(lines) + "\n").encode()
    if table.path.endswith(".tsv"):
        w = (csv.writer(out, lineterminator="\n", delimiter="\t", quoting=csv.QUOTE_ALL)
             if table.quoted else
             csv.writer(out, lineterminator="\n", delimiter="\t", quoting=csv.QUOTE_NONE,
                        escapechar="\\"))
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
        rows = (_head(values, table, n) if table.head_of else
                {c: _column(kind, n, rng) for c, kind in table.columns.items()})
        _one_hot_groups(table.columns, rows, rng)
        values[table.path] = rows
        if table.virtual:
            continue
        name = table.member or Path(table.path).name if table.archive else table.path
        data = _table_bytes(table, rows)
        if table.encoding:
            data = data.decode("utf-8").encode(table.encoding)
        members.setdefault(table.archive, {})[name] = data
    for files in fixture.files:
        rows = values[files.table]
        n = len(next(iter(rows.values())))
        for i in range(n):
            row = {c: rows[c][i] for c in rows}
            rel = files.pattern.format(**row)
            members.setdefault(files.archive, {})[rel] = (
                _tei(row[files.tei], rng) if files.tei else
                _png(files.image, rng) if files.image else
                _npy(files.npy, rng) if files.npy else
                _tagged(files.id3.format(**row), rng.bytes(files.size)) if files.id3 else
                rng.bytes(files.size))
    for records in fixture.records:
        members[""].update(_tfrecords(records, values[records.table], members, rng))
    for rel, text in fixture.extra.items():
        members[""][rel] = text.encode()
    return members


def _head(values: dict[str, dict[str, list[Any]]], table: FixtureTable, n: int
          ) -> dict[str, list[Any]]:
    whole = values.get(table.head_of)
    if whole is None or any(c not in whole for c in table.columns):
        raise ValueError(f"fixture table {table.path} holds the first rows of {table.head_of!r}"
                         ", which is not a table listed before it with the same columns")
    return {c: whole[c][:n] for c in table.columns}


def _feature_value(source: str, row: dict[str, Any], written: dict[str, bytes]) -> bytes | int:
    kind, _, rest = source.partition(":")
    if kind == "int":
        return int(row[rest])
    if kind == "file":
        return written[rest.format(**row)]
    if kind == "bytes":
        return str(row[rest]).encode()
    raise ValueError(f"unknown TFRecord feature source {source!r}")


def _tfrecords(spec: FixtureRecords, rows: dict[str, list[Any]],
               members: dict[str, dict[str, bytes]], rng: np.random.Generator
               ) -> dict[str, bytes]:
    """Path -> bytes of the TFRecord files of ``spec`` (see the module's documentation)."""
    written = {rel: data for inner in members.values() for rel, data in inner.items()}
    order = rng.permutation(len(next(iter(rows.values()))))
    out = {}
    for shard, part in enumerate(np.array_split(order, spec.shards)):
        examples = []
        for i in part:
            row = {c: rows[c][i] for c in rows}
            examples.append(encode_example({name: _feature_value(source, row, written)
                                            for name, source in spec.features.items()}))
        out[spec.pattern.format(shard=shard, count=len(part))] = frame_records(examples)
    return out


def _title(rng: np.random.Generator) -> str:
    """A random paper title (random words: two titles match with a low ratio)."""
    return " ".join(rng.bytes(5).hex() for _ in range(4))


_TEI = ('<?xml version="1.0" encoding="UTF-8"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0">'
        "<teiHeader><fileDesc><sourceDesc><biblStruct><analytic><title>The paper itself"
        "</title></analytic></biblStruct></sourceDesc></fileDesc></teiHeader><text><body>"
        "<p>Text citing its references.</p></body><back><div type=\"references\"><listBibl>"
        "{entries}</listBibl></div></back></text></TEI>\n")


def _tei(records: list[dict[str, str]], rng: np.random.Generator) -> bytes:
    """A TEI paper whose bibliography holds the records' titles among others (see the
    module's documentation)."""
    titles = [str(r["title"]).title() for r in records] + [_title(rng) for _ in range(4)]
    rng.shuffle(titles)
    entries = [f'<biblStruct xml:id="b{n if n < 2 else n + 1}"><analytic><title level="a" '
               f'type="main">{t}</title></analytic><monogr><title>Venue</title></monogr>'
               "</biblStruct>" for n, t in enumerate(titles)]
    entries.insert(2, '<biblStruct xml:id="b2"><monogr><title>A book</title></monogr>'
                      "</biblStruct>")  # entry b2 has no analytic title
    return _TEI.replace("{entries}", "".join(entries)).encode()


def _npy(shape: str, rng: np.random.Generator) -> bytes:
    """A ``.npy`` file of seeded 0/1 uint8 values of ``shape`` ("HxW" or "HxWxC")."""
    buf = io.BytesIO()
    np.save(buf, rng.integers(0, 2, tuple(int(v) for v in shape.lower().split("x")),
                              dtype=np.uint8), allow_pickle=False)
    return buf.getvalue()


def _png(size: str, rng: np.random.Generator) -> bytes:
    """A grayscale 8-bit PNG of ``size`` ("WxH") with seeded pixels."""
    w, h = (int(v) for v in size.lower().split("x"))
    pixels = rng.integers(0, 256, (h, w), dtype=np.uint8)
    raw = b"".join(b"\x00" + pixels[r].tobytes() for r in range(h))  # filter 0 per line

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _tagged(text: str, audio: bytes) -> bytes:
    """``audio`` between an ID3v2.3 tag whose title frame holds ``text`` and an ID3v1 tag."""
    title = b"\x00" + text.encode()  # text encoding byte, then the text
    frame = b"TIT2" + struct.pack(">I", len(title)) + b"\x00\x00" + title
    n = len(frame)
    size = bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
    v1 = b"TAG" + text.encode()[:30].ljust(30, b"\x00") + b"\x00" * 94 + b"\xff"
    return b"ID3\x03\x00\x00" + size + frame + audio + v1


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


def _gz(archive: str, members: dict[str, bytes]) -> bytes:
    if len(members) != 1:
        raise ValueError(f"the gzip file {archive} of a fixture holds one file, not "
                         f"{sorted(members)}")
    return gzip.compress(next(iter(members.values())), mtime=0)


def _tar(members: dict[str, bytes], compressed: bool) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if compressed else "w:") as t:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size = len(members[name])
            t.addfile(info, io.BytesIO(members[name]))
    return buf.getvalue()


def _archive(name: str, members: dict[str, bytes]) -> bytes:
    """An inner archive in the format its name says (zip unless .7z, .tar, .tar.gz, .tgz, or
    .gz: a lone gzip file)."""
    if name.endswith(".7z"):
        return _7z(members)
    if name.endswith((".tar.gz", ".tgz")):
        return _tar(members, compressed=True)
    if name.endswith(".gz"):
        return _gz(name, members)
    return _tar(members, compressed=False) if name.endswith(".tar") else _zip(members)


def make_download(fixture: RawFixture, dest: Path, seed: int = 0) -> Path:
    """Write the download (one zip, inner archives inside it: zip, or 7z, tar, tar.gz or a
    lone gzip file by their name) to ``dest``; returns it."""
    members = generate(fixture, seed)
    top = dict(members.pop(""))
    for archive, inner in members.items():
        top[archive] = _archive(archive, inner)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(_zip(top))
    return dest
