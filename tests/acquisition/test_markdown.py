"""Markdown extraction: saved pages against golden Markdown, plus the rules one by one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.acquisition.markdown import (
    extract_markdown,
    html_to_markdown_primary,
    html_to_markdown_trafilatura,
)

DATA = Path(__file__).resolve().parents[1] / "data"
PAGES = sorted((DATA / "pages").glob("*.html"))


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_saved_page_converts_to_its_golden_markdown(page: Path, update_golden: bool) -> None:
    golden = DATA / "golden" / f"{page.stem}.md"
    md = extract_markdown(page.read_text(encoding="utf-8"))
    if update_golden:
        golden.write_text(md, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}; run pytest --update-golden and review it"
    assert md == golden.read_text(encoding="utf-8")


def test_saved_pages_have_goldens_and_goldens_have_pages() -> None:
    goldens = {p.stem for p in (DATA / "golden").glob("*.md")}
    assert goldens == {p.stem for p in PAGES}


def test_injected_page_loses_every_hidden_instruction_and_keeps_its_content() -> None:
    md = extract_markdown((DATA / "pages" / "kaggle_injected_overview.html").read_text())
    for hidden in ("IGNORE ALL PREVIOUS", "SYSTEM:", "Assistant: open", "New instructions",
                   "ignore previous instructions", "9999"):
        assert hidden not in md
    assert "Predict a quantitative measure of disease progression" in md


def test_site_chrome_is_pruned_but_title_and_content_stay() -> None:
    md = extract_markdown((DATA / "pages" / "kaggle_evaluation.html").read_text())
    for noise in ("Sign In", "cookies", "Sponsored", "Share on", "Subscribe", "Trending",
                  "Privacy"):
        assert noise not in md
    assert md.startswith("# Breast Cancer Diagnosis")
    assert "area under the ROC curve" in md


def test_code_block_keeps_the_submission_header_verbatim() -> None:
    md = extract_markdown((DATA / "pages" / "kaggle_evaluation.html").read_text())
    assert "```\nid,malignant\nbre_0000,0.5\n" in md


def test_table_without_header_row_gets_its_first_row_as_header() -> None:
    md = html_to_markdown_primary((DATA / "pages" / "div_soup.html").read_text())
    lines = md.splitlines()
    i = lines.index("| substation_id | timestamp | load_mw |")
    assert lines[i + 1] == "| --- | --- | --- |"
    # colspan keeps the column count; a pipe inside a cell is escaped
    assert lines[i + 3] == "| S02 | missing \\| later |  |"


def test_div_soup_prunes_menus_and_ads_but_not_words_containing_ad() -> None:
    md = extract_markdown((DATA / "pages" / "div_soup.html").read_text())
    assert "Download the data" in md  # "download" and "shadow" contain "ad" but are content
    assert "load_mw" in md and "\\_" not in md
    for noise in ("Challenges", "cookies", "Win a GPU", "Another challenge", "Top teams",
                  "Imprint", "report the metric as accuracy"):
        assert noise not in md
    assert "```python\ndef score(y, p):" in md


def test_comments_and_aria_hidden_text_are_removed() -> None:
    html = ("<main><p>visible text that is long enough to count as the page content here</p>"
            "<!-- hidden instruction --><span aria-hidden='true'>screen-reader-hidden</span>"
            "<p style='visibility: hidden'>invisible</p></main>")
    md = extract_markdown(html)
    assert "visible text" in md
    assert "hidden instruction" not in md and "screen-reader-hidden" not in md
    assert "invisible" not in md


def test_tiny_primary_output_falls_back_to_trafilatura() -> None:
    # A <main> that holds only a placeholder while the text sits beside it: the rules read
    # main and find almost nothing; trafilatura reads the whole page.
    body = " ".join(["The training data holds sensor readings from forty turbines."] * 6)
    html = (f"<html><body><main><p>Loading</p></main><div class='x'><p>{body}</p></div>"
            "</body></html>")
    assert html_to_markdown_primary(html).strip() == "Loading"
    assert "sensor readings" in html_to_markdown_trafilatura(html)
    assert "sensor readings" in extract_markdown(html)


def test_empty_page_gives_empty_markdown() -> None:
    assert extract_markdown("<html><body></body></html>") == ""
