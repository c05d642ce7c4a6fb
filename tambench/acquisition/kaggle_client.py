"""Kaggle's official API: the one module that talks to it (acquisition, discovery and splits).

What it provides:

* :meth:`KaggleClient.metadata`: title, dates, team count, category, evaluation metric name,
  tags and the data file listing of one competition (``GetCompetition`` + ``ListDataFiles``);
* :meth:`KaggleClient.leaderboard`: the complete leaderboard, every page (``GetLeaderboard``
  with its page token until the last page; the private board once the competition closed);
* :meth:`KaggleClient.list_page`: one page of the competition listing (discovery);
* :meth:`KaggleClient.download_files`: the competition's data archive (splits).

Rules of the house:

* ``kaggle`` authenticates when it is imported (a network call with ``KAGGLE_API_TOKEN``, a
  help text on stdout without credentials), so it is imported only when a call is made, and
  everything the client prints (``Next Page Token = 20``, progress bars) is kept off stdout;
* credentials come from the environment or the user's kaggle.json, never from tambench, and
  never reach a message, a log or a file;
* every call goes through the one retry policy (:mod:`tambench.acquisition.retry`):
  connection errors, timeouts, 408/429/5xx are retried honouring ``Retry-After``; "you must
  accept this competition's rules" raises :class:`RulesNotAcceptedError` with the URL to accept
  them, at once; other failures raise :class:`SourceError`.

``api_url`` (or ``TAMBENCH_KAGGLE_API_URL``) points the client at another endpoint, e.g. the
local fake of the API the tests and the demo serve; ``KaggleClient(api=...)`` takes any object
with the client's methods.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field

from tambench._optional import require
from tambench.acquisition.retry import (
    RETRYABLE_STATUS,
    GaveUpError,
    RetryAfterTooLongError,
    RetryPolicy,
    Verdict,
    call_with_retries,
    is_unreachable,
    parse_retry_after,
    unreachable_message,
)
from tambench.config import home_dir
from tambench.core.bounded import parse_json
from tambench.core.fielddocs import DOCUMENTED
from tambench.core.leaderboard import Leaderboard, leaderboard_from_client_rows
from tambench.errors import (
    ConfigError,
    ReportVersionError,
    RulesNotAcceptedError,
    SourceError,
    TaskDataError,
    UnreachableHostError,
)

T = TypeVar("T")

API_URL_ENV = "TAMBENCH_KAGGLE_API_URL"
METADATA_VERSION = 1
#: Rows asked for per leaderboard page (the client's default is 20).
LEADERBOARD_PAGE_SIZE = 200
#: Pages read at most from one paged call (a runaway page token must not loop forever).
MAX_PAGES = 5000


def rules_url(slug: str) -> str:
    """Where a user accepts a Kaggle competition's rules.

    >>> rules_url("titanic")
    'https://www.kaggle.com/competitions/titanic/rules'
    """
    return f"https://www.kaggle.com/competitions/{slug}/rules"


def has_credentials() -> bool:
    """Whether kaggle client credentials are available (their values are never read here)."""
    if os.environ.get("KAGGLE_API_TOKEN"):
        return True
    if os.environ.get("KAGGLE_USERNAME") and os.environ.get("KAGGLE_KEY"):
        return True
    if os.environ.get("KAGGLE_CONFIG_DIR"):
        return (Path(os.environ["KAGGLE_CONFIG_DIR"]) / "kaggle.json").is_file()
    home = home_dir()  # no home directory: credentials come from the environment only
    return home is not None and (home / ".kaggle" / "kaggle.json").is_file()


# --- what the API says -------------------------------------------------------------------


@dataclass(frozen=True)
class CompetitionInfo:
    """What a listing says about one competition."""

    slug: str
    title: str
    url: str
    category: str
    enabled: date | None
    deadline: date | None
    metric: str
    teams: int
    kernels_only: bool
    submissions_disabled: bool
    tags: tuple[str, ...] = ()


class DataFile(BaseModel):
    """One file of a competition's data, as the API lists it."""

    model_config = DOCUMENTED

    name: str
    """File name (with its folder, when the data has folders)."""

    size: int | None = None
    """Size in bytes, when listed."""

    description: str = ""
    """The host's description of the file."""


class CompetitionMetadata(BaseModel):
    """Everything the API says about one competition (written as ``api.json``)."""

    model_config = DOCUMENTED

    schema_version: int = METADATA_VERSION
    """Version of this format; a newer one is refused."""

    slug: str
    """The competition's slug."""

    title: str = ""
    """Title."""

    url: str = ""
    """The competition's page."""

    category: str = ""
    """Listing category (Featured, Research, Playground, Getting Started...)."""

    tags: list[str] = Field(default_factory=list)
    """Tags (names)."""

    evaluation_metric: str = ""
    """The evaluation metric's name as the API spells it."""

    enabled: date | None = None
    """When the competition opened."""

    deadline: date | None = None
    """When it closed (or will close)."""

    team_count: int | None = None
    """Teams on the leaderboard."""

    files: list[DataFile] = Field(default_factory=list)
    """The data files."""

    @classmethod
    def from_json(cls, text: str) -> CompetitionMetadata:
        """Parse ``api.json``, refusing a newer format with a clear error."""
        meta = cls.model_validate(parse_json(text, "api.json", error=TaskDataError))
        if meta.schema_version > METADATA_VERSION:
            raise ReportVersionError(
                f"api.json has schema_version {meta.schema_version}; this tambench reads up to "
                f"{METADATA_VERSION}: upgrade tambench"
            )
        return meta


class CompetitionSource(Protocol):
    """Lists competitions page by page (what discovery depends on)."""

    def list_page(self, *, category: str, search: str, page_token: str
                  ) -> tuple[list[CompetitionInfo], str]:
        """One page of competitions and the next page's token ("" at the end)."""
        ...


def _day(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and value:
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
    return None


def _text(obj: Any, name: str) -> str:
    value = getattr(obj, name, None)
    return "" if value is None else str(value)


def _tags(obj: Any) -> list[str]:
    out = []
    for tag in getattr(obj, "tags", None) or []:
        name = _text(tag, "name") or _text(tag, "ref")
        if name:
            out.append(name)
    return out


def _slug_of(ref: str) -> str:
    return ref.rstrip("/").rsplit("/", 1)[-1]


def _info_of(c: Any) -> CompetitionInfo:
    ref = _text(c, "ref")
    return CompetitionInfo(
        slug=_slug_of(ref), title=_text(c, "title"), url=_text(c, "url") or ref,
        category=_text(c, "category"), enabled=_day(getattr(c, "enabled_date", None)),
        deadline=_day(getattr(c, "deadline", None)), metric=_text(c, "evaluation_metric"),
        teams=int(getattr(c, "team_count", 0) or 0),
        kernels_only=bool(getattr(c, "is_kernels_submissions_only", False)),
        submissions_disabled=bool(getattr(c, "submissions_disabled", False)),
        tags=tuple(_tags(c)),
    )


# --- failures ------------------------------------------------------------------------------


def _response_text(resp: Any) -> str:
    try:
        return str(resp.text)[:2000]
    except (RuntimeError, ValueError, UnicodeDecodeError):  # body consumed or undecodable
        return ""


def _is_rules_refusal(status: int | None, text: str) -> bool:
    low = text.lower()
    return status in (401, 403) and "rules" in low and "accept" in low


def classify_kaggle_error(exc: BaseException) -> Verdict:
    """Retry transient failures of the client (connection, timeout, 408/429/5xx); stop others.

    ``Retry-After`` of a 429/503 answer is honoured through :func:`parse_retry_after`.
    """
    requests = require("requests", extra="kaggle", feature="the kaggle client")
    if is_unreachable(exc):  # no back-off helps a name that does not resolve
        return Verdict(retry=False)
    if isinstance(exc, requests.exceptions.HTTPError):
        resp = exc.response
        status = resp.status_code if resp is not None else None
        if status in RETRYABLE_STATUS:
            after = parse_retry_after(resp.headers.get("Retry-After")) if resp is not None else None
            return Verdict(retry=True, retry_after=after)
        return Verdict(retry=False)
    transient = (requests.exceptions.ConnectionError, requests.exceptions.Timeout,
                 requests.exceptions.ChunkedEncodingError)
    return Verdict(retry=isinstance(exc, transient))


def _host_of(exc: BaseException) -> str:
    """The host a failed request went to (Kaggle's API when the error does not say)."""
    from urllib.parse import urlsplit

    request = getattr(exc, "request", None)
    url = getattr(request, "url", None) or os.environ.get(API_URL_ENV, "") or \
        "https://www.kaggle.com"
    return urlsplit(str(url)).hostname or str(url)


def _source_error(what: str, slug: str, exc: BaseException, attempts: int) -> Exception:
    """The error a caller sees for a failed call (rules refusal, HTTP status, or transport)."""
    requests = require("requests", extra="kaggle", feature="the kaggle client")
    last = exc.last if isinstance(exc, (GaveUpError, RetryAfterTooLongError)) else exc
    if is_unreachable(last):
        return UnreachableHostError(unreachable_message(
            _host_of(last), f"{what} of Kaggle competition {slug!r}"))
    tries = f" after {attempts} attempt(s)" if isinstance(exc, GaveUpError) else ""
    if isinstance(last, requests.exceptions.HTTPError):
        resp = last.response
        status = resp.status_code if resp is not None else None
        text = f"{last} {_response_text(resp) if resp is not None else ''}".strip()
        if _is_rules_refusal(status, text):
            return RulesNotAcceptedError(
                f"Kaggle refuses to serve {slug!r} until you accept the competition's rules: "
                f"open {rules_url(slug)} , accept them, then retry (server said: {text[:300]})"
            )
        hint = {401: ": check KAGGLE_USERNAME/KAGGLE_KEY (or KAGGLE_API_TOKEN)",
                404: ": competition or file not found"}.get(status or 0, "")
        wait = f"; {exc}" if isinstance(exc, RetryAfterTooLongError) else ""
        return SourceError(f"{what} of Kaggle competition {slug!r} failed{tries}: "
                           f"HTTP {status}{hint} ({str(last)[:300]}){wait}")
    return SourceError(f"{what} of Kaggle competition {slug!r} failed{tries}: "
                       f"{type(last).__name__}: {str(last)[:300]}")


# --- the client ----------------------------------------------------------------------------


def _page_call(fetch: Callable[[Any, str, str], Any], slug: str, token: str, api: Any) -> Any:
    return fetch(api, slug, token)


def _authenticated_api() -> Any:
    """A fresh, authenticated ``KaggleApi``; its import-time chatter kept off stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        mod = require("kaggle.api.kaggle_api_extended", extra="kaggle",
                      feature="the kaggle client")
    api = mod.KaggleApi()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            api.authenticate()
    except SystemExit:
        raise SourceError(
            "no Kaggle credentials found: set KAGGLE_USERNAME and KAGGLE_KEY (or "
            "KAGGLE_API_TOKEN) in the environment, or put kaggle.json in ~/.kaggle (or in "
            "$KAGGLE_CONFIG_DIR; without a home directory only these two places are read)"
        ) from None
    return api


def _point_at(api: Any, url: str) -> None:
    """Make every SDK client ``api`` builds talk to ``url`` instead of api.kaggle.com."""
    build = api.build_kaggle_client

    def build_at_url() -> Any:
        client = build()
        http = client.http_client()
        if not hasattr(http, "_endpoint"):
            raise ConfigError(f"this kagglesdk version cannot be pointed at {url} "
                              f"({API_URL_ENV}); unset it or pin kagglesdk")
        http._endpoint = url.rstrip("/")
        return client

    api.build_kaggle_client = build_at_url


class KaggleClient:
    """Kaggle's official client behind one small interface (see the module docstring).

    Args:
        api: an object with the client's methods (default: the official client, imported and
            authenticated on first use).
        api_url: another endpoint for the API (default ``TAMBENCH_KAGGLE_API_URL``, else
            Kaggle's own).
        policy: retries of transient failures.
        sleep: how to wait between attempts (tests record the delays).
        page_size: rows per leaderboard page.
    """

    def __init__(self, api: Any = None, *, api_url: str | None = None,
                 policy: RetryPolicy | None = None, sleep: Callable[[float], None] = time.sleep,
                 page_size: int = LEADERBOARD_PAGE_SIZE) -> None:
        self._api = api
        self.api_url = api_url if api_url is not None else os.environ.get(API_URL_ENV, "")
        self.policy = policy or RetryPolicy(retries=4, backoff_base=2.0, backoff_max=60.0)
        self.sleep = sleep
        self.page_size = page_size
        self.attempts = 0
        """Attempts made by the last call (retries included)."""

    @property
    def api(self) -> Any:
        """The underlying client (authenticated on first use)."""
        if self._api is None:
            self._api = _authenticated_api()
            if self.api_url:
                _point_at(self._api, self.api_url)
        return self._api

    def _call(self, what: str, slug: str, fn: Callable[[Any], T]) -> T:
        api = self.api

        def attempt(n: int) -> T:
            self.attempts = n
            with contextlib.redirect_stdout(io.StringIO()):
                return fn(api)

        requests = require("requests", extra="kaggle", feature="the kaggle client")
        try:
            return call_with_retries(attempt, self.policy, classify_kaggle_error,
                                     sleep=self.sleep)
        except (GaveUpError, RetryAfterTooLongError, requests.exceptions.RequestException) as exc:
            raise _source_error(what, slug, exc, self.attempts) from exc

    def _sdk(self, api: Any, call: str, request: Any) -> Any:
        with api.build_kaggle_client() as kaggle:
            return getattr(kaggle.competitions.competition_api_client, call)(request)

    def _types(self) -> Any:
        return require("kagglesdk.competitions.types.competition_api_service", extra="kaggle",
                       feature="the kaggle client")

    # -- calls ---------------------------------------------------------------------------------

    def competition(self, slug: str) -> CompetitionMetadata:
        """Title, dates, team count, category, metric name and tags of one competition."""
        types = self._types()

        def get(api: Any) -> Any:
            request = types.ApiGetCompetitionRequest()
            request.competition_name = slug
            return self._sdk(api, "get_competition", request)

        c = self._call("reading the metadata", slug, get)
        return CompetitionMetadata(
            slug=slug, title=_text(c, "title"), url=_text(c, "url"),
            category=_text(c, "category"), tags=_tags(c),
            evaluation_metric=_text(c, "evaluation_metric"),
            enabled=_day(getattr(c, "enabled_date", None)),
            deadline=_day(getattr(c, "deadline", None)),
            team_count=getattr(c, "team_count", None),
        )

    def data_files(self, slug: str) -> list[DataFile]:
        """Every data file of a competition (all pages of ``ListDataFiles``)."""
        out: list[DataFile] = []
        for page in self._pages("listing the files", slug, self._files_page):
            for f in getattr(page, "files", None) or []:
                size = getattr(f, "total_bytes", None)
                out.append(DataFile(name=_text(f, "name"), size=int(size) if size else None,
                                    description=_text(f, "description")))
        return out

    def metadata(self, slug: str) -> CompetitionMetadata:
        """:meth:`competition` with the file listing filled in."""
        meta = self.competition(slug)
        return meta.model_copy(update={"files": self.data_files(slug)})

    def leaderboard(self, slug: str) -> Leaderboard:
        """The complete leaderboard, every page of it, in the API's order."""
        rows: list[Any] = []
        for page in self._pages("reading the leaderboard", slug, self._leaderboard_page):
            rows.extend(getattr(page, "submissions", None) or [])
        lb = leaderboard_from_client_rows(rows)
        return Leaderboard(rows=lb.rows, format=lb.format, source_columns=lb.source_columns,
                           path=f"kaggle-api:{slug}")

    def list_page(self, *, category: str, search: str, page_token: str
                  ) -> tuple[list[CompetitionInfo], str]:
        """One page of the competition listing (:class:`CompetitionSource`)."""

        def listing(api: Any) -> Any:
            return api.competitions_list(category=category or None, search=search or None,
                                         page_token=page_token or None, page_size=100)

        resp = self._call("listing competitions", search or category or "(all)", listing)
        comps = list(getattr(resp, "competitions", None) or [])
        return [_info_of(c) for c in comps], _text(resp, "next_page_token")

    def download_files(self, slug: str, dest: Path) -> Path:
        """Download the data archive into ``dest`` (a folder of its own); return the zip."""
        dest.mkdir(parents=True, exist_ok=True)

        def download(api: Any) -> None:
            api.competition_download_files(slug, path=str(dest), force=True, quiet=True)

        self._call("downloading the data", slug, download)
        zips = sorted(dest.glob("*.zip"))
        if len(zips) != 1:
            raise SourceError(
                f"expected one zip from Kaggle in {dest}, found {[z.name for z in zips]}"
            )
        return zips[0]

    # -- paging --------------------------------------------------------------------------------

    def _files_page(self, api: Any, slug: str, token: str) -> Any:
        types = self._types()
        request = types.ApiListDataFilesRequest()
        request.competition_name = slug
        request.page_size = 200
        if token:
            request.page_token = token
        return self._sdk(api, "list_data_files", request)

    def _leaderboard_page(self, api: Any, slug: str, token: str) -> Any:
        types = self._types()
        request = types.ApiGetLeaderboardRequest()
        request.competition_name = slug
        request.page_size = self.page_size
        if token:
            request.page_token = token
        return self._sdk(api, "get_leaderboard", request)

    def _pages(self, what: str, slug: str, fetch: Callable[[Any, str, str], Any]
               ) -> Iterator[Any]:
        token = ""
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            current = token
            page = self._call(what, slug, functools.partial(_page_call, fetch, slug, current))
            yield page
            token = _text(page, "next_page_token")
            if not token:
                return
            if token in seen:
                raise SourceError(f"{what} of Kaggle competition {slug!r}: the API repeated "
                                  f"page token {token!r}")
            seen.add(token)
        raise SourceError(f"{what} of Kaggle competition {slug!r}: more than {MAX_PAGES} pages")
