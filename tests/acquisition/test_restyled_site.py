"""Our own pages after a redesign extract to the same Markdown (real Chromium, local site).

``restyled-<slug>`` serves a competition's pages with every class hashed and ids holding the
words menu, nav and sidebar on the blocks (tambench.testing.site.restyle). Each page of each
style is rendered by Chromium before and after, and converted through the generic path (and,
for the Kaggle style, whose adapter keys on ids and test ids, through the adapter path).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tambench.acquisition.fetch import PageFetcher
from tambench.acquisition.hooks import Hook
from tambench.acquisition.markdown import extract_markdown
from tambench.acquisition.pipeline import page_markdown
from tambench.acquisition.platforms import get_adapter
from tambench.acquisition.platforms.generic import GenericAdapter
from tambench.testing.site import RunningSite
from tambench.testing.site.restyle import RESTYLED_PREFIX

from .conftest import BrowserHarness
from .real_pages import heading_texts, separate_items

SLUG = "breast-cancer-diagnosis"
PAGES = [("kaggle", "overview"), ("kaggle", "data"), ("kaggle", "rules"),
         ("aicrowd", "overview"), ("aicrowd", "data"), ("aicrowd", "rules"),
         ("biendata", "overview"), ("biendata", "data"), ("biendata", "evaluation"),
         ("biendata", "rules"), ("novel", "task"), ("novel", "dataset"), ("novel", "scoring"),
         ("novel", "terms")]
#: Chrome of the site's styles: navigation, consent banners, icon ligatures, closed dialogs.
CHROME = ("Skip to content", "Recently Viewed", "Your Work", "New Notebook", "emoji_events",
          "more_horiz", "Submit Prediction", "I Understand and Accept", "uses cookies",
          "We use cookies", "Got it", "Accept all", "We are hiring", "Sign In", "Contest Hub",
          "Notebooks](", "Standings](", "Final Leaderboard](", "Terms · Privacy")


async def _fetch_all(harness: BrowserHarness, site: RunningSite) -> dict[tuple[str, ...], str]:
    out = {}
    async with PageFetcher(harness.settings, browser=harness.browser) as fetcher:
        for platform, kind in PAGES:
            for slug in (SLUG, RESTYLED_PREFIX + SLUG):
                if platform == "novel":
                    url = f"{site.base_url}/novel/contest/{slug}/{kind}"
                    adapter: Any = GenericAdapter.for_url(url)
                    hooks, region = (Hook("h1"),), ()
                else:
                    adapter = get_adapter(platform, base_url=site.base_urls[platform])
                    spec = {s.kind: s for s in adapter.page_specs(slug)}[kind]
                    url = spec.url
                    # the Kaggle adapter's hooks are ids and test ids; the others' are classes
                    hooks = spec.hooks if platform == "kaggle" else (Hook("h1"),)
                    region = spec.region if platform == "kaggle" else ()
                page = await fetcher.fetch_page(url, adapter, adapter.url_policy(), hooks=hooks,
                                                region=region)
                out[(platform, kind, "restyled" if slug != SLUG else "original")] = page.html
    return out


@pytest.fixture(scope="module")
def rendered(harness: BrowserHarness, site: RunningSite) -> dict[tuple[str, ...], str]:
    """Every page, original and restyled, as Chromium rendered it (MARK_HIDDEN_JS applied)."""
    return harness.run(_fetch_all(harness, site))


def _same_links(md: str) -> str:
    return md.replace(RESTYLED_PREFIX, "")


def test_the_restyled_pages_have_hashed_classes_and_ids_with_menu_nav_and_sidebar(
        rendered: dict[tuple[str, ...], str]) -> None:
    ids: dict[str, list[str]] = {}
    for (platform, kind, version), html in rendered.items():
        classes = {c for value in re.findall(r'class="([^"]*)"', html) for c in value.split()}
        if version == "restyled":
            assert classes and all(re.fullmatch(r"c[0-9a-f]{6}", c) for c in classes), (
                platform, kind, sorted(c for c in classes if not c.startswith("c"))[:5])
            found = re.findall(r'id="([^"]*(?:menu|nav|sidebar)[^"]*)"', html)
            assert found, (platform, kind)
            ids.setdefault(platform, []).extend(found)
        else:
            assert not all(re.fullmatch(r"c[0-9a-f]{6}", c) for c in classes)
    for platform, names in ids.items():
        for word in ("menu", "nav", "sidebar"):
            assert any(word in i for i in names), (platform, word)
    overview = rendered[("kaggle", "overview", "restyled")]
    assert 'id="combo-tags-menu-chipset"' in overview and "OK, Got it." in overview


@pytest.mark.parametrize("platform, kind", PAGES)
def test_a_restyled_page_gives_the_same_markdown_through_the_generic_path(
        rendered: dict[tuple[str, ...], str], site: RunningSite, platform: str,
        kind: str) -> None:
    before = extract_markdown(rendered[(platform, kind, "original")])
    after = _same_links(extract_markdown(rendered[(platform, kind, "restyled")]))
    comp = site.state.competitions[SLUG]
    assert comp.title in heading_texts(after)
    for noise in CHROME:
        assert noise not in after, noise
    if (platform, kind) == ("kaggle", "data"):
        _only_the_data_explorer_differs(before, after)
        return
    assert after == before
    if kind in ("overview", "task"):
        assert "## Description" in after and "Fine-needle aspirates" in after
    if platform == "kaggle" and kind == "overview":
        assert separate_items(after, comp.tags)


@pytest.mark.parametrize("kind", ["overview", "data", "rules"])
def test_a_restyled_kaggle_page_gives_the_same_markdown_through_the_adapter_path(
        rendered: dict[tuple[str, ...], str], site: RunningSite, kind: str) -> None:
    spec = {s.kind: s for s in get_adapter("kaggle").page_specs(SLUG)}[kind]
    before = page_markdown(rendered[("kaggle", kind, "original")], spec)
    after = _same_links(page_markdown(rendered[("kaggle", kind, "restyled")], spec))
    assert "Breast Cancer Diagnosis" in heading_texts(after)
    for noise in CHROME:
        assert noise not in after, noise
    if kind == "data":
        _only_the_data_explorer_differs(before, after)
        return
    assert after == before
    if kind == "overview":
        assert separate_items(after, site.state.competitions[SLUG].tags)
        assert "## Tags\n\nTabular, Binary Classification, Medicine" in after


def _only_the_data_explorer_differs(before: str, after: str) -> None:
    """The one difference a redesign makes: the data-explorer widget, which nothing but its
    class name tells from content (a file list and a preview table under no heading), is kept
    once its class is hashed. Everything before it is unchanged."""
    assert "Data Explorer" not in before
    assert after.startswith(before.rstrip("\n"))
    extra = after[len(before.rstrip("\n")):].strip()
    assert extra.startswith("Data Explorer\n\nsample_submission.csv\n\ntrain.csv\n\n| id | value |")
