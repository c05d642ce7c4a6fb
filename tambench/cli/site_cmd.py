"""``tambench site serve``: the local competition site."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

site_app = typer.Typer(help="The local competition site (Kaggle-, AIcrowd-, Biendata-style).",
                       no_args_is_help=True)


@site_app.command("serve")
def serve(
    port: int = typer.Option(8000, "--port", min=0, max=65535,
                             help="Port on 127.0.0.1 (0: any free port)."),
    seed: int = typer.Option(0, "--seed", help="Seed of leaderboards and baseline splits."),
    descriptions: Path | None = typer.Option(None, "--descriptions", help="Folder of "
                                             "competition Markdown files to serve as well."),
    no_demo: bool = typer.Option(False, "--no-demo", help="Leave out the demo competitions."),
) -> None:
    """Serve the site on 127.0.0.1 until interrupted."""
    from tambench.cli._console import console
    from tambench.testing.site import serve_site
    from tambench.testing.site.server import comp_base

    with serve_site(descriptions, port=port, seed=seed, demo=not no_demo) as site:
        console.print(f"serving {len(site.slugs)} competitions at {site.base_url}, each in "
                      f"every platform style:", markup=False)
        for name, url in site.base_urls.items():
            console.print(f"  {name:<9} {url}   (tambench acquire {name}:SLUG --base-url "
                          f"{name}={url})", markup=False)
        console.print("competitions (SLUG, title, overview page in the Kaggle style):",
                      markup=False)
        for slug in site.slugs:
            comp = site.state.competitions[slug]
            console.print(f"  {slug}  {comp.title}  {site.base_url}{comp_base('kaggle', slug)}",
                          markup=False)
        sys.stdout.flush()  # a reader of a pipe sees the list while the site runs
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(site_app, name="site")
