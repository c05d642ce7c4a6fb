"""The local competition site: Kaggle-, AIcrowd- and Biendata-style pages on 127.0.0.1.

``with serve_site() as site:`` serves the bundled demo competitions (and, given a folder, the
competition texts in it) with fault routes and a canary; ``tambench site serve`` does the same
from the command line.
"""

from tambench.acquisition.site.competitions import (
    DEMO_REFS,
    DEMO_SLUGS,
    SiteCompetition,
    split_description,
)
from tambench.acquisition.site.server import FAULT_SLUGS, RunningSite, serve_site

__all__ = ["DEMO_REFS", "DEMO_SLUGS", "FAULT_SLUGS", "RunningSite", "SiteCompetition", "serve_site",
           "split_description"]
