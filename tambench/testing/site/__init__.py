"""The local competition site: Kaggle-, AIcrowd- and Biendata-style pages on 127.0.0.1.

The Kaggle and AIcrowd styles are built from the structure of the real sites (see
:mod:`~tambench.testing.site.kaggle_style` and :mod:`~tambench.testing.site.aicrowd_style`),
so that acquisition is tested against what the real sites do. ``with serve_site() as site:``
serves the bundled demo competitions (and, given a folder, the competition texts in it) with
fault routes and a canary; ``tambench site serve`` does the same from the command line.
"""

from tambench.testing.site.competitions import (
    DEMO_REFS,
    DEMO_SLUGS,
    SiteCompetition,
    split_description,
)
from tambench.testing.site.serve import RunningSite, serve_site
from tambench.testing.site.server import FAULT_SLUGS

__all__ = ["DEMO_REFS", "DEMO_SLUGS", "FAULT_SLUGS", "RunningSite", "SiteCompetition", "serve_site",
           "split_description"]
