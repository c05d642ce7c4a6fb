"""TensorFlow's TFRecord files of ``tf.train.Example`` records, read and written without
TensorFlow.

A TFRecord file is a run of records, each framed as: the data's length (uint64, little
endian), the masked CRC-32C of those 8 bytes (uint32), the data, the masked CRC-32C of the data
(a CRC is masked as ``((crc >> 15 | crc << 17) + 0xa282ead8) mod 2**32``). Both checksums are
checked here: a file that is cut short or altered raises :class:`~tambench.errors.SplitError`
naming the file and the record.

An ``Example`` is the protocol buffer ``Example { Features features = 1; }``, ``Features {
map<string, Feature> feature = 1; }``, ``Feature { oneof { BytesList bytes_list = 1;
FloatList float_list = 2; Int64List int64_list = 3; } }``, each list a ``repeated`` field 1
(packed or not). :func:`decode_example` reads that wire format (varints, length-delimited
fields; fields it does not know are skipped as the format says) into a dict feature name ->
values; :func:`encode_example` writes one (bytes and int64 features), as generated downloads
hold them. CRC-32C comes from ``google-crc32c`` (the ``mlebench`` extra).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tambench._optional import require
from tambench.errors import SplitError

Values = list[bytes] | list[int] | list[float]
_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """TFRecord's masked CRC-32C (Castagnoli) of ``data``."""
    crc = int(require("google_crc32c", extra="mlebench", feature="TFRecord files").value(data))
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def frame_records(records: list[bytes]) -> bytes:
    """The bytes of a TFRecord file holding ``records`` in order."""
    out = bytearray()
    for data in records:
        head = struct.pack("<Q", len(data))
        out += head + struct.pack("<I", masked_crc(head)) + data
        out += struct.pack("<I", masked_crc(data))
    return bytes(out)


def read_records(path: Path) -> Iterator[bytes]:
    """The records of the TFRecord file ``path``, in order, their checksums checked.

    Raises:
        SplitError: the file is cut short, or a length or a record does not match its CRC.
    """
    size = path.stat().st_size
    with path.open("rb") as fh:
        n = 0
        while head := fh.read(12):
            where = f"TFRecord file {path.name}, record {n} (byte {fh.tell() - len(head)})"
            if len(head) < 12:
                raise SplitError(f"{where}: the file ends inside a record's header")
            if struct.unpack("<I", head[8:])[0] != masked_crc(head[:8]):
                raise SplitError(f"{where}: its length does not match its CRC (corrupt file)")
            length = struct.unpack("<Q", head[:8])[0]
            if length + 4 > size - fh.tell():
                raise SplitError(f"{where}: the file ends inside the record's {length} bytes")
            data = fh.read(length)
            crc = fh.read(4)
            if struct.unpack("<I", crc)[0] != masked_crc(data):
                raise SplitError(f"{where}: its data do not match its CRC (corrupt file)")
            yield data
            n += 1


# -- protocol buffers' wire format ---------------------------------------------------------

def _varint(buf: bytes | memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("a varint runs past its message")
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            return value, pos


def _fields(buf: memoryview) -> Iterator[tuple[int, int, int | memoryview]]:
    """(field number, wire type, value) of a message: an int for varints and fixed-width
    fields, a view of the bytes of a length-delimited one (not copied)."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | memoryview
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > len(buf):
                raise ValueError("a fixed-width field runs past its message")
            value, pos = int.from_bytes(buf[pos:pos + width], "little"), pos + width
        elif wire == 2:
            length, pos = _varint(buf, pos)
            if pos + length > len(buf):
                raise ValueError("a length-delimited field runs past its message")
            value, pos = buf[pos:pos + length], pos + length
        else:
            raise ValueError(f"wire type {wire} (field {number}) is not used by Example")
        yield number, wire, value


def _packed(data: memoryview, wire_of_item: int) -> list[int]:
    out: list[int] = []
    pos = 0
    while pos < len(data):
        if wire_of_item == 0:
            value, pos = _varint(data, pos)
        else:
            if pos + 4 > len(data):
                raise ValueError("a packed float list runs past its field")
            value, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        out.append(value)
    return out


def _list(kind: int, buf: memoryview) -> Values:
    """The values of a BytesList (1), FloatList (2) or Int64List (3)."""
    raw: list[int | memoryview] = []
    item_wire = {1: 2, 2: 5, 3: 0}[kind]
    for number, wire, value in _fields(buf):
        if number != 1:
            continue
        if wire == 2 and item_wire != 2 and isinstance(value, memoryview):
            raw.extend(_packed(value, item_wire))
        elif wire == item_wire:
            raw.append(value)
    if kind == 1:
        return [bytes(v) for v in raw if isinstance(v, memoryview)]
    ints = [v for v in raw if isinstance(v, int)]
    if kind == 2:
        return [struct.unpack("<f", struct.pack("<I", v))[0] for v in ints]
    return [v - (1 << 64) if v >= 1 << 63 else v for v in ints]


def _feature(buf: memoryview) -> tuple[int, Values]:
    kind = 0
    values: list[Any] = []  # a repeated field: one kind merged, another replaces it
    for number, wire, value in _fields(buf):
        if number in (1, 2, 3) and wire == 2 and isinstance(value, memoryview):
            more: list[Any] = list(_list(number, value))
            values = values + more if number == kind else more
            kind = number
    return kind, values


def decode_example(data: bytes) -> dict[str, Values]:
    """Feature name -> values of a serialized ``tf.train.Example`` (an empty list for a
    feature set to no kind).

    Raises:
        ValueError: the bytes are not a well-formed message.
    """
    features: dict[str, Values] = {}
    for number, wire, value in _fields(memoryview(data)):
        if number != 1 or wire != 2 or not isinstance(value, memoryview):
            continue
        for n_entry, w_entry, entry in _fields(value):
            if n_entry != 1 or w_entry != 2 or not isinstance(entry, memoryview):
                continue
            key, feature = "", memoryview(b"")
            for n, w, v in _fields(entry):
                if w == 2 and isinstance(v, memoryview):
                    if n == 1:
                        key = bytes(v).decode("utf-8")
                    elif n == 2:
                        feature = v
            features[key] = _feature(feature)[1]
    return features


def _key(number: int, wire: int) -> bytes:
    return _encode_varint(number << 3 | wire)


def _encode_varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _delimited(number: int, data: bytes) -> bytes:
    return _key(number, 2) + _encode_varint(len(data)) + data


def encode_example(features: Mapping[str, bytes | int]) -> bytes:
    """A serialized ``tf.train.Example`` holding each bytes value as a one-value BytesList and
    each int as a one-value (packed) Int64List."""
    entries = b""
    for name, value in features.items():
        if isinstance(value, bytes):
            feature = _delimited(1, _delimited(1, value))
        else:
            feature = _delimited(3, _delimited(1, _encode_varint(value)))
        entries += _delimited(1, _delimited(1, name.encode()) + _delimited(2, feature))
    return _delimited(1, entries)
