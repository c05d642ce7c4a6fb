"""acquisition: competition URL -> pages (html + Markdown) + leaderboard -> task folder.

Modules, in the order data flows through them:

* :mod:`~tambench.acquisition.platforms`: adapters (one registry of lazy dotted paths)
* :mod:`~tambench.acquisition.urls`: the allow-list checked at every hop
* :mod:`~tambench.acquisition.fetch`: HTTP (bytes, policy) + Chromium (rendering)
* :mod:`~tambench.acquisition.snapshots`: content-addressed pages; the resumable crawl state
* :mod:`~tambench.acquisition.markdown`: ``extract_markdown(html) -> markdown``
* :mod:`~tambench.acquisition.leaderboard`: leaderboard tables of all pages -> one board
* :mod:`~tambench.acquisition.agent`: the browser agent for sites no adapter knows
* :mod:`~tambench.acquisition.pipeline`: ``acquire_competitions(refs, catalogue_dir)``
* :mod:`~tambench.acquisition.discover`: candidate competitions through the kaggle client
* :mod:`~tambench.acquisition.crawl`: many competitions on an executor, one shared rate limit
* :mod:`~tambench.acquisition.site`: the local competition site (tests, demo, benchmark)

Nothing here imports a browser, the kaggle client or an LLM library at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tambench.acquisition.pipeline import AcquireReport, acquire_competitions
    from tambench.acquisition.site import serve_site

__all__ = ["AcquireReport", "acquire_competitions", "extract_markdown", "serve_site"]


def __getattr__(name: str) -> Any:
    # Lazy: importing the package must not pull in the pipeline's dependencies.
    if name in ("AcquireReport", "acquire_competitions"):
        from tambench.acquisition import pipeline

        return getattr(pipeline, name)
    if name == "serve_site":
        from tambench.acquisition.site import serve_site

        return serve_site
    if name == "extract_markdown":
        from tambench.acquisition.markdown import extract_markdown

        return extract_markdown
    raise AttributeError(f"module 'tambench.acquisition' has no attribute {name!r}")
