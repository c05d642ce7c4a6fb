"""The examples in the user docs run: every ``>>>`` block of the documents below is a doctest."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: Documents whose examples are run; a document with ``>>>`` examples must be listed here.
RUN = ["api.md", "extending.md"]


@pytest.mark.parametrize("name", RUN)
def test_doc_examples_run(name: str) -> None:
    result = doctest.testfile(str(DOCS / name), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0


def test_every_document_with_examples_is_run() -> None:
    with_examples = {p.name for p in DOCS.glob("*.md") if ">>> " in p.read_text()}
    assert with_examples <= set(RUN)
