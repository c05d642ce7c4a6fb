"""Steps the importers share: reading files with clear errors, and deciding a task's grading
from the metric name its source gives, cross-checked against its description.

:func:`decide_grading` is the one place that rule lives:

1. the source's metric name goes through the alias table
   (:func:`tambench.core.metrics.aliases.resolve_alias`), never anything else;
2. the description is mapped by the offline mapper (:func:`tambench.schema.mapping.map_pages`);
   with several pages (MLE-bench ships a rewritten ``description_obfuscated.md`` beside the
   platform's text) the metric comes from the first page naming one and the columns from the
   first page giving a header (:func:`read_descriptions`);
3. the metric is taken when the two agree (the same id, or the source names a refinement of
   what the description names), when the description names none, or when the mapper says its
   reading is only the closest registered metric, and the alias is unambiguous; a
   disagreement, an ambiguous name without agreement, a name the table does not know, or a
   metric not registered yet leaves the grading unset and is reported;
4. id and target columns and the exact header come from the description only.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tambench.core.leaderboard import Leaderboard, read_leaderboard_text
from tambench.core.metrics import METRICS, get_metric
from tambench.core.metrics.aliases import (
    SAME_NUMBER,
    AliasMatch,
    Source,
    compare_metrics,
    params_conflicts,
    resolve_alias,
)
from tambench.errors import (
    ImportLayoutError,
    LeaderboardError,
    MetricParameterError,
    SchemaMappingError,
    TaskSpecError,
)
from tambench.schema.complete import completeness_problems, status_for
from tambench.schema.mapping import MappingResult, map_pages
from tambench.schema.mapping.pageio import MAX_PAGE_BYTES
from tambench.schema.suggest import suggest_split_spec
from tambench.schema.taskspec import (
    GradingSpec,
    LeaderboardSource,
    Modality,
    SubmissionFormat,
    TaskSpec,
)
from tambench.tasks.leaderboards import record_scale, source_sha256

LFS_POINTER_PREFIX = "version https://git-lfs.github.com/spec/"


#: Largest text file read from an imported tree: the description mapper's limit (a page over
#: it could be mapped for neither its metric nor its columns, so it is neither read nor stored).
MAX_TEXT_BYTES = MAX_PAGE_BYTES
#: Largest leaderboard file read: 30 times the largest real board (Jigsaw's 245 kB); an 8 MB
#: board of the compact form (500,000 rows) is read in about 400 MB.
MAX_BOARD_BYTES = 8 * 1024 * 1024


#: Why a symbolic link to a folder in an imported tree is one failure of the import.
LINKED_FOLDER = ("a symbolic link to a folder; not followed (nothing outside the imported tree "
                 "is read)")


#: What reading one folder of a tree may raise: that folder's failure, never the import's.
FOLDER_ERRORS = (ImportLayoutError, TaskSpecError, OSError, RecursionError, MemoryError)


def failure_reason(exc: BaseException) -> str:
    """Why a folder could not be imported (one of :data:`FOLDER_ERRORS`)."""
    if isinstance(exc, RecursionError | MemoryError):
        return (f"a file of this folder is too large or too deeply nested to be read "
                f"({type(exc).__name__}); nothing of it imported")
    return str(exc)


def tree_root(path: Path) -> Path:
    """The imported tree's root with its symbolic links resolved: below it, a path whose real
    location differs from its name passes through a link (see :func:`read_bytes`)."""
    return Path(os.path.realpath(path))


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """A regular file of the imported tree, read no further than ``max_bytes``.

    Refused (ImportLayoutError naming the file): a file reached through a symbolic link (the
    file itself or any folder above it inside the tree, whose root the readers resolve with
    :func:`tree_root`), so nothing outside the tree is ever read; anything but a regular file
    (a FIFO is opened without blocking and refused); a file larger than ``max_bytes``.
    """
    p = Path(path)
    if os.path.realpath(p) != os.path.abspath(p):
        raise ImportLayoutError(f"{p} is reached through a symbolic link; nothing outside the "
                                "imported tree is read")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    with os.fdopen(os.open(p, flags), "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ImportLayoutError(f"{p} is not a regular file")
        data = b"" if info.st_size > max_bytes else fh.read(max_bytes + 1)
    if info.st_size > max_bytes or len(data) > max_bytes:
        raise ImportLayoutError(f"{p} is {max(info.st_size, len(data)):,} bytes, more than the "
                                f"{max_bytes:,} read from a file of an imported tree; not read")
    return data


def read_text(path: Path, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """A UTF-8 text file of the imported tree (BOM removed), read by :func:`read_bytes`."""
    if Path(path).is_symlink() or not Path(path).is_file():
        raise ImportLayoutError(f"{path} is not a regular file")
    try:
        return read_bytes(path, max_bytes).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportLayoutError(f"{path} is not UTF-8 text: {exc}") from exc


def board_record(*, source: str, path: str, lb: Leaderboard, data: bytes, metric: str | None,
                 notes: list[str], commit: str = "", kind: str = "unknown") -> LeaderboardSource:
    """The provenance record of an imported board: where it was read, its rows and hash, and
    the scale of ``metric`` (a metric id not registered yet is recorded by its id alone; its
    direction and bounds come once it is registered)."""
    scale: dict[str, Any] = {}
    if metric:
        scale = record_scale(metric) if metric in METRICS else {"metric": metric}
    return LeaderboardSource.model_validate({
        "source": source, "commit": commit, "path": path, "kind": kind, "rows": len(lb),
        "sha256": source_sha256(data), "notes": notes, **scale})


def read_optional_leaderboard(path: Path) -> tuple[Leaderboard | None, bytes, str | None]:
    """The leaderboard at ``path`` and its bytes, or (None, b"", why not).

    A missing file, a Git LFS pointer (a clone made without ``git lfs pull``) and an
    unreadable board are all reasons, never exceptions: the task is still imported.
    """
    if not path.exists():
        return None, b"", f"no {path.name}"
    if path.is_symlink() or not path.is_file():
        return None, b"", f"{path.name} is not a regular file"
    try:
        data = read_bytes(path, MAX_BOARD_BYTES)
    except ImportLayoutError as exc:
        return None, b"", f"{path.name} not read: {exc}"
    if data.startswith(LFS_POINTER_PREFIX.encode()):
        return None, b"", f"{path.name} is a Git LFS pointer, not the file; run `git lfs pull`"
    try:
        return read_leaderboard_text(data.decode("utf-8-sig"), path=str(path)), data, None
    except UnicodeDecodeError as exc:
        return None, b"", f"{path.name} could not be read: it is not UTF-8: {exc}"
    except LeaderboardError as exc:
        return None, b"", f"{path.name} could not be read: {exc}"


def placeholder_board(lb: Leaderboard) -> str | None:
    """Why a board is not a competition's real board, or None. A board whose every row is
    dated at exactly midnight is invented (real exports carry each team's last submission
    time; dslighting ships five-row boards dated at midnight on consecutive days)."""
    stamps = [r.submitted_at for r in lb.rows if r.submitted_at]
    if stamps and len(stamps) == len(lb) and all(_at_midnight(s) for s in stamps):
        return (f"all {len(lb)} row(s) are dated at exactly midnight "
                f"({stamps[0]} ... {stamps[-1]}): a placeholder, not the competition's board")
    return None


def _at_midnight(stamp: str) -> bool:
    text = stamp.strip().replace("T", " ")
    time = text.split(" ", 1)[1] if " " in text else ""
    return time.startswith("00:00:00") and not time[8:].strip(".0Z+:")


@dataclass
class GradingDecision:
    """The grading an importer may write, and why (notes and warnings for the task)."""

    grading: GradingSpec | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unfilled: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Description:
    """What the offline mapper read in a task's description(s): the metric it names and the
    submission's columns, each with the page it came from."""

    metric: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    approximate: bool = False
    """The page names a metric that the mapper could tie to no registered id exactly."""
    id_columns: list[str] = field(default_factory=list)
    target_columns: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    modality: Modality | None = None
    title: str = ""
    columns_from: str = ""
    """Which page the columns were read from."""
    refused: dict[str, str] = field(default_factory=dict)
    """Page name -> why the mapper refused it (a warning of the task; the page is not
    stored)."""


def _reading(result: MappingResult) -> dict[str, Any]:
    """What one mapped page says about grading: from ``grading``, else from what the mapper
    kept in ``provenance.pending_grading`` when it could not build one."""
    g, pending = result.spec.grading, result.spec.provenance.pending_grading
    if g is not None:
        return {"metric": g.metric, "params": dict(g.metric_params), "approximate": False,
                "id_columns": list(g.id_columns), "target_columns": list(g.target_columns),
                "header": list(g.submission_header)}
    if pending is None:
        return {"metric": None, "params": {}, "approximate": False, "id_columns": [],
                "target_columns": [], "header": []}
    return {"metric": pending.metric_id or None, "params": dict(pending.metric_params),
            # The page names a metric that no registered id computes exactly.
            "approximate": bool(pending.metric_name) and not pending.metric_id,
            "id_columns": list(pending.id_columns),
            "target_columns": list(pending.target_columns),
            "header": list(pending.submission_header)}


def map_text(text: str, task_id: str, url: str = "") -> MappingResult | str | None:
    """The offline mapper's reading of one Markdown text: None when there is no text, the
    mapper's reason when it refuses the page (binary, too large)."""
    if not text.strip():
        return None
    try:
        return map_pages({"all": text}, task_id=task_id, url=url)
    except SchemaMappingError as exc:
        return str(exc)


def read_descriptions(pages: list[tuple[str, str]], task_id: str, url: str = "") -> Description:
    """Map each (page name, text) in order of preference and combine the readings: the metric
    from the first page naming one, the columns from the first page giving a header. A page
    the mapper refuses is named, with its reason, in ``refused``."""
    mapped = [(name, map_text(text, task_id, url)) for name, text in pages]
    results = [(name, r) for name, r in mapped if isinstance(r, MappingResult)]
    refused = {name: f"{name} not read by the description mapper: {r}" for name, r in mapped
               if isinstance(r, str)}
    readings = [(name, _reading(r)) for name, r in results]
    named = next((rd for _, rd in readings if rd["metric"] or rd["approximate"]), None)
    headed = next(((n, rd) for n, rd in readings if rd["header"]), None)
    out: dict[str, Any] = {
        "modality": next((r.spec.modality for _, r in results if r.spec.modality), None),
        "title": results[0][1].spec.title if results else "", "refused": refused}
    if named is not None:
        out.update(metric=named["metric"], params=named["params"],
                   approximate=named["approximate"])
    if headed is not None:
        name, rd = headed
        out.update(id_columns=rd["id_columns"], target_columns=rd["target_columns"],
                   header=rd["header"], columns_from=name)
    return Description(**out)


def _said(described: Description) -> str:
    if described.approximate:
        return "the description names a metric no registered id computes exactly"
    if described.metric is None:
        return "the description names no metric"
    return f"the description reads as {described.metric}"


def _metric_from(alias: AliasMatch | None, name: str, described: Description,
                 d: GradingDecision) -> tuple[str, dict[str, Any]] | None:
    """The agreed metric id and parameters, or None (with the reason recorded in ``d``)."""
    said = _said(described)
    if alias is None:
        d.warnings.append(f"metric name {name!r} is not in the alias table; {said}; grading "
                          "left unset")
        return None
    if alias.note:
        d.notes.append(f"metric name {name!r}: {alias.note}")
    if not alias.registered:
        d.warnings.append(f"metric {name!r} is {alias.metric}, which is not a registered metric "
                          f"yet; {said}; grading left unset")
        return None
    if described.approximate:
        # The page names a metric the mapper cannot tie to a registered id: it may be the
        # name's metric in other words, or another one. A person decides.
        d.warnings.append(f"the name {name!r} means {alias.metric}, but {said}; grading left "
                          "unset for review")
        return None
    if described.metric is None:
        if alias.ambiguous:
            d.warnings.append(f"metric name {name!r} is used for different metrics and {said}; "
                              "grading left unset")
            return None
        d.notes.append(f"metric {alias.metric} from the name {name!r}; {said}")
        return alias.metric, dict(alias.params)
    if (described.metric, alias.metric) in SAME_NUMBER:
        d.notes.append(f"metric name {name!r} means {alias.metric}; {said}, which computes the "
                       "same number and says more (kept)")
        return described.metric, dict(described.params)
    if alias.ambiguous and described.metric in alias.alternatives:
        d.notes.append(f"metric name {name!r} stands for {', '.join(alias.alternatives)}; "
                       f"{said}, which picks {described.metric}")
        return described.metric, dict(described.params)
    agreement = compare_metrics(alias.metric, described.metric)
    conflicts = params_conflicts(alias.params, described.params)
    if agreement == "differs" or conflicts:
        d.warnings.append(f"metric disagreement: the name {name!r} means {alias.metric}"
                          f"{alias.params or ''}, but {said}"
                          + (f" with parameters ({'; '.join(conflicts)})" if conflicts else "")
                          + "; grading left unset for review")
        return None
    if alias.ambiguous:
        d.warnings.append(f"metric name {name!r} is used for different metrics; {said}, which "
                          "does not settle which one; grading left unset for review")
        return None
    d.notes.append(f"metric {alias.metric} from the name {name!r}, confirmed by the description"
                   + (f" (which names the general {described.metric})"
                      if agreement == "refines" else ""))
    params = {**described.params, **alias.params} if agreement == "same" else dict(alias.params)
    return alias.metric, params


def params_misfit(metric: str, params: dict[str, Any]) -> str:
    """Why ``params`` do not fit the registered ``metric`` ("" when they do)."""
    try:
        get_metric(metric).resolve_params(params)
    except MetricParameterError as exc:
        return str(exc)
    return ""


def _checked_params(metric: str, params: dict[str, Any], d: GradingDecision) -> dict[str, Any]:
    misfit = params_misfit(metric, params)
    if misfit:
        d.warnings.append(f"parameters {params} do not fit {metric}: {misfit}; defaults kept")
        return {}
    return params


def decide_grading(name: str | None, source: Source, described: Description, *,
                   submission_format: SubmissionFormat = SubmissionFormat.CSV
                   ) -> GradingDecision:
    """The grading of an imported task (see the module docstring)."""
    d = GradingDecision()
    if not name:
        d.warnings.append("the source names no metric; grading left unset")
        d.unfilled.append("grading")
        return d
    agreed = _metric_from(resolve_alias(name, source), name, described, d)
    if agreed is None:
        d.unfilled.append("grading")
        return d
    metric, params = agreed[0], _checked_params(*agreed, d)
    columns: dict[str, list[str]] = {"id_columns": [], "target_columns": [],
                                     "submission_header": []}
    if submission_format == SubmissionFormat.CSV and described.header:
        columns = {"id_columns": described.id_columns,
                   "target_columns": described.target_columns,
                   "submission_header": described.header}
        if described.columns_from:
            d.notes.append(f"submission columns read from {described.columns_from}")
    try:
        d.grading = GradingSpec(metric=metric, metric_params=params,
                                submission_format=submission_format, **columns)
    except ValidationError as exc:
        d.warnings.append(f"the description's columns do not fit together: "
                          f"{exc.errors()[0]['msg']}; columns left unset")
        d.grading = GradingSpec(metric=metric, metric_params=params,
                                submission_format=submission_format)
    if submission_format == SubmissionFormat.CSV:
        d.unfilled += [f"grading.{k}" for k, v in columns.items() if not v]
    return d


def with_suggested_split(spec: TaskSpec) -> TaskSpec:
    """The spec with a suggested split (when it can be split by rows) and its final status."""
    split = suggest_split_spec(spec)
    update: dict[str, Any] = {}
    if split is not None:
        update["split"] = split
        update["provenance"] = spec.provenance.model_copy(update={"notes": [
            *spec.provenance.notes, f"split suggested ({split.strategy}, test size "
            f"{split.test_size}, seed {split.seed}) from the grading spec; review it"]})
    spec = spec.model_copy(update=update)
    return spec.model_copy(update={"status": status_for(spec)})


def incomplete_reasons(spec: TaskSpec) -> list[str]:
    """A warning naming what an incomplete imported task lacks (empty when it is complete)."""
    problems = completeness_problems(spec)
    return [f"left incomplete: {'; '.join(problems)}"] if problems else []
