"""The batch report page in a real Chromium: sorting, filtering, paging, the agent x task
matrix's drill-down to runs and messages, no console errors, and 10,000 runs stay usable.

Set ``TAMBENCH_SCREENSHOT=/path/shot.png`` to keep a screenshot of the explored page.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tambench.grading.batch import grade_runs, write_batch_outputs
from tambench.grading.batch.html import batch_to_html
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.synthetic import synthetic_report
from tests.grading.test_batch import FIXED, make_env, put

pytestmark = pytest.mark.browser


def _chromium() -> str | None:
    for cand in (os.environ.get("TAMBENCH_CHROMIUM"), shutil.which("chromium"),
                 shutil.which("chromium-browser"), "/usr/bin/chromium"):
        if cand and Path(cand).is_file():
            return cand
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = _chromium()
    if exe is None:
        pytest.skip("no Chromium binary (set TAMBENCH_CHROMIUM)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield b
        finally:
            b.close()


class Page:
    """A page with every console error and uncaught exception recorded."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", lambda route: route.abort()
                        if not route.request.url.startswith(("file:", "data:")) else route.continue_())
        start = time.perf_counter()
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready='1']", timeout=60_000)
        self.load_seconds = time.perf_counter() - start

    def column(self, table: str, key: str) -> list[str]:
        """The cells of the column ``key`` (its data-col; grouped headers span several)."""
        index = int(self.page.locator(f"#{table} table.data thead th[data-col='{key}']")
                    .get_attribute("data-index") or "0")
        return self.page.locator(f"#{table} table.data tbody tr td:nth-child({index + 1})")\
            .all_inner_texts()

    def sort(self, table: str, name: str) -> None:
        self.page.locator(f"#{table} table.data thead th[data-col='{name}']").click()


def _numbers(cells: list[str]) -> list[float]:
    return [float(c) for c in cells if c.strip()]


@pytest.fixture(scope="module")
def graded_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    cat, data, runs = make_env(tmp)
    values = TASKS["value"].perfect_rows
    for a, noise in (("steady", 0.3), ("flaky", 1.5), ("<i>bold $x$ [red]", 0.8)):
        for i in range(6):
            if a == "flaky" and i % 2:
                put(runs, a, "value", f"r{i}", "id,y\nnot,a\n")  # invalid
                continue
            put(runs, a, "value", f"r{i}", "id,y\n" + "".join(
                f"{r[0]},{float(r[1]) + noise * (i + 1) / 6:.5f}\n" for r in values))
            put(runs, a, "label", f"r{i}", perfect_text(TASKS["label"]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    return write_batch_outputs(report, tmp / "out")["html"]


def test_report_page_sorts_filters_pages_and_drills_down_without_console_errors(
    browser: Any, graded_page: Path
) -> None:
    p = Page(browser, graded_page)
    page = p.page
    # agents table: sorted by weighted rank, ascending then descending
    p.sort("agents-table", "rank")
    ranks = _numbers(p.column("agents-table", "rank"))
    assert ranks == sorted(ranks) and len(ranks) == 3
    p.sort("agents-table", "rank")
    assert _numbers(p.column("agents-table", "rank")) == sorted(ranks, reverse=True)
    # runs table: filter by text, then by status
    runs_filter = page.locator("#runs-table input.filter")
    runs_filter.fill("flaky")
    agents = set(p.column("runs-table", "agent"))
    assert agents == {"flaky"}
    assert page.locator("#runs-table .count").inner_text().startswith("9 of ")
    runs_filter.fill("")
    page.locator("#runs-table select.status-filter").select_option("invalid_submission")
    statuses = set(p.column("runs-table", "status"))
    assert statuses == {"invalid_submission"}
    page.locator("#runs-table select.status-filter").select_option("")
    # a name that looks like markup is shown as text
    assert "<i>bold $x$ [red]" in p.column("agents-table", "agent")
    assert page.locator("#agents-table i").count() == 0
    # drill-down: the flaky agent's cell on the value task lists its runs and their messages
    page.locator("#matrix td[data-agent='flaky'][data-task='test/value']").click()
    drill = page.locator("#drill")
    assert drill.is_visible()
    assert "flaky on test/value: 6 run(s)" in drill.locator("h3").inner_text()
    assert drill.locator("#drill-runs table.data tbody tr").count() == 6
    messages = drill.locator(".messages li").all_inner_texts()
    assert any("`y`" in m or "column" in m or "id" in m for m in messages), messages
    # a run row opens its own messages
    page.locator("#runs-table table.data tbody tr").first.click()
    assert page.locator("#drill .messages h4").count() == 1
    shot = os.environ.get("TAMBENCH_SCREENSHOT")
    if shot:
        page.locator("#matrix td[data-agent='flaky'][data-task='test/value']").click()
        page.screenshot(path=shot, full_page=True)
    assert p.errors == []
    page.close()


def test_report_page_with_10000_runs_loads_fast_and_pages(browser: Any, tmp_path: Path) -> None:
    report = synthetic_report(10_000, n_agents=10, n_tasks=100)
    path = tmp_path / "report.html"
    path.write_text(batch_to_html(report), encoding="utf-8")
    size_mb = path.stat().st_size / 1e6
    p = Page(browser, path)
    page = p.page
    assert page.locator("#runs-table .count").inner_text() == "10000 of 10000 rows"
    assert page.locator("#runs-table table.data tbody tr").count() == 50  # one page only
    page.locator("#runs-table button.next").click()
    assert page.locator("#runs-table .page").inner_text() == "page 2 of 200"
    start = time.perf_counter()
    page.locator("#runs-table input.filter").fill("agent-03")
    assert page.locator("#runs-table .count").inner_text() == "1000 of 10000 rows"
    filter_seconds = time.perf_counter() - start
    p.sort("runs-table", "score")
    scores = _numbers(p.column("runs-table", "score"))
    assert scores == sorted(scores)
    assert page.locator("#matrix td.cell").count() == 10 * 100
    print(f"10,000 runs: {size_mb:.2f} MB, loaded in {p.load_seconds:.2f} s, "
          f"filtered in {filter_seconds:.2f} s (load average {os.getloadavg()[0]:.1f})")
    assert size_mb < 10 and p.load_seconds < 30
    assert p.errors == []
    page.close()
