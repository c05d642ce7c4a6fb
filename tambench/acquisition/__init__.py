"""acquisition: competition URL -> pages (html + Markdown) + leaderboard -> task folder.

Modules, in the order data flows through them:

* :mod:`~tambench.acquisition.platforms`: adapters (one registry of lazy entries): where the
  pages are, their content hooks and regions
* :mod:`~tambench.acquisition.urls`: the allow-list checked at every hop
* :mod:`~tambench.acquisition.retry`: the one retry policy (Retry-After honoured)
* :mod:`~tambench.acquisition.kaggle_client`: Kaggle's official API (metadata, files, the
  complete leaderboard)
* :mod:`~tambench.acquisition.fetch`: the page fetcher over :mod:`~tambench.acquisition.http`
  and :mod:`~tambench.acquisition.browser` (Chromium, the page's own traffic intact, through
  :mod:`~tambench.acquisition.proxy`)
* :mod:`~tambench.acquisition.hooks`: signs that a page's content has rendered
* :mod:`~tambench.acquisition.snapshots`: content-addressed pages; the resumable crawl state
* :mod:`~tambench.acquisition.markdown`: ``extract_markdown(html, region=...) -> markdown``
* :mod:`~tambench.acquisition.leaderboard`: tables and Kaggle's lists -> one board
* :mod:`~tambench.acquisition.agent`: the browser agent for sites no adapter knows
* :mod:`~tambench.acquisition.assemble`: pages + board + API metadata -> a task folder
* :mod:`~tambench.acquisition.pipeline`: ``acquire_competitions(refs, catalogue_dir)``
* :mod:`~tambench.acquisition.discover`: candidate competitions through the kaggle client
* :mod:`~tambench.acquisition.crawl`: many competitions on an executor, one shared rate limit

The local competition site the tests and the demo use is :mod:`tambench.testing.site`.
Nothing here imports a browser, the kaggle client or an LLM library at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tambench.acquisition.pipeline import AcquireReport, acquire_competitions

__all__ = ["AcquireReport", "acquire_competitions", "extract_markdown"]


def __getattr__(name: str) -> Any:
    # Lazy: importing the package must not pull in the pipeline's dependencies.
    if name in ("AcquireReport", "acquire_competitions"):
        # start-up: saves 701 ms (the pipeline: numpy, asyncio)
        from tambench.acquisition import pipeline

        return getattr(pipeline, name)
    if name == "extract_markdown":
        # start-up: saves 31 ms (the Markdown extractor)
        from tambench.acquisition.markdown import extract_markdown

        return extract_markdown
    raise AttributeError(f"module 'tambench.acquisition' has no attribute {name!r}")
