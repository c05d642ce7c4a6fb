"""Properties of the id matcher, over generated ids: shuffled ids align exactly, every other
multiset of ids is refused, and ids are compared byte for byte whatever the hash does."""

from __future__ import annotations

import re
import unicodedata
from unittest import mock

import numpy as np
import pyarrow as pa
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from tambench.validation import idindex
from tambench.validation.idindex import HASH_MAX_ID_BYTES, IdIndex, IdSet
from tambench.validation.ids import check_ids

#: Any character but lone surrogates (not encodable as UTF-8, so never in a parsed file) and
#: line breaks (an id holding one is refused as a quoted newline, whatever the answers hold).
ID_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n")
ID_TEXT = st.text(ID_CHARS, min_size=1, max_size=12)
LONG_ID_TEXT = st.text(ID_CHARS,
                       min_size=HASH_MAX_ID_BYTES, max_size=HASH_MAX_ID_BYTES + 40)
ID_LISTS = st.lists(ID_TEXT, min_size=1, max_size=60, unique=True)


def _chunked(values: list[str], cuts: list[int]) -> pa.ChunkedArray:
    """The ids in several chunks, as the parser delivers a large file."""
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    return pa.chunked_array(
        [pa.array(values[a:b], type=pa.string()) for a, b in zip(bounds, bounds[1:], strict=False)],
        type=pa.string(),
    )


def _answers(ids: list[str]) -> IdSet:
    return IdSet(pa.chunked_array([pa.array(ids, type=pa.string())]), "answer id")


def _aligned(sub: list[str], answers: list[str]) -> list[str]:
    """Reorder submitted ids as the matcher says; must equal the answers' ids."""
    check = check_ids(_chunked(sub, []), _answers(answers))
    assert check.ok, check.problems
    if check.perm is None:
        return sub
    return [sub[int(i)] for i in check.perm]


@settings(max_examples=150, deadline=None)
@given(ids=ID_LISTS, seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(0, 60),
                                                                     max_size=4))
def test_any_shuffle_of_the_answer_ids_aligns_to_the_answers_exactly(
    ids: list[str], seed: int, cuts: list[int]
) -> None:
    order = np.random.default_rng(seed).permutation(len(ids))
    sub = [ids[i] for i in order]
    check = check_ids(_chunked(sub, cuts), _answers(ids))
    assert check.ok, check.problems
    perm = np.arange(len(ids)) if check.perm is None else check.perm
    assert [sub[int(i)].encode() for i in perm] == [a.encode() for a in ids]


@settings(max_examples=100, deadline=None)
@given(ids=st.lists(LONG_ID_TEXT, min_size=1, max_size=15, unique=True),
       seed=st.integers(0, 2**32 - 1))
def test_ids_too_long_to_hash_are_matched_by_the_exact_lookup(ids: list[str], seed: int) -> None:
    order = np.random.default_rng(seed).permutation(len(ids))
    sub = [ids[i] for i in order]
    assert _aligned(sub, ids) == ids


@settings(max_examples=150, deadline=None)
@given(ids=st.lists(ID_TEXT, min_size=2, max_size=40, unique=True), data=st.data())
def test_a_duplicate_standing_in_for_a_missing_id_is_refused_naming_both(
    ids: list[str], data: st.DataObject
) -> None:
    i, j = data.draw(st.lists(st.integers(0, len(ids) - 1), min_size=2, max_size=2,
                              unique=True))
    sub = list(ids)
    sub[i] = ids[j]  # ids[i] missing, ids[j] twice: same length
    check = check_ids(_chunked(sub, []), _answers(ids))
    assert not check.ok
    assert any(p.startswith("duplicated ids: 1 id(s)") for p in check.problems)
    assert any(p.startswith("missing ids: 1 answer id(s)") for p in check.problems)


@settings(max_examples=150, deadline=None)
@given(ids=st.lists(ID_TEXT, min_size=2, max_size=40, unique=True), data=st.data())
def test_dropped_ids_are_refused_with_their_count(ids: list[str], data: st.DataObject) -> None:
    dropped = data.draw(st.sets(st.integers(0, len(ids) - 1), min_size=1,
                                max_size=len(ids) - 1))
    sub = [x for k, x in enumerate(ids) if k not in dropped]
    check = check_ids(_chunked(sub, []), _answers(ids))
    assert not check.ok
    assert any(p.startswith(f"missing ids: {len(dropped)} answer id(s)") for p in check.problems)


def _variants(s: str) -> list[str]:
    """Ids that look like ``s`` to a person or a lenient parser but differ in bytes."""
    out = [s + " ", " " + s, s.upper(), s.lower(), s + "\ufeff", "0" + s,
           unicodedata.normalize("NFD", s), unicodedata.normalize("NFKC", s)]
    try:
        number = float(s)
    except ValueError:
        pass
    else:
        out += [repr(number), str(int(number)) if number.is_integer() else s + "0"]
    return [v for v in out if v != s]


@settings(max_examples=200, deadline=None)
@given(ids=ID_LISTS, data=st.data())
def test_ids_are_compared_byte_for_byte(ids: list[str], data: st.DataObject) -> None:
    k = data.draw(st.integers(0, len(ids) - 1))
    candidates = [v for v in _variants(ids[k]) if v not in ids]
    assume(candidates)
    variant = data.draw(st.sampled_from(candidates))
    sub = list(ids)
    sub[k] = variant
    check = check_ids(_chunked(sub, []), _answers(ids))
    assert not check.ok
    assert any(re.match(r"unknown ids( \(.*\))?: 1 submitted id\(s\)", p) for p in check.problems)


@settings(max_examples=100, deadline=None)
@given(ids=ID_LISTS, seed=st.integers(0, 2**32 - 1), bits=st.sampled_from([0, 1, 3]))
@example(ids=["a", "b", "c"], seed=0, bits=0)  # same lengths, every hash equal, shuffled
def test_hash_collisions_change_no_outcome(ids: list[str], seed: int, bits: int) -> None:
    """With a hash of only ``bits`` bits (0: every id collides) the answer is the same."""
    order = np.random.default_rng(seed).permutation(len(ids))
    sub = [ids[i] for i in order]
    real = idindex.hash_rows

    def weak(padded: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        return real(padded, lengths) & ~np.uint64((1 << (64 - bits)) - 1)

    with mock.patch.object(idindex, "hash_rows", weak):
        assert _aligned(sub, ids) == ids
        if len(ids) > 1:  # a duplicate in place of a missing id, still refused
            sub[0] = sub[1]
            assert not check_ids(_chunked(sub, []), _answers(ids)).ok


@settings(max_examples=100, deadline=None)
@given(ids=ID_LISTS, other=ID_LISTS)
def test_the_index_aligns_exactly_the_permutations_of_the_answer_ids(
    ids: list[str], other: list[str]
) -> None:
    key = pa.chunked_array([pa.array(ids, type=pa.string())])
    index = IdIndex.build(key)
    if index is None:  # an id over the hashing width: the lookup path is tested above
        return
    sub = pa.chunked_array([pa.array(other, type=pa.string())])
    perm = index.align(sub)
    if sorted(other) == sorted(ids):
        assert perm is not None and [other[int(i)] for i in perm] == ids
    else:
        assert perm is None
