"""The report page's layout in a real Chromium at 1,024 and 1,400 px: nothing wider than the
window but the agent x task matrix in its own scroller, matrix headers whole, identifiers on
one line, one number format per column, agents by the headline number, and figures whose
error bars are real intervals (none drawn, and the caption saying why, without one) and whose
legends stay clear of the bars. Screenshots go to ``TAMBENCH_SHOTS`` when it is set."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tambench.grading.batch import Aggregation, BatchReport, summarise
from tambench.grading.batch.html import batch_to_html
from tests.grading.synthetic import NOW, synthetic_rows
from tests.grading.test_report_browser import Page, browser  # noqa: F401 (fixture)

pytestmark = pytest.mark.browser

SLUGS = ["new-york-city-taxi-fare-prediction", "text-normalization-challenge-english-language",
         "tensorflow-speech-recognition-challenge", "statoil-iceberg-classifier-challenge",
         "binary-prediction-of-poisonous-mushrooms", "eedi-mining-misconceptions-in-mathematics",
         "image-matching-challenge-2024-hexathlon", "multi-modal-gesture-recognition",
         "stanford-covid-vaccine", "cornell-birdcall-identification", "planttraits2024",
         "denoising-dirty-documents"]
AGENTS = ["aide-gpt-4o-2024-08-06", "opendevin-claude-3-5-sonnet", "mlab-llama-3.1-405b",
          "carelessly-named-agent-with-a-long-name", "baseline"]


def _report() -> BatchReport:
    rows = synthetic_rows(len(AGENTS) * len(SLUGS) * 3, len(AGENTS), len(SLUGS), seed=3)
    renamed = []
    for r in rows:
        a, t = AGENTS[int(r.agent[-2:])], SLUGS[int(r.task[-3:])]
        renamed.append(r.model_copy(update={
            "agent": a, "task": t, "task_id": f"kaggle/{t}", "competition_id": t,
            "run": f"run-{int(r.run[-5:]) // (len(AGENTS) * len(SLUGS)) + 1}",
            "submission_path": f"{a}/{t}/sub.csv"}))
    one_shot = [r.model_copy(update={"agent": "one-shot-agent"}) for r in renamed
                if r.agent == "baseline" and r.run == "run-1"]  # one run per task: no interval
    rows = sorted(renamed + one_shot, key=lambda r: (r.agent, r.task, r.run))
    agg = Aggregation(bootstrap_samples=200)
    agents, comparisons = summarise(rows, agg)
    return BatchReport(created_at=NOW, runs_dir="runs", aggregation=agg,
                       aggregation_rule=agg.statement, warnings=[], rows=rows, agents=agents,
                       comparisons=comparisons)


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("layout") / "report.html"
    path.write_text(batch_to_html(_report()), encoding="utf-8")
    return path


OVERFLOW_JS = """() => {
  const width = window.innerWidth;
  const scrollers = [...document.querySelectorAll('.scroller')];
  const wide = [];
  for (const node of document.body.querySelectorAll('*')) {
    if (scrollers.some(s => s.contains(node))) continue;
    const box = node.getBoundingClientRect();
    if (box.width > 0 && (box.right > width + 0.5 || box.width > width)) {
      const home = node.closest('[id]');
      wide.push(node.tagName + ' in #' + (home ? home.id : '-') + ' ' + Math.round(box.width));
    }
  }
  // a table wider than its frame scrolls, and its toolbar says so above it
  const unsaid = [];
  for (const t of document.querySelectorAll('.scroller > table.data')) {
    const s = t.parentElement;
    const hint = s.parentElement.querySelector('.scroll-hint').textContent;
    if ((s.scrollWidth > s.clientWidth + 1) !== (hint !== '')) {
      unsaid.push(s.parentElement.id + ': ' + s.scrollWidth + '/' + s.clientWidth + ' ' + hint);
    }
  }
  // no column is hidden from view
  const hidden = [...document.querySelectorAll('table.data th[data-col]')]
    .filter(th => th.getBoundingClientRect().width === 0).map(th => th.dataset.col);
  return {page: document.documentElement.scrollWidth, width, wide: wide.slice(0, 10), unsaid,
          hidden};
}"""

WRAPPED_JS = """() => {
  const wrapped = [];
  for (const td of document.querySelectorAll('table.data td:not(.wrap), table.matrix th')) {
    if (!td.textContent) continue;
    const range = document.createRange();
    range.selectNodeContents(td);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) wrapped.push(td.textContent);
  }
  return wrapped.slice(0, 10);
}"""

CUT_JS = """() => [...document.querySelectorAll('#matrix th.task')]
  .filter(th => th.scrollHeight > th.clientHeight + 1 || th.scrollWidth > th.clientWidth + 1)
  .map(th => th.textContent)"""


def _columns(page: Any, table: str) -> dict[str, list[str]]:
    return page.locator(f"#{table} table.data").evaluate("""t => {
      const out = {};
      for (const th of t.tHead.querySelectorAll('th[data-col]')) {
        const i = Number(th.dataset.index);
        out[th.dataset.col] = [...t.tBodies[0].rows].map(r => r.cells[i].textContent);
      }
      return out;
    }""")


def _number_format(cell: str) -> str:
    if re.fullmatch(r"-?\d+\.\d+e[+-]\d+", cell):
        return "exp"
    if re.fullmatch(r"-?\d+", cell):
        return "int"
    if re.fullmatch(r"-?\d+\.(\d+)", cell):
        return f"fixed{len(cell.split('.')[1])}"
    return "text"


@pytest.mark.parametrize("width", [1024, 1400])
def test_the_report_fits_the_window_and_reads_cleanly(
    browser: Any, page_file: Path, width: int,  # noqa: F811
) -> None:
    p = Page(browser, page_file)
    page = p.page
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(200)
    shots = os.environ.get("TAMBENCH_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"report-{width}.png"), full_page=True)
    found = page.evaluate(OVERFLOW_JS)
    assert found["page"] <= width and found["wide"] == [], found
    assert found["unsaid"] == [] and found["hidden"] == [], found
    for key in ("rank", "first", "tier", "failed", "medals"):  # once left out below 1,200 px
        assert page.locator(f'th[data-col="{key}"]').first.is_visible(), key
    # the metric of each task is in the Tasks table
    assert set(_columns(page, "tasks-table")["metric"]) == {"rmse"}
    assert page.evaluate(CUT_JS) == []  # matrix headers whole
    assert page.evaluate(WRAPPED_JS) == []  # no identifier broken over lines (run-1, ...)
    # one number format per column, in every table
    for table in ("agents-table", "tasks-table", "runs-table", "comparisons-table"):
        for key, cells in _columns(page, table).items():
            kinds = {_number_format(c) for c in cells if c}
            assert len(kinds) <= 1, (table, key, kinds)
    # agents by the headline number, lower rank % first
    agents = _columns(page, "agents-table")
    ranks = [float(v) for v in agents["rank"] if v]
    assert ranks == sorted(ranks) and len(ranks) == len(AGENTS) + 1
    # the estimates grouped under one header each, the interval in one column
    groups = page.locator("#agents-table thead th.group").all_inner_texts()
    assert groups == ["weighted rank %", "any medal %", "medals %"]
    assert all(re.fullmatch(r"\d+\.\d–\d+\.\d", c) for c in agents["rank_ci"] if c)
    assert p.errors == []
    page.close()


FIGURE_JS = """() => {
  const box = el => el.getBoundingClientRect();
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
                            a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const bars = [...document.querySelectorAll('[id^="bar-"]')].map(box)
    .filter(b => b.height > 0.5);
  const legend = document.getElementById('legend');
  const errors = [...document.querySelectorAll('#errorbar path')].map(p => p.getBBox().height);
  const svg = document.querySelector('svg');
  const title = svg.querySelector('text').getBBox();
  const ticks = [...svg.querySelectorAll('text[text-anchor="end"]')]
    .map(t => Number(t.textContent)).filter(v => !Number.isNaN(v));
  return {
    bars: bars.length, errors,
    legendOverBars: legend ? bars.filter(b => overlap(box(legend), b)).length : null,
    title: svg.querySelector('text').textContent,
    titleInside: title.x >= 0 && title.x + title.width <= svg.width.baseVal.value,
    topTick: Math.max(...ticks),
  };
}"""


def _figures(browser: Any, html: str) -> dict[str, tuple[dict[str, Any], str]]:  # noqa: F811
    """Each figure of a page, drawn alone in Chromium: what FIGURE_JS finds, and its caption."""
    figures = re.findall(r'<figure><img alt="([^"]+)" src="data:image/svg\+xml;base64,'
                         r'([A-Za-z0-9+/=]+)">(?:<figcaption>([^<]*)</figcaption>)?', html)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    by_title = {}
    for title, data, caption in figures:
        svg = base64.b64decode(data).decode("utf-8")
        svg = svg[svg.index("<svg"):]
        page.set_content(f"<html><body style='margin:0'>{svg}</body></html>")
        by_title[title] = (page.evaluate(FIGURE_JS), caption)
    page.close()
    return by_title


def test_figures_draw_real_intervals_and_keep_legends_clear(
    browser: Any, page_file: Path,  # noqa: F811
) -> None:
    by_title = _figures(browser, page_file.read_text(encoding="utf-8"))
    assert len(by_title) == 4
    rank, rank_caption = by_title["Modality-weighted rank % (lower is better), with intervals"]
    # one error bar per agent with an interval, none of zero length, and none for the agent
    # with one run per task: the caption says why
    assert len(rank["errors"]) == len(AGENTS) and min(rank["errors"]) > 0.5, rank
    assert rank_caption.startswith("No error bar for one-shot-agent: one run per task, so")
    medal, _ = by_title["Medal rate (% of runs on tasks with a leaderboard)"]
    assert medal["errors"] and min(medal["errors"]) > 0.5
    assert medal["topTick"] == 100  # a rate's axis ends at 100 %
    assert all(found["titleInside"] for found, _ in by_title.values())
    for title in ("Rank % by difficulty (lower is better)", "Rank % by modality (lower is better)",
                  "Medal rate (% of runs on tasks with a leaderboard)"):
        found, _ = by_title[title]
        assert found["bars"] > 0 and found["legendOverBars"] == 0, (title, found)


def test_long_agent_names_leave_the_figure_titles_whole(browser: Any) -> None:  # noqa: F811
    rows = synthetic_rows(2 * len(SLUGS) * 2, 2, len(SLUGS), seed=5)
    names = ["an-agent-with-a-very-long-name-indeed-v1", "another-agent-with-a-long-name-v2"]
    rows = [r.model_copy(update={"agent": names[int(r.agent[-2:])]}) for r in rows]
    # every valid run of the first agent earns gold: a medal rate of 100 %
    rows = [r.model_copy(update=dict.fromkeys(("any_medal", "gold_medal"), True))
            if r.agent == names[0] and r.valid_submission else r for r in rows]
    agg = Aggregation(bootstrap_samples=50)
    agents, comparisons = summarise(rows, agg)
    report = BatchReport(created_at=NOW, runs_dir="runs", aggregation=agg,
                         aggregation_rule=agg.statement, warnings=[], rows=rows,
                         agents=agents, comparisons=comparisons)
    by_title = _figures(browser, batch_to_html(report))
    assert len(by_title) >= 2
    for title, (found, _) in by_title.items():
        assert found["title"] == title and found["titleInside"], (title, found)
    medal, _ = by_title["Medal rate (% of runs on tasks with a leaderboard)"]
    assert medal["topTick"] == 100, medal  # not past 100 %, however high the bars
