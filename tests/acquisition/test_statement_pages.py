"""A competition's pages obtained from each kind of page source, checksum checked, converted.

Real page texts from ../shared/data (MLE-bench-style descriptions, a saved Kaggle page, the
paper's schema JSON) laid out as a peer's repository, served by a local HTTP server at
127.0.0.1, or kept as acquired pages.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tambench.acquisition.statement_pages import (
    PageOptions,
    load_pages,
    obtain_pages,
    parse_pages_from,
    save_pages,
)
from tambench.errors import SourceError
from tambench.schema.taskspec import PageSource, TaskSpec

SLUG = "denoising-dirty-documents"
COMMIT = "a" * 40
MLE_PATH = f"mlebench/competitions/{SLUG}/description.md"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _spec(*sources: PageSource, slug: str = SLUG) -> TaskSpec:
    return TaskSpec(id=f"kaggle/{slug}", platform="kaggle", page_sources=list(sources))


@pytest.fixture
def page(shared_dir: Path) -> bytes:
    return (shared_dir / "data/competition-descriptions" / f"{SLUG}.md").read_bytes()


def _mle_source(data: bytes, commit: str = COMMIT) -> PageSource:
    return PageSource(kind="repository", source="github:openai/mle-bench", commit=commit,
                      path=MLE_PATH, format="markdown", sha256=_sha(data))


def _checkout(root: Path, data: bytes) -> Path:
    (root / MLE_PATH).parent.mkdir(parents=True)
    (root / MLE_PATH).write_bytes(data)
    return root


def test_a_peer_checkout_gives_the_page_without_its_prizes(tmp_path: Path, page: bytes) -> None:
    repo = _checkout(tmp_path / "mle-bench", page)
    got, problems = obtain_pages(_spec(_mle_source(page)),
                                 parse_pages_from([f"mle-bench={repo}"]))
    assert got is not None and problems == []
    assert "Submissions are evaluated on the [root mean squared error]" in got.markdown
    assert "## Prizes" not in got.markdown and "Scripts for Swag" not in got.markdown
    assert "# Data" in got.markdown  # the section after the prizes is kept
    assert got.source is not None and got.source.path == MLE_PATH


def test_another_version_of_the_page_is_refused_and_the_next_source_used(
        tmp_path: Path, page: bytes) -> None:
    repo = _checkout(tmp_path / "mle-bench", page + b"\nedited later\n")
    dojo_path = f"mledojo/competitions/{SLUG}/info/description.txt"
    (tmp_path / "dojo" / dojo_path).parent.mkdir(parents=True)
    (tmp_path / "dojo" / dojo_path).write_bytes(page)
    dojo = PageSource(kind="repository", source="github:MLE-Dojo/MLE-Dojo", commit=COMMIT,
                      path=dojo_path, format="text", sha256=_sha(page))
    opts = parse_pages_from([f"mle-bench={repo}", f"mle-dojo={tmp_path / 'dojo'}"])
    got, problems = obtain_pages(_spec(_mle_source(page), dojo), opts)
    assert got is not None and got.source == dojo
    assert len(problems) == 1 and "not the pinned" in problems[0] and MLE_PATH in problems[0]


def test_a_git_directory_is_read_at_the_pinned_commit(tmp_path: Path, page: bytes) -> None:
    work = _checkout(tmp_path / "work", page)
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "page"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    (work / MLE_PATH).write_text("changed after the commit")  # the work tree is not read
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    got, _ = obtain_pages(_spec(_mle_source(page, commit)),
                          PageOptions(checkouts={"github:openai/mle-bench": bare}))
    assert got is not None and commit[:12] in got.origin
    assert "dirty documents" in got.markdown.lower()


class _Server:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append(self.path)
                body = outer.files.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.end_headers()
                self.wfile.write(body or b"not found")

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[_Server]:
    s = _Server({})
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def test_the_repository_over_http_at_its_commit(server: _Server, page: bytes) -> None:
    server.files[f"/openai/mle-bench/{COMMIT}/{MLE_PATH}"] = page
    spec = _spec(_mle_source(page))
    got, _ = obtain_pages(spec, PageOptions())
    assert got is None  # no network allowed, no checkout: nothing read
    got, problems = obtain_pages(spec, PageOptions(network=True, raw_base=server.base))
    assert got is not None and problems == [] and "Evaluation" in got.markdown
    assert server.requests == [f"/openai/mle-bench/{COMMIT}/{MLE_PATH}"]


def test_a_platform_page_as_html(server: _Server, shared_dir: Path) -> None:
    html = (shared_dir / "data/real-pages/kaggle/k_titanic_data_2017.html").read_bytes()
    server.files["/c/titanic/data"] = html
    src = PageSource(kind="platform", source="kaggle", url=f"{server.base}/c/titanic/data",
                     format="html")
    got, _ = obtain_pages(_spec(src, slug="titanic"), PageOptions(network=True))
    assert got is not None and got.origin == src.url
    assert "The training set" in got.markdown and "<div" not in got.markdown


def test_a_keyed_text_in_a_json_file(tmp_path: Path, page: bytes) -> None:
    text = page.decode()
    items = [{"challenge_name": "other", "description": "not this one"},
             {"challenge_name": SLUG, "description": text}]
    path = "data/task/dspredict/easy.json"
    (tmp_path / path).parent.mkdir(parents=True)
    (tmp_path / path).write_text(json.dumps(items))
    src = PageSource(kind="repository", source="github:fannie1208/DSGym", commit=COMMIT,
                     path=path, key=f"challenge_name={SLUG}/description", format="text",
                     sha256=_sha(text.encode()))
    got, _ = obtain_pages(_spec(src), parse_pages_from([f"dsgym={tmp_path}"]))
    assert got is not None and "not this one" not in got.markdown
    assert "Submissions are evaluated" in got.markdown
    bad = src.model_copy(update={"key": "challenge_name=missing/description"})
    got, problems = obtain_pages(_spec(bad), parse_pages_from([f"dsgym={tmp_path}"]))
    assert got is None and "no item with challenge_name 'missing'" in problems[0]


def test_the_papers_schema_as_a_statement(tmp_path: Path, tam_lite_dir: Path) -> None:
    data = (tam_lite_dir / "ind/schema.json").read_bytes()
    path = "Graph/easy/input/IND.json"
    (tmp_path / path).parent.mkdir(parents=True)
    (tmp_path / path).write_bytes(data)
    src = PageSource(kind="repository", source="github:JiaHangyi828/TAM-Bench", commit=COMMIT,
                     path=path, format="paper-schema", sha256=_sha(data))
    got, _ = obtain_pages(TaskSpec(id="biendata/ind", platform="biendata", page_sources=[src]),
                          parse_pages_from([f"tam-bench={tmp_path}"]))
    schema = json.loads(data)
    assert got is not None and "## Goal" in got.markdown
    assert schema["goal_description"] in got.markdown
    assert schema["data_information"]["train"]["data_location"] in got.markdown


def test_acquired_pages_come_first_without_the_leaderboard(tmp_path: Path, page: bytes
                                                           ) -> None:
    pages = tmp_path / "acq/kaggle" / SLUG / "pages"
    pages.mkdir(parents=True)
    (pages / "overview.md").write_bytes(page)
    (pages / "leaderboard.md").write_text("| team | score |\n| LEAKED-TEAM | 0.99 |\n")
    got, _ = obtain_pages(_spec(_mle_source(page)),
                          parse_pages_from([f"acquired={tmp_path / 'acq'}"]))
    assert got is not None and got.source is None and "acquired" in got.origin
    assert "LEAKED-TEAM" not in got.markdown and "dirty documents" in got.markdown.lower()


def test_kept_pages_are_reread_and_an_edit_is_detected(tmp_path: Path, page: bytes) -> None:
    repo = _checkout(tmp_path / "mle-bench", page)
    got, _ = obtain_pages(_spec(_mle_source(page)), parse_pages_from([f"mle-bench={repo}"]))
    assert got is not None
    save_pages(got, tmp_path / "task")
    assert load_pages(tmp_path / "task") == got
    (tmp_path / "task/pages/description.md").write_text("tampered")
    with pytest.raises(SourceError, match="changed after it was obtained"):
        load_pages(tmp_path / "task")


@pytest.mark.parametrize("value, message", [
    ("mle-bench", "expected NAME=PATH"),
    ("nobody=/", "unknown source 'nobody'"),
    ("mle-bench=/no/such/folder", "does not exist"),
])
def test_a_bad_pages_from_option_is_named(value: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        parse_pages_from([value])


def test_a_page_path_out_of_the_checkout_is_refused(tmp_path: Path) -> None:
    src = PageSource(kind="repository", source="github:openai/mle-bench", commit=COMMIT,
                     path="../secret.md", sha256="0" * 64)
    (tmp_path / "secret.md").write_text("secret")
    (tmp_path / "co").mkdir()
    got, problems = obtain_pages(_spec(src), parse_pages_from([f"mle-bench={tmp_path / 'co'}"]))
    assert got is None and "must not contain '..'" in problems[0]


def _peer_layout(shared_dir: Path, root: Path) -> dict[str, str]:
    """The shared real descriptions laid out as each shipped entry's first source that
    pins their text (the peer's own path); slug -> the peer's name for --pages-from."""
    from tambench.acquisition.statement_pages import PAGE_REPOSITORIES
    from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir

    names = {repo: name for name, repo in PAGE_REPOSITORIES.items()}
    cat = Catalogue(bundled_catalogue_dir())
    laid: dict[str, str] = {}
    for f in sorted((shared_dir / "data/competition-descriptions").glob("*.md")):
        data = f.read_bytes()
        entry = cat.get(f"kaggle/{f.stem}")
        src = next(s for s in entry.spec.page_sources if s.sha256 == _sha(data))
        (root / names[src.source] / src.path).parent.mkdir(parents=True, exist_ok=True)
        (root / names[src.source] / src.path).write_bytes(data)
        laid[f.stem] = names[src.source]
    return laid


def test_the_shipped_pins_match_the_real_pages(tmp_path: Path, shared_dir: Path) -> None:
    """Every real description in ../shared/data is pinned by its shipped entry, and obtaining
    it through the entry's sources gives it back without its prizes."""
    from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir

    laid = _peer_layout(shared_dir, tmp_path)
    assert len(laid) >= 50
    opts = parse_pages_from([f"{n}={tmp_path / n}" for n in sorted(set(laid.values()))])
    cat = Catalogue(bundled_catalogue_dir())
    for slug in laid:
        got, problems = obtain_pages(cat.get(f"kaggle/{slug}").spec, opts)
        assert got is not None, (slug, problems)
        assert not any(line.startswith("#") and "Prize" in line
                       for line in got.markdown.splitlines()), slug
