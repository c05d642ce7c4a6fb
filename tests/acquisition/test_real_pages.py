"""Acquisition on real pages: Markdown of the content region, leaderboards, blocks, app shells.

The pages (listed in :mod:`.real_pages`) are read from ../shared/data/real-pages (provenance
in its README) and tests/data/real-pages (provenance in that README). Every page goes through
both extraction paths, the adapter path (the platform's region) and the generic path (no
region, the rules checked against trafilatura), or the generic path alone on a platform
without an adapter (CodaLab), each against its golden Markdown and the
done-when checks: the title is a heading, named content is kept, no navigation, consent or
icon text remains, tags are separate items.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.acquisition.hooks import app_shell_reason, first_match
from tambench.acquisition.leaderboard import leaderboard_from_pages, parse_leaderboard_html
from tambench.acquisition.markdown import (
    clean_soup,
    extract_markdown,
    generic_markdown,
    visible_text,
)
from tambench.acquisition.platforms import PageSpec, get_adapter
from tambench.acquisition.second_opinion import CLEAR_LEAD, score

from .real_pages import (
    ICON_LINE,
    NOISE,
    PAGES,
    RealPage,
    heading_texts,
    markdown,
    separate_items,
)

HERE = Path(__file__).resolve().parents[1] / "data"
GOLDEN = {"adapter": HERE / "golden" / "real", "generic": HERE / "golden" / "real-generic"}
KAGGLE = {s.kind: s for s in get_adapter("kaggle").page_specs("x")}
BOTH = [pytest.param(page, path, id=f"{page.stem}-{path}")
        for page in PAGES for path in page.paths]
BY_NAME = {Path(p.file).name: p for p in PAGES}


def _path(shared_dir: Path, name: str) -> Path:
    return BY_NAME[name].path(shared_dir)


def _markdown(shared_dir: Path, name: str) -> str:
    return markdown(BY_NAME[name], shared_dir, "adapter")


@pytest.mark.parametrize("page, path", BOTH)
def test_real_page_markdown_has_its_title_content_and_tags_and_no_chrome(
        shared_dir: Path, page: RealPage, path: str) -> None:
    md = markdown(page, shared_dir, path)
    if page.title is not None:
        assert page.title in heading_texts(md), (path, heading_texts(md)[:5])
    for text in page.phrases:
        assert text in md, (path, text)
    for noise in NOISE:
        assert noise not in md, (path, noise)
    assert [ln for ln in md.splitlines() if ICON_LINE.match(ln.strip())] == [], path
    if page.tags:
        assert separate_items(md, page.tags), (path, page.tags)
    if page.title is None and not page.phrases:  # an empty application shell
        assert md == ""


@pytest.mark.parametrize("page, path", BOTH)
def test_real_page_converts_to_its_golden_markdown(shared_dir: Path, page: RealPage, path: str,
                                                   update_golden: bool) -> None:
    md = markdown(page, shared_dir, path)
    golden = GOLDEN[path] / f"{page.stem}.md"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(md, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}; run pytest --update-golden and review it"
    assert md == golden.read_text(encoding="utf-8")


def test_every_golden_has_its_real_page() -> None:
    for path, folder in GOLDEN.items():
        assert {p.stem for p in folder.glob("*.md")} == {p.stem for p in PAGES
                                                          if path in p.paths}, path


def test_the_same_pages_without_the_region_would_leak_navigation(shared_dir: Path) -> None:
    """The region is what keeps the navigation out: <main> alone holds the whole app."""
    html = _path(shared_dir, "k_titanic_submissions_2024.html").read_text(encoding="utf-8")
    whole_main = extract_markdown(html, region=("main",))
    assert "Skip to content" in whole_main or "Competitions](" in whole_main
    assert "Skip to content" not in _markdown(shared_dir, "k_titanic_submissions_2024.html")


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_no_real_page_is_taken_for_a_block_although_two_hold_a_hidden_rules_dialog(
        shared_dir: Path, name: str) -> None:
    html = _path(shared_dir, name).read_text(encoding="utf-8")
    adapter = get_adapter("kaggle")
    assert adapter.detect_block_text(visible_text(html)) in (None, "rules")
    if name != "kaggle_rules_2015.html":  # that one shows its notice, and its rules
        assert adapter.detect_block_text(visible_text(html)) is None, name


def test_the_hidden_rules_dialogs_are_in_the_raw_text_so_the_visible_check_matters(
        shared_dir: Path) -> None:
    for name in ("k_houseprices.html", "k_nyctaxi.html"):
        html = _path(shared_dir, name).read_text(encoding="utf-8")
        raw = " ".join(clean_soup("").get_text().split()) + html
        assert "I Understand and Accept" in raw or "I understand and accept" in raw
        assert "understand and accept" not in visible_text(html).lower(), name


def test_a_rules_page_that_shows_its_rules_is_content_not_a_block() -> None:
    html = (HERE / "real-pages" / "kaggle_rules_2015.html").read_text(encoding="utf-8")
    spec: PageSpec = KAGGLE["rules"]
    assert first_match(clean_soup(html), spec.hooks) is not None


@pytest.mark.parametrize("name, kind", [("k_titanic_data_2017.html", "data"),
                                        ("k_predictfuturesales_2019.html", "data"),
                                        ("k_nyctaxi.html", "data"),
                                        ("kaggle_rules_2015.html", "rules")])
def test_content_hooks_match_real_pages_of_their_kind(shared_dir: Path, name: str,
                                                      kind: str) -> None:
    soup = clean_soup(_path(shared_dir, name).read_text(encoding="utf-8"))
    assert first_match(soup, KAGGLE[kind].hooks) is not None


def test_the_raw_server_response_is_recognised_as_a_javascript_shell(shared_dir: Path) -> None:
    html = _path(shared_dir, "k_banana_writeups_raw_2025.html").read_text(encoding="utf-8")
    assert extract_markdown(html, region=KAGGLE["overview"].region) == ""
    reason = app_shell_reason(clean_soup(html))
    assert reason is not None and "#root" in reason
    rendered = _path(shared_dir, "k_titanic_submissions_2024.html").read_text(encoding="utf-8")
    assert app_shell_reason(clean_soup(rendered)) is None


def test_the_real_kaggle_leaderboard_fragment_parses_into_its_row(shared_dir: Path) -> None:
    html = _path(shared_dir, "k_leaderboard_2022_fragment.html").read_text(encoding="utf-8")
    page = parse_leaderboard_html(html, get_adapter("kaggle").board.scope)  # type: ignore[union-attr]
    assert page.shape == "list"
    assert page.header == ["#", "Team", "Members", "Score", "Entries", "Last", "Code"]
    board = leaderboard_from_pages([page]).leaderboard
    (row,) = board.rows
    assert (row.rank, row.team, row.score, row.entries) == (1, "no name", 1.0, 214)
    assert row.submitted_at == "5/18/2022, 12:19:39 PM EDT"  # the tooltip's time, not "3h"


def test_the_aicrowd_template_leaderboard_parses_with_its_real_columns(shared_dir: Path) -> None:
    path = shared_dir / "data" / "real-pages" / "aicrowd" / "aicrowd_leaderboard_TEMPLATE_DERIVED.html"
    page = parse_leaderboard_html(path.read_text(encoding="utf-8"),
                                  get_adapter("aicrowd").board.scope)  # type: ignore[union-attr]
    assert page.header[:4] == ["Δ", "#", "Participants", "Primary Score"]
    result = leaderboard_from_pages([page])
    rows = result.leaderboard.rows
    assert [(r.rank, r.team, r.score, r.entries) for r in rows] == [
        (1, "alice", 0.912, 42), (2, "bob", 0.905, 17)]
    assert rows[0].submitted_at == "2020-03-03T10:11:00"
    (problem,) = result.problems  # the colspan baseline row: reported, not fatal
    assert "row 3" in problem and "Baseline" in problem and "no rank" in problem


def test_one_unreadable_row_is_reported_and_the_rest_of_the_board_stands() -> None:
    html = ("<table><tr><th>#</th><th>Team</th><th>Score</th></tr>"
            "<tr><td>1</td><td>a</td><td>0.9</td></tr>"
            "<tr><td>2</td><td>b</td></tr>"
            "<tr><td>3</td><td>c</td><td>0.7</td></tr></table>")
    result = leaderboard_from_pages([parse_leaderboard_html(html)])
    assert [r.team for r in result.leaderboard.rows] == ["a", "c"]
    assert result.problems == ["leaderboard page 1, row 2: 2 cells, expected 3 ('2 | b'); left out"]


#: Fixtures on which the rules and trafilatura disagree by more than the margin (the rules win
#: all three: trafilatura drops the headings of Kaggle's rendered pages).
DISAGREE = {"k_houseprices", "k_storesales_2023", "k_titanic_submissions_2024"}
FIXTURES = [pytest.param(p, id=p.stem) for p in PAGES] + [
    pytest.param(p, id=p.stem) for p in sorted((HERE / "pages").glob("*.html"))]


@pytest.mark.parametrize("fixture", FIXTURES)
def test_the_generic_path_checks_every_fixture_against_trafilatura_and_keeps_the_better(
        shared_dir: Path, fixture: RealPage | Path) -> None:
    html = (fixture.html(shared_dir) if isinstance(fixture, RealPage)
            else fixture.read_text(encoding="utf-8"))
    verdict = generic_markdown(html)
    assert verdict.markdown == extract_markdown(html)
    kept, other = ((verdict.rules, verdict.trafilatura) if verdict.chosen == "rules"
                   else (verdict.trafilatura, verdict.rules))
    assert score(kept, verdict.totals) >= score(other, verdict.totals) - CLEAR_LEAD
    stem = fixture.stem
    assert verdict.disagreed == (stem in DISAGREE), (stem, verdict.similarity)
