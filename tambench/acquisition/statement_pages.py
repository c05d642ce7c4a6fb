"""A competition's pages, obtained on the user's side from the sources its entry names.

The catalogue ships no page text: each entry's ``page_sources`` names where the text is (a
file of a public repository at a commit, or the platform's page) and pins it by SHA-256. This
module reads it, in order of preference:

1. pages the user acquired (``tambench acquire`` writes ``<folder>/<platform>/<slug>/pages/``);
2. a repository source from a local checkout (or git directory) the user names
   (``--pages-from mle-bench=PATH``);
3. with the network allowed, the repository's file over HTTP at its commit, then the
   platform's page.

A repository text whose SHA-256 differs from the pinned one is refused (another version of the
page), and the next source is tried. What was obtained is converted to Markdown, without the
sections on the leaderboard and the prizes, and kept in the task's data folder
(``pages/description.md`` with ``pages/source.json``) so that later runs read it offline.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tambench.core.bounded import load_json, parse_json
from tambench.core.layout import PAGES_DIR, safe_join
from tambench.errors import SourceError
from tambench.fileio import write_text_atomic
from tambench.schema.taskspec import PageSource, TaskSpec

#: Names the user gives to ``--pages-from`` -> the repository they stand for.
PAGE_REPOSITORIES: dict[str, str] = {
    "mle-bench": "github:openai/mle-bench",
    "mle-dojo": "github:MLE-Dojo/MLE-Dojo",
    "dslighting": "github:usail-hkust/dslighting",
    "dsgym": "github:fannie1208/DSGym",
    "ogb-web": "github:snap-stanford/ogb-web",
    "tam-bench": "github:JiaHangyi828/TAM-Bench",
}
#: ``--pages-from acquired=DIR``: a folder of acquired tasks.
ACQUIRED = "acquired"
PAGES_FILE = "description.md"
SOURCE_FILE = "source.json"
RAW_BASE = "https://raw.githubusercontent.com"
MAX_PAGE_BYTES = 5_000_000
#: Sections an agent is not given: the standings and the money.
_UNSHARED = re.compile(r"leaderboard|prize|award|winners?\b|money", re.I)


class PageUnavailable(Exception):
    """This source cannot be read here (not given, not reachable): try the next one."""


@dataclass
class PageOptions:
    """Where this run may read pages from."""

    checkouts: dict[str, Path] = field(default_factory=dict)
    """Repository (``github:owner/name``) -> a local checkout or git directory of it."""
    acquired: list[Path] = field(default_factory=list)
    """Folders holding acquired tasks (``<platform>/<slug>/pages/*.md``)."""
    network: bool = False
    """Read repository files and platform pages over HTTP."""
    raw_base: str = RAW_BASE
    """Where a GitHub repository's files are served (``<base>/<owner>/<name>/<commit>/<path>``)."""
    timeout: float = 30.0


@dataclass(frozen=True)
class ObtainedPages:
    """A competition's pages as Markdown, and where they came from."""

    markdown: str
    origin: str
    """One line naming the source (repository, commit and path; the address; the folder)."""
    source: PageSource | None = None
    """The catalogue's source that gave them (None for acquired pages)."""


def parse_pages_from(values: list[str]) -> PageOptions:
    """``NAME=PATH`` values of ``--pages-from`` -> options (NAME: a peer or ``acquired``).

    >>> parse_pages_from(["mle-bench=/"]).checkouts
    {'github:openai/mle-bench': PosixPath('/')}
    """
    opts = PageOptions()
    for value in values:
        name, sep, path = value.partition("=")
        name = name.strip().lower()
        if not sep or not path.strip():
            raise SourceError(f"--pages-from {value!r}: expected NAME=PATH")
        folder = Path(path.strip()).expanduser()
        if not folder.exists():
            raise SourceError(f"--pages-from {value!r}: {folder} does not exist")
        if name == ACQUIRED:
            opts.acquired.append(folder)
        elif name in PAGE_REPOSITORIES:
            opts.checkouts[PAGE_REPOSITORIES[name]] = folder
        else:
            raise SourceError(f"--pages-from {value!r}: unknown source {name!r}; known: "
                              f"{', '.join([*PAGE_REPOSITORIES, ACQUIRED])}")
    return opts


def sha256_text(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_show(folder: Path, commit: str, path: str) -> bytes | None:
    """The file at ``commit`` (else HEAD) of a git repository; None when it has none."""
    git_dir = folder / ".git" if (folder / ".git").exists() else folder
    for rev in (commit, "HEAD") if commit else ("HEAD",):
        proc = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{rev}:{path}"],
                              capture_output=True, check=False)
        if proc.returncode == 0:
            return proc.stdout
    return None


def _from_checkout(src: PageSource, folder: Path) -> tuple[bytes, str]:
    try:
        file = safe_join(folder, src.path, what="page path")
    except Exception as exc:  # an unsafe path in the entry: never read outside the checkout
        raise SourceError(f"page source {src.path!r}: {exc}") from exc
    if file.is_file():
        return file.read_bytes(), f"{src.source}:{src.path} (checkout {folder})"
    data = _git_show(folder, src.commit, src.path)
    if data is None:
        raise PageUnavailable(f"{folder} holds no {src.path}")
    return data, f"{src.source}@{src.commit[:12] or 'HEAD'}:{src.path} (git {folder})"


def _http_get(url: str, opts: PageOptions) -> bytes:
    import httpx

    try:
        with httpx.stream("GET", url, timeout=opts.timeout, follow_redirects=True) as resp:
            if resp.status_code != 200:
                raise PageUnavailable(f"{url}: HTTP {resp.status_code}")
            chunks: list[bytes] = []
            size = 0
            for chunk in resp.iter_bytes():
                size += len(chunk)
                if size > MAX_PAGE_BYTES:
                    raise PageUnavailable(f"{url}: over {MAX_PAGE_BYTES:,} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
    except httpx.HTTPError as exc:
        raise PageUnavailable(f"{url}: {type(exc).__name__}: {exc}") from exc


def repository_url(src: PageSource, raw_base: str = RAW_BASE) -> str:
    """Where a GitHub source's file is served at its commit.

    >>> repository_url(PageSource(kind="repository", source="github:a/b", commit="0" * 40,
    ...                           path="x/Cornell Bird.json"))
    'https://raw.githubusercontent.com/a/b/0000000000000000000000000000000000000000/x/Cornell%20Bird.json'
    """
    repo = src.source.removeprefix("github:")
    return f"{raw_base.rstrip('/')}/{repo}/{src.commit or 'HEAD'}/{quote(src.path)}"


def select_key(data: bytes, key: str, where: str) -> bytes:
    """The text a ``<field>=<value>/<text field>`` key names in a JSON list of items."""
    selector, _, text_field = key.partition("/")
    name, _, value = selector.partition("=")
    try:
        items = parse_json(data, where, error=SourceError)
    except SourceError as exc:
        raise SourceError(f"{where} is not JSON ({exc}); cannot select {key!r}") from exc
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get(name)) == value:
            text = item.get(text_field)
            if isinstance(text, str):
                return text.encode()
    raise SourceError(f"{where} holds no item with {name} {value!r} and a {text_field!r} text")


def read_source(src: PageSource, opts: PageOptions) -> tuple[bytes, str]:
    """The source's text (checksum checked for a repository source) and where it was read.

    Raises:
        PageUnavailable: not readable here.
        SourceError: read, but another text than the pinned one (or malformed).
    """
    if src.kind == "platform":
        if not opts.network:
            raise PageUnavailable("the network is not allowed")
        return _http_get(src.url, opts), src.url
    if src.source in opts.checkouts:
        data, where = _from_checkout(src, opts.checkouts[src.source])
    elif opts.network and src.source.startswith("github:"):
        url = repository_url(src, opts.raw_base)
        data, where = _http_get(url, opts), url
    else:
        raise PageUnavailable(f"no checkout of {src.source} given and the network is not "
                              "allowed")
    if src.key:
        data = select_key(data, src.key, where)
        where = f"{where} [{src.key}]"
    if src.sha256 and sha256_text(data) != src.sha256:
        raise SourceError(f"{where}: SHA-256 {sha256_text(data)[:16]}... is not the pinned "
                          f"{src.sha256[:16]}... (another version of the page)")
    return data, where


def _paper_schema_markdown(data: dict[str, Any]) -> str:
    """The paper's schema JSON laid out as a statement."""
    metric = data.get("metric") or {}
    info = data.get("data_information") or {}
    parts = [("Task", data.get("task_type", "")), ("Goal", data.get("goal_description", "")),
             ("Metric", "\n\n".join(x for x in (metric.get("metric_name", ""),
                                                metric.get("metric_formula", "")) if x)),
             ("Target", data.get("target_col", ""))]
    for part in ("train", "test", "inference"):
        loc = info.get(part) or {}
        text = "\n\n".join(x for x in (f"`{loc.get('data_location', '')}`"
                                        if loc.get("data_location") else "",
                                        loc.get("data_description", "")) if x)
        parts.append((f"Data: {part}", text))
    parts += [("Submission format", str(data.get("output_format", ""))),
              ("Rules", str(data.get("special_instructions", "")))]
    return "\n\n".join(f"## {h}\n\n{t}" for h, t in parts if str(t).strip()) + "\n"


def to_markdown(data: bytes, fmt: str, where: str) -> str:
    """The text as Markdown, without the sections on the leaderboard and the prizes."""
    text = data.decode("utf-8", errors="replace")
    if fmt == "html":
        # start-up: saves 17 ms (the Markdown extractor)
        from tambench.acquisition.markdown import extract_markdown

        text = extract_markdown(text)
    elif fmt == "paper-schema":
        try:
            text = _paper_schema_markdown(parse_json(text, where, error=SourceError))
        except (SourceError, AttributeError) as exc:
            raise SourceError(f"{where} is not the paper's schema JSON ({exc})") from exc
    return drop_unshared_sections(text)


def drop_unshared_sections(md: str) -> str:
    """``md`` without the sections (and their subsections) on the leaderboard or prizes.

    >>> drop_unshared_sections("# T\\n\\nx\\n\\n## Prizes\\n\\n$1\\n\\n### 1st\\n\\n$1\\n\\n## Data\\n\\ny")
    '# T\\n\\nx\\n\\n## Data\\n\\ny\\n'
    """
    # start-up: saves 17 ms (the Markdown extractor)
    from tambench.acquisition.markdown import heading_lines

    out: list[str] = []
    dropping = 0
    for line, m in heading_lines(md):
        if m:
            level = len(m.group(1))
            if dropping and level > dropping:
                continue
            dropping = level if _UNSHARED.search(m.group(2)) else 0
        if not dropping:
            out.append(line)
    return "\n".join(out).strip() + "\n"


def acquired_pages(spec: TaskSpec, folder: Path) -> ObtainedPages | None:
    """Pages ``tambench acquire`` wrote for the task under ``folder`` (its own or a parent)."""
    for base in (folder, safe_join(folder, spec.platform, spec.slug, what="task id")):
        pages = base / PAGES_DIR
        files = sorted(pages.glob("*.md")) if pages.is_dir() else []
        files = [f for f in files if not _UNSHARED.search(f.stem)]
        if files:
            md = "\n\n".join(drop_unshared_sections(f.read_text(encoding="utf-8",
                                                                errors="replace"))
                             for f in files)
            return ObtainedPages(md, f"acquired pages in {pages}")
    return None


def obtain_pages(spec: TaskSpec, opts: PageOptions) -> tuple[ObtainedPages | None, list[str]]:
    """The task's pages from the first source that gives them; and why each earlier one did
    not (a refused checksum among them)."""
    problems: list[str] = []
    for folder in opts.acquired:
        got = acquired_pages(spec, folder)
        if got is not None:
            return got, problems
    if not spec.page_sources:
        problems.append(f"{spec.id} names no page source")
    for src in spec.page_sources:
        label = src.url if src.kind == "platform" else f"{src.source}:{src.path}"
        try:
            data, where = read_source(src, opts)
            return ObtainedPages(to_markdown(data, src.format, where), where, src), problems
        except (PageUnavailable, SourceError) as exc:
            problems.append(f"{label}: {exc}")
    return None, problems


def save_pages(pages: ObtainedPages, folder: Path) -> None:
    """Keep the pages in ``folder/pages`` with a record of their source and checksum."""
    record = {"origin": pages.origin, "markdown_sha256": sha256_text(pages.markdown.encode()),
              "source": pages.source.model_dump(mode="json") if pages.source else None}
    write_text_atomic(folder / PAGES_DIR / PAGES_FILE, pages.markdown)
    write_text_atomic(folder / PAGES_DIR / SOURCE_FILE, json.dumps(record, indent=2) + "\n")


def load_pages(folder: Path) -> ObtainedPages | None:
    """Pages kept by :func:`save_pages` under ``folder``, if present and unaltered.

    Raises:
        SourceError: the kept Markdown no longer matches its record.
    """
    md_file, rec_file = folder / PAGES_DIR / PAGES_FILE, folder / PAGES_DIR / SOURCE_FILE
    if not (md_file.is_file() and rec_file.is_file()):
        return None
    md = md_file.read_text(encoding="utf-8")
    try:
        record = load_json(rec_file, error=SourceError)
        source = PageSource.model_validate(record["source"]) if record.get("source") else None
        expected = record["markdown_sha256"]
    except (ValueError, KeyError, TypeError, SourceError) as exc:
        raise SourceError(f"{rec_file} is not a page record ({exc})") from exc
    if sha256_text(md.encode()) != expected:
        raise SourceError(f"{md_file} was changed after it was obtained (its SHA-256 is not "
                          f"the recorded one); remove {folder / PAGES_DIR} and obtain it again")
    return ObtainedPages(md, str(record.get("origin", "")), source)
