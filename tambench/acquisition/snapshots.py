"""A content-addressed snapshot store of fetched pages, and the resumable crawl state.

Layout under the store's root::

    objects/<sha[:2]>/<sha256>.html   page bytes, named by their SHA-256 (written once)
    records/<key>.json                one record per URL: url, final_url, status, kind,
                                      fetched_at, sha256, size (key = SHA-256 of the URL)
    plans/<job>.json                  the planned URLs of one competition (the queue)

Every file is written atomically (temp file in the same folder, fsync, rename), object first
and record second, so a record only ever points at a complete object. A record's existence is
the done-set: a crawl killed at any moment and restarted skips every URL whose record exists,
and at worst refetches the pages that were in flight. :meth:`SnapshotStore.verify` proves
there is no corrupt file (every record parses and every object's content matches its name).
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from tambench.core.bounded import load_json, parse_json
from tambench.core.fielddocs import DOCUMENTED
from tambench.errors import TaskDataError
from tambench.fileio import write_bytes_atomic


class Snapshot(BaseModel):
    """The record of one fetched page."""

    model_config = DOCUMENTED

    url: str
    """The URL that was requested."""

    final_url: str
    """The URL of the page after checked redirects."""

    status: int
    """HTTP status of the final response."""

    kind: str = ""
    """Page kind (overview, data, evaluation, rules, leaderboard, other)."""

    fetched_at: datetime
    """When the page was fetched (UTC)."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the stored bytes (the rendered HTML)."""

    size: int = Field(ge=0)
    """Number of stored bytes."""


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of bytes.

    >>> sha256_hex(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


class SnapshotStore:
    """Pages on disk, addressed by content; records addressed by URL."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.objects = self.root / "objects"
        self.records = self.root / "records"
        self.plans = self.root / "plans"

    # -- objects -----------------------------------------------------------------------------
    def object_path(self, sha: str) -> Path:
        """Where the bytes with this SHA-256 live."""
        return self.objects / sha[:2] / f"{sha}.html"

    def put_object(self, data: bytes) -> str:
        """Store bytes (once) and return their SHA-256."""
        sha = sha256_hex(data)
        path = self.object_path(sha)
        if not path.exists():
            write_bytes_atomic(path, data)
        return sha

    def read_object(self, sha: str) -> bytes:
        """The stored bytes, checked against their name."""
        path = self.object_path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise TaskDataError(f"snapshot object {sha} is missing from {self.objects}") from None
        if sha256_hex(data) != sha:
            raise TaskDataError(f"snapshot object {path} does not match its SHA-256")
        return data

    # -- records -----------------------------------------------------------------------------
    @staticmethod
    def key(url: str) -> str:
        """The record key of a URL."""
        return sha256_hex(url.encode("utf-8"))

    def record_path(self, url: str) -> Path:
        """Where the record of ``url`` lives."""
        return self.records / f"{self.key(url)}.json"

    def put(
        self,
        url: str,
        html: bytes,
        *,
        status: int,
        kind: str = "",
        final_url: str | None = None,
        fetched_at: datetime | None = None,
    ) -> Snapshot:
        """Store a fetched page: its bytes, then its record (which marks the URL done)."""
        sha = self.put_object(html)
        snap = Snapshot(
            url=url,
            final_url=final_url or url,
            status=status,
            kind=kind,
            fetched_at=fetched_at or datetime.now(UTC),
            sha256=sha,
            size=len(html),
        )
        write_bytes_atomic(
            self.record_path(url), (snap.model_dump_json(indent=2) + "\n").encode("utf-8")
        )
        return snap

    def get(self, url: str) -> Snapshot | None:
        """The record of ``url`` if it was fetched (the done-set lookup)."""
        path = self.record_path(url)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return Snapshot.model_validate(parse_json(text, f"snapshot record {path}",
                                                      error=TaskDataError))
        except ValueError as exc:
            raise TaskDataError(f"snapshot record {path} is corrupt: {exc}") from exc

    def read_html(self, snap: Snapshot) -> str:
        """The stored HTML of a record, decoded as UTF-8."""
        return self.read_object(snap.sha256).decode("utf-8", errors="replace")

    # -- plans (the persistent queue) --------------------------------------------------------
    def save_plan(self, job: str, urls: list[str]) -> None:
        """Persist the URLs a job will fetch (overwritten as the plan grows)."""
        data = json.dumps({"job": job, "urls": urls}, indent=2) + "\n"
        write_bytes_atomic(self.plans / f"{sha256_hex(job.encode())[:32]}.json", data.encode())

    def load_plan(self, job: str) -> list[str]:
        """The persisted URLs of a job (empty if none)."""
        path = self.plans / f"{sha256_hex(job.encode())[:32]}.json"
        try:
            data = load_json(path, error=TaskDataError, source=f"crawl plan {path}")
        except FileNotFoundError:
            return []
        urls = data.get("urls", []) if isinstance(data, dict) else None
        if not isinstance(urls, list):
            raise TaskDataError(f"crawl plan {path} is corrupt: no list of urls")
        return [str(u) for u in urls]

    # -- checks ------------------------------------------------------------------------------
    def verify(self) -> list[str]:
        """Every problem in the store: unparseable records, dangling or corrupt objects."""
        problems: list[str] = []
        if self.records.is_dir():
            for path in sorted(self.records.glob("*.json")):
                try:
                    snap = Snapshot.model_validate(load_json(path, error=TaskDataError))
                except (ValueError, TaskDataError) as exc:
                    problems.append(f"{path}: unreadable record ({exc})")
                    continue
                if self.key(snap.url) != path.stem:
                    problems.append(f"{path}: record key does not match its URL")
                if not self.object_path(snap.sha256).is_file():
                    problems.append(f"{path}: object {snap.sha256} missing")
        if self.objects.is_dir():
            for path in sorted(self.objects.glob("*/*.html")):
                if sha256_hex(path.read_bytes()) != path.stem:
                    problems.append(f"{path}: content does not match its name")
        return problems
