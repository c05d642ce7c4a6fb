"""``tambench tasks``: the task catalogue (index, validate, list, show, import)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import typer

from tambench.cli._catalogue_options import (
    catalogue_root,
    collection_option_ids,
    import_catalogue,
    parse_day,
)
from tambench.core.tables import Column, print_table

tasks_app = typer.Typer(help="The task catalogue: index, validate, list, show, import.",
                        no_args_is_help=True)

_CAT_HELP = "Catalogue folder (default: the configured one, else the bundled catalogue)."


@tasks_app.command("index")
def index(
    catalogue: Path | None = typer.Option(None, "--catalogue", help=_CAT_HELP),
    out: Path | None = typer.Option(None, "--out", help="Folder for index.csv/.parquet "
                                    "(default: the catalogue folder)."),
) -> None:
    """Rebuild the catalogue index (index.csv and index.parquet, one row per task)."""
    from tambench.cli._console import console
    from tambench.tasks.catalogue import Catalogue, write_index

    cat = Catalogue(catalogue_root(catalogue))
    csv_path, pq_path, digest = write_index(cat, out)
    console.print(f"{len(cat.ids())} tasks -> {csv_path}, {pq_path} (index sha256 {digest})")


def _stored_difficulty_problems(root: Path) -> list[Any]:
    """Problems of the difficulty stored in each entry (checked by the difficulty stage)."""
    from tambench.difficulty.batch import stored_problems
    from tambench.errors import TaskSpecError
    from tambench.schema.io import load_taskspec
    from tambench.tasks.catalogue import Catalogue, Problem

    cat = Catalogue(root)
    out = []
    for d in cat.entry_dirs():
        try:
            spec = load_taskspec(d / "task.json")
        except (TaskSpecError, OSError):
            continue  # reported by the catalogue's own validation
        where = str(d.relative_to(cat.root))
        out += [Problem(where, message) for message in stored_problems(spec)]
    return out


@tasks_app.command("validate")
def validate(
    catalogue: Path | None = typer.Option(None, "--catalogue", help=_CAT_HELP),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Validate every entry; exit 3 when any entry has an error.

    "complete" means what ``tambench schema validate`` checks too (tambench.schema.complete)."""
    from tambench.cli._console import console, print_json
    from tambench.tasks.catalogue import Catalogue, validate_catalogue

    root = catalogue_root(catalogue)
    problems = validate_catalogue(root) + _stored_difficulty_problems(root)
    problems.sort(key=lambda p: (p.where, p.severity, p.message))
    n = len(Catalogue(root).entry_dirs())
    errors = [p for p in problems if p.severity == "error"]
    if json_out:
        print_json({"catalogue": str(root), "entries": n,
                    "problems": [{"where": p.where, "severity": p.severity,
                                  "message": p.message} for p in problems]})
    else:
        for p in problems:
            console.print(f"{p.severity}: {p.where}: {p.message}", markup=False)
        console.print(f"{n} entries, {len(errors)} error(s), "
                      f"{len(problems) - len(errors)} warning(s)")
    if errors:
        raise typer.Exit(3)


def filter_rows(
    rows: list[dict[str, Any]],
    *,
    modality: str | None = None,
    field: str | None = None,
    tiers: dict[str, str] | None = None,
    platform: str | None = None,
    ids: set[str] | None = None,
    status: str | None = None,
    passes_filters: bool | None = None,
) -> list[dict[str, Any]]:
    """Index rows matching every given criterion (case-insensitive text comparisons).

    ``tiers`` keeps only the listed ids; ``ids`` (a subset's or a collection's members) keeps
    only those. Dates are filtered by :func:`filter_dates`."""

    def same(a: str, b: str | None) -> bool:
        return b is None or a.lower() == b.lower()

    out = []
    for r in rows:
        if not (same(r["modality"], modality) and same(r["platform"], platform)
                and same(r["status"], status)):
            continue
        if field is not None and field.lower() not in r["field"].lower():
            continue
        if (ids is not None and r["id"] not in ids) or (tiers is not None and r["id"] not in tiers):
            continue
        if passes_filters is not None and r["passes_filters"] != passes_filters:
            continue
        out.append(r)
    return out


def filter_dates(rows: list[dict[str, Any]], since: date | None, until: date | None
                 ) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The rows that ended within [since, until], and (id, why) of every row whose recorded
    dates cannot tell (:func:`tambench.tasks.dates.ended_within`; a rolling competition, which
    never ends, is decided by its launch)."""
    from tambench.tasks.dates import ended_within

    if since is None and until is None:
        return rows, []
    kept, unknown = [], []
    for r in rows:
        start, end = (date.fromisoformat(r[k]) if r[k] else None
                      for k in ("start_date", "end_date"))
        inside, why = ended_within(start, end, since, until, rolling=bool(r.get("timeline")))
        if inside is None:
            unknown.append((str(r["id"]), why))
        elif inside:
            kept.append(r)
    return kept, unknown


def _choice(value: str | None, valid: list[str], option: str) -> str | None:
    """``value`` spelled as one of ``valid`` (case-insensitive), or a usage error listing them."""
    if value is None:
        return None
    for v in valid:
        if v.lower() == value.lower():
            return v
    raise typer.BadParameter(f"unknown value {value!r}; valid: {', '.join(valid)}",
                             param_hint=option)


def _subset_ids(root: Path, subset: str | None) -> set[str] | None:
    from tambench.cli._console import err_console
    from tambench.errors import SubsetError
    from tambench.tasks.manifests import read_manifest, resolve_manifest

    if subset is None:
        return None
    try:
        path = resolve_manifest(root, subset)
    except SubsetError as exc:
        raise typer.BadParameter(str(exc), param_hint="--subset") from None
    err_console.print(f"subset {subset}: manifest {path.parent.name}/{path.name}", markup=False)
    return set(read_manifest(path).ids)


def _tiers_of(root: Path, tier: str | None, tiers: str | None, only: set[str] | None = None
              ) -> tuple[dict[str, Any], str]:
    """Every entry's (or ``only`` these entries') tier assignment from the tier source, and
    the source's text."""
    from tambench.cli.subsets_cmd import read_tier_source
    from tambench.difficulty.tiers import catalogue_tiers

    _choice(tier, ["easy", "medium", "hard"], "--tier")
    sources = read_tier_source(tiers, root)
    return (catalogue_tiers(root, sources, quiet=True, only=only),
            ",".join(str(s) for s in sources))


def _with_tiers(rows: list[dict[str, Any]], assigned: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows with the tier their tier source gives, that source, and why there is none."""
    out = []
    for r in rows:
        a = assigned.get(r["id"])
        tier = a.tier.value if a is not None and a.tier is not None else ""
        out.append({**r, "tier": tier, "tier_source": a.source if tier and a else "",
                    "tier_reason": a.reason if a is not None and not tier else ""})
    return out


@tasks_app.command("list")
def list_tasks(
    catalogue: Path | None = typer.Option(None, "--catalogue", help=_CAT_HELP),
    modality: str | None = typer.Option(None, "--modality", help="Tabular, Text, Image, Audio, "
                                        "Graph or Multimodal."),
    field: str | None = typer.Option(None, "--field", help="Application domain (substring)."),
    tier: str | None = typer.Option(None, "--tier", help="easy, medium or hard."),
    tiers: str | None = typer.Option(None, "--tiers", help="Where tiers come from (as "
                                     "`subsets build --tiers`; default: the same default)."),
    platform: str | None = typer.Option(None, "--platform", help="kaggle, aicrowd, ..."),
    since: str | None = typer.Option(None, "--since", help="Ended on or after YYYY-MM-DD "
                                     "(tasks whose dates cannot tell are named on stderr)."),
    until: str | None = typer.Option(None, "--until", help="Ended on or before YYYY-MM-DD."),
    subset: str | None = typer.Option(None, "--subset", help="In this manifest of _subsets/: "
                                      "lite, medium, full: regenerated from agent-ready tasks; "
                                      "paper-lite, paper-medium (54), paper-full: the paper's."),
    collection: str | None = typer.Option(None, "--collection", help="In this collection of "
                                          "the catalogue's _collections/ (paper, mle-bench, "
                                          "mle-dojo, ...; all: every entry)."),
    status: str | None = typer.Option(None, "--status", help="complete or incomplete."),
    passing: bool | None = typer.Option(None, "--passes-filters/--fails-filters",
                                        help="Only tasks passing (or not) every filter rule."),
    ready: bool | None = typer.Option(None, "--agent-ready/--not-agent-ready",
                                      help="Only agent-ready tasks (or the others)."),
    explain: bool = typer.Option(False, "--explain", help="Show each filter rule's verdict."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List catalogue tasks matching the given filters, with each one's tier (and where the
    tier comes from) and dates (an unknown value is refused, exit 2). An entry whose task.json
    cannot be read is named on stderr and the others are listed (exit 3)."""
    from tambench.cli._console import err_console
    from tambench.schema.taskspec import Modality
    from tambench.tasks.catalogue import Catalogue, build_index

    root = catalogue_root(catalogue)
    window = parse_day(since, "--since"), parse_day(until, "--until")
    members = collection_option_ids(root, collection)
    subset_ids = _subset_ids(root, subset)
    cat = Catalogue(root)
    entries, unreadable = cat.readable_entries()
    assigned, _ = _tiers_of(root, tier, tiers, members)
    rows = _with_readiness(_with_tiers(build_index(cat, entries), assigned), entries, ready)
    if tier is not None:
        rows = [r for r in rows if r["tier"] == tier.lower()]
    rows = filter_rows(
        rows, modality=_choice(modality, [m.value for m in Modality], "--modality"),
        field=field, platform=platform,
        ids=subset_ids if members is None else (members if subset_ids is None
                                                else members & subset_ids),
        status=_choice(status, ["complete", "incomplete"], "--status"), passes_filters=passing)
    rows, undated = filter_dates(rows, *window)
    _print_rows(cat, rows, explain, json_out)
    if undated:
        err_console.print(f"note: {len(undated)} task(s) not listed: their recorded dates "
                          "cannot tell whether they ended in the window", markup=False)
        for tid, why in undated:
            err_console.print(f"  {tid}: {why}", markup=False)
    for p in unreadable:
        err_console.print(f"error: {p.where}: {p.message} (not listed)", markup=False)
    if unreadable:
        raise typer.Exit(3)


def _with_readiness(rows: list[dict[str, Any]], entries: list[Any], ready: bool | None
                    ) -> list[dict[str, Any]]:
    """Each row with its recipe's state (``recipe``: checked, unchecked, none) and what its task
    lacks to be agent-ready (``lacks``), filtered by ``ready``."""
    from tambench.tasks.readiness import entry_gaps

    gaps = {e.id: entry_gaps(e) for e in entries}
    recipes = {e.id: e.recipe for e in entries}
    out = [{**r, "recipe": recipes.get(str(r["id"]), "none"),
            "lacks": ", ".join(gaps.get(r["id"], []))} for r in rows]
    return out if ready is None else [r for r in out if (not r["lacks"]) == ready]


#: The columns of ``tasks list`` (a row's key is the header; every field, the start date too,
#: is in ``--json``): the id is never cut; on a narrow terminal the end date, then the
#: subsets and the tier's source, then the status and the recipe go first. ``recipe``:
#: "checked" when the suite prepares a download generated in the task's real layout with its
#: split recipe, "unchecked" for a recipe without that check, "none" without a recipe. The end
#: date is shown when no entry has one (empty: the dates are unknown, not left out; "rolling": a
#: competition that never ends).
TASK_COLUMNS = (
    Column("id", key=True), Column("modality", priority=5), Column("tier", priority=5),
    Column("tier_source", priority=2), Column("metric", priority=4, min_width=10),
    Column("status", priority=3), Column("recipe", priority=3), Column("end_date", priority=1, always=True),
    Column("subsets", priority=2, min_width=8), Column("lacks", priority=3, min_width=8),
)


def _cell(value: Any) -> Any:
    """A value as a table cell: missing (None, NaN) is empty."""
    return None if value is None or (isinstance(value, float) and value != value) else value


def _print_rows(cat: Any, rows: list[dict[str, Any]], explain: bool, json_out: bool) -> None:
    from tambench.cli._console import console, print_json
    from tambench.tasks.filters import evaluate_rules

    verdicts: dict[str, list[Any]] = {}
    if explain:
        verdicts = {r["id"]: evaluate_rules(cat.get(r["id"]).spec) for r in rows}
    if json_out:
        clean = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
                 for r in rows]
        for r in clean:
            if explain:
                r["rules"] = [{"rule": v.rule, "verdict": v.verdict, "reason": v.reason}
                              for v in verdicts[str(r["id"])]]
        print_json(clean)
        return
    columns = [*TASK_COLUMNS, *([Column("rules", priority=6, min_width=12)] if explain else [])]
    keys = [c.header for c in TASK_COLUMNS]
    print_table(columns, [[_cell(_end_cell(r) if k == "end_date" else r.get(k)) for k in keys] + (
        [" ".join(f"{v.rule}={v.verdict}" for v in verdicts[r["id"]])] if explain else [])
        for r in rows])
    console.print(f"{len(rows)} task(s)")


def _end_cell(row: dict[str, Any]) -> Any:
    """The end date, or "rolling" for a competition that never ends."""
    return row.get("end_date") or ("rolling" if row.get("timeline") else None)


def _timeline(spec: Any) -> str:
    """How a rolling competition's dates read ("" for one that ends)."""
    from tambench.tasks.dates import is_rolling, timeline_label

    return timeline_label(spec.start_date, is_rolling(spec.provenance.facts))


def _dates_of(spec: Any) -> str:
    """A task's dates as ``tasks show`` prints them."""
    return _timeline(spec) or f"{spec.start_date or '?'} to {spec.end_date or '?'}"


def _difficulty_of(entry: Any) -> tuple[Any, str]:
    """The entry's stored difficulty, else the one computed from its shipped leaderboard."""
    from tambench.difficulty.batch import entry_difficulty

    if entry.spec.difficulty is not None:
        return entry.spec.difficulty, "stored"
    result = entry_difficulty(entry)
    if result.primary is None:
        return None, result.reason
    return result.primary.to_model(result.others), "computed from the leaderboard"


@tasks_app.command("show")
def show(
    task_id: str = typer.Argument(..., help="Task id <platform>/<slug> (or a unique slug)."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help=_CAT_HELP),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """One task: its main fields, which filter rules it passes and why, its difficulty, its
    statement (the schema's fields) and where its pages are read."""
    from tambench.cli._console import console, print_json
    from tambench.cli._pages import statement_json, statement_lines
    from tambench.tasks.catalogue import Catalogue
    from tambench.tasks.collections import collection_memberships
    from tambench.tasks.filters import evaluate_rules, passes_filters

    cat = Catalogue(catalogue_root(catalogue))
    entry = cat.get(task_id)
    spec = entry.spec
    rules = evaluate_rules(spec)
    memberships = cat.subset_memberships().get(spec.id, [])
    difficulty, origin = _difficulty_of(entry)
    collections = collection_memberships(cat.root).get(spec.id, [])
    if json_out:
        print_json({
            "id": spec.id, "title": spec.title, "status": spec.status,
            "modality": spec.modality.value if spec.modality else None,
            "field": spec.field, "metric": spec.grading.metric if spec.grading else None,
            "has_leaderboard": entry.has_leaderboard,
            "leaderboard": spec.leaderboard.model_dump(mode="json") if spec.leaderboard else None,
            "difficulty": difficulty.model_dump(mode="json") if difficulty else None,
            "difficulty_origin": origin,
            "reference_tiers": spec.reference_tiers,
            "rules": [{"rule": r.rule, "verdict": r.verdict, "reason": r.reason} for r in rules],
            "passes_filters": passes_filters(rules),
            "subsets": memberships, "collections": collections,
            "start_date": spec.start_date.isoformat() if spec.start_date else None,
            "end_date": spec.end_date.isoformat() if spec.end_date else None,
            "timeline": _timeline(spec),
            "notes": spec.provenance.notes,
            **statement_json(spec),
        })
        return
    lines = [f"{spec.id}  {spec.title}  [{spec.status}]",
             f"  modality: {spec.modality.value if spec.modality else '-'}   field: "
             f"{spec.field or '-'}   metric: {spec.grading.metric if spec.grading else '-'}"]
    rec = spec.leaderboard
    lines.append(f"  leaderboard: {rec.rows} rows, {rec.kind}, from {rec.source}"
                 if rec else f"  leaderboard: {'yes' if entry.has_leaderboard else 'no'}")
    if difficulty is not None:
        others = ", ".join(f"{o.method} {o.score:.3f} {o.tier.value}" for o in difficulty.other)
        lines.append(f"  difficulty ({origin}): {difficulty.method} {difficulty.score:.3f} "
                     f"{difficulty.tier.value}" + (f"; beside: {others}" if others else ""))
    if spec.reference_tiers:
        lines.append(f"  reference tiers: {spec.reference_tiers}")
    lines.append(f"  dates: {_dates_of(spec)}   collections: {', '.join(collections) or '-'}")
    lines += [f"  subsets: {', '.join(memberships) or '-'}",
              f"  filters: {'pass' if passes_filters(rules) else 'not passed'}"]
    lines += [f"    {r.verdict:7s} {r.rule}: {r.reason}" for r in rules]
    lines += [f"  note: {n}" for n in spec.provenance.notes]
    lines += statement_lines(spec)
    for line in lines:
        console.print(line, markup=False)


def _print_import(kind: str, path: Path, report: Any) -> None:
    from tambench.cli._console import console, err_console

    console.print(f"{kind}: {report.read} task(s) read from {path} into {report.catalogue}: "
                  f"{len(report.written)} new, {len(report.merged)} merged, "
                  f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped, "
                  f"{len(report.failures)} failed; {len(report.complete)} complete",
                  markup=False)
    for tid, fields in sorted(report.merged.items()):
        console.print(f"  merged {tid}: {', '.join(fields) or 'no field'} changed; files "
                      f"{', '.join(report.files.get(tid, []))}", markup=False)
    from tambench.tasks.merge import change_line

    for c in report.replaced:
        console.print(f"  {change_line(c.task, c, replaced=True)}", markup=False, soft_wrap=True)
    for c in report.conflicts:
        console.print(f"  {change_line(c.task, c, replaced=False)}", markup=False,
                      soft_wrap=True)
    for where, message in sorted(report.failures.items()):
        err_console.print(f"failed: {where}: {message}", markup=False)
    for tid, warnings in sorted(report.warnings.items()):
        for w in warnings:
            err_console.print(f"warning: {tid}: {w}", markup=False)
    for note in report.notes:
        err_console.print(f"note: {note}", markup=False)


def _run_import(kind: str, path: Path, root: Path, on_existing: Any) -> Any:
    """Read the tree and write it into ``root``; Ctrl-C says what was written and exits 130."""
    from tambench.cli._console import err_console
    from tambench.tasks.importers import ImportInterrupted, read_tree, write_imported

    try:
        tree = read_tree(kind, path)
    except KeyboardInterrupt:
        err_console.print(f"interrupted while reading {path}; nothing was written to {root}",
                          markup=False)
        raise typer.Exit(130) from None
    try:
        return write_imported(tree, root, on_existing=on_existing)
    except ImportInterrupted as exc:
        done = exc.report
        state = "written whole" if exc.task_written else "left as it was"
        err_console.print(f"interrupted while writing {exc.task}, which is {state}; "
                          f"{len(done.written)} new and {len(done.merged)} changed entries "
                          f"in all were written whole ({root})", markup=False)
        raise typer.Exit(130) from None


@tasks_app.command("import")
def import_tree(
    kind: str = typer.Argument(..., help="Layout to read: tam-lite, mle-bench (also "
                               "dslighting's registry) or mle-dojo."),
    path: Path = typer.Argument(..., help="Root of the tree to import (for mle-bench: the "
                                "repository, its mlebench/ or mlebench/competitions/, or "
                                "dslighting's repository or dslighting/registry/; for "
                                "mle-dojo: the repository, mledojo/ or mledojo/competitions/)."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Catalogue to write into (default: the configured one; "
        "never the installed package's)."),
    on_existing: str = typer.Option(
        "merge", "--on-existing",
        help="merge: fill empty fields, keep curated values, list conflicts; replace: also "
             "replace conflicting values (each printed); skip: leave existing entries alone."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Import another benchmark's layout into a catalogue (no code from the tree is run).

    Exit 3 when some folder could not be imported (the others are)."""
    try:
        report = _import(kind, path, catalogue, on_existing, json_out)
    except KeyboardInterrupt:
        from tambench.cli._echo import echo

        echo("interrupted; no entry of the catalogue is half-written (each is written whole or "
             "not at all)", err=True)
        raise typer.Exit(130) from None
    if report.failures:
        raise typer.Exit(3)


def _import(kind: str, path: Path, catalogue: Path | None, on_existing: str,
            json_out: bool) -> Any:
    from tambench.cli._console import print_json
    from tambench.errors import ImportLayoutError
    from tambench.tasks.importers import IMPORTERS, ON_EXISTING

    if kind not in IMPORTERS:
        raise typer.BadParameter(IMPORTERS.unknown_message(kind), param_hint="KIND")
    if on_existing not in ON_EXISTING:
        raise typer.BadParameter(f"expected one of {', '.join(ON_EXISTING)}, got "
                                 f"{on_existing!r}", param_hint="--on-existing")
    if not path.is_dir():
        raise ImportLayoutError(f"{path} is not a folder; expected the root of a {kind} tree")
    root = import_catalogue(catalogue)
    report = _run_import(kind, path, root, on_existing)
    if json_out:
        print_json(report.model_dump(mode="json"))
    else:
        _print_import(kind, path, report)
    return report


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    from tambench.cli.tasks_pages_cmd import pages

    tasks_app.command("pages")(pages)
    app.add_typer(tasks_app, name="tasks")
