"""Structure a browser shows that the markup leaves implicit (``acquisition/layout.py``), each
rule through the adapter path and the generic path. The shapes are those of real organisers'
pages (tests/data/real-pages/codalab)."""

from __future__ import annotations

import pytest

from tambench.acquisition.layout import font_level
from tambench.acquisition.markdown import clean_soup

from .test_extraction_rules import PROSE, both

PATHS = pytest.mark.parametrize("path", ["adapter", "generic"])
BIG = "color: #ff6600; font-family: Verdana; font-size: {};"


@pytest.mark.parametrize("markup, level", [
    ("<span style='font-size: xx-large'>x</span>", 2), ("<span style='font-size:2em'>x</span>", 2),
    ("<span style='font-size: 32px !important'>x</span>", 2),
    ("<span style='font-size: 150%'>x</span>", 3), ("<span style='font-size: x-large'>x</span>", 3),
    ("<span style='font-size: 24pt'>x</span>", 2), ("<font size='6'>x</font>", 2),
    ("<font size='5'>x</font>", 3), ("<span style='font-size: large'>x</span>", None),
    ("<span style='font-size: 1.2em'>x</span>", None), ("<span style='color: red'>x</span>", None),
    ("<font size='3'>x</font>", None), ("<span style='font-size: calc(1em + 2px)'>x</span>", None),
])
def test_the_heading_level_a_font_size_shows(markup: str, level: int | None) -> None:
    el = clean_soup(markup).find(["span", "font"])
    assert font_level(el) == level


@PATHS
def test_a_short_line_in_a_large_font_is_a_heading(path: str) -> None:
    body = (f"<p><span style='{BIG.format('xx-large')}'>Important dates</span><br /></p>"
            "<ul><li>January 10 2019: Evaluation begins</li></ul>"
            f"<p><font size='5'>Data <a href='/d'>format</a></font></p><p>{PROSE}</p>")
    md = both(body)[path]
    assert "## Important dates\n\n- January 10 2019: Evaluation begins" in md
    assert "### Data [format](/d)\n" in md


@PATHS
def test_large_text_that_is_not_a_whole_short_line_stays_text(path: str) -> None:
    long_line = "A very long announcement " * 8
    body = (f"<p>Deadline: <span style='font-size: xx-large'>May 1</span> at noon.</p>"
            f"<p><span style='font-size: xx-large'>{long_line}</span></p>"
            f"<ul><li><span style='font-size: xx-large'>Prize: $1,000</span></li></ul>"
            f"<p>{PROSE}</p>")
    md = both(body)[path]
    assert "Deadline: May 1 at noon." in md
    assert "#" not in md.replace("# Store Demand Forecasting", "")
    assert "- Prize: $1,000" in md


@PATHS
def test_a_list_that_lxml_closes_at_a_pre_keeps_its_items_and_their_text(path: str) -> None:
    body = (f"<p>{PROSE}</p><h3>Contents</h3><ul><li>csv files</li>"
            "<ul><li>train/annotations.csv: the labels.</li></ul>The first line is the header."
            "<pre>ID,Unicode1\n0,U+3084\n</pre>Labels are code points.<li>image files</li>"
            "<ul><li>train/imgs/: the images</li></ul>One file per ID.<li>starter kit</li>"
            "main.py is a baseline.</ul><p>See the README.</p>")
    md = both(body)[path]
    assert ("- csv files\n  - train/annotations.csv: the labels.\n\n"
            "  The first line is the header.\n\n  ```\n  ID,Unicode1\n  0,U+3084\n  ```\n\n"
            "  Labels are code points.\n- image files\n  - train/imgs/: the images\n\n"
            "  One file per ID.\n- starter kit\n  main.py is a baseline.\n\nSee the README.") in md


@PATHS
def test_an_item_outside_any_list_gets_a_list_of_its_own(path: str) -> None:
    md = both(f"<p>{PROSE}</p><div>Phases:<li>test-dev</li><li>test-challenge</li></div>")[path]
    assert "Phases:\n\n- test-dev\n- test-challenge" in md


@PATHS
def test_a_list_placed_directly_in_a_list_is_nested_under_the_item_before_it(path: str) -> None:
    body = (f"<p>{PROSE}</p><ol><li>Prize Allocation:</li><ul><li>1st Place: $6,000</li>"
            "<li>2nd Place: $4,000</li></ul><li>Upon being awarded a prize:</li>"
            "<ol type='i'><li>Present the solution.</li></ol><li>Shares are even.</li></ol>")
    md = both(body)[path]
    assert ("1. Prize Allocation:\n   - 1st Place: $6,000\n   - 2nd Place: $4,000\n"
            "2. Upon being awarded a prize:\n   1. Present the solution.\n"
            "3. Shares are even.") in md


@PATHS
def test_line_breaks_in_code_are_newlines_and_do_not_indent_text(path: str) -> None:
    body = (f"<p>{PROSE}</p><pre>cd starting_kit<br />python download.py</pre>"
            "<ul><li>Paolo Rosso<br /> <em>prosso@dsic.upv.es</em><br />\n  Valencia</li></ul>")
    md = both(body)[path]
    assert "```\ncd starting_kit\npython download.py\n```" in md
    assert "- Paolo Rosso\n  *prosso@dsic.upv.es*\n  Valencia" in md


@PATHS
def test_no_break_spaces_are_spaces_outside_code_and_never_make_a_code_block(path: str) -> None:
    body = (f"<p>{PROSE}</p><p>All problems are&nbsp;<strong>multi-label "
            "classification&nbsp;</strong>problems: <em>\nAUC</em>based.</p>"
            "<p>&nbsp; &nbsp; 2 * AUC - 1</p><p>OVERLAP,&nbsp;BEFORE-OVERLAP</p>"
            "<pre>x =&nbsp;1</pre>")
    md = both(body)[path]
    assert "All problems are **multi-label classification** problems: *AUC*based." in md
    assert "\n\n2 * AUC - 1\n\n" in md and "OVERLAP, BEFORE-OVERLAP" in md
    assert "x =\xa01" in md  # code as written
