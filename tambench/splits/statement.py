"""What the agent reads in a prepared task: ``public/description.md`` and ``instructions.txt``.

``description.md`` is the competition's pages as Markdown when they were obtained (see
:mod:`tambench.acquisition.statement_pages`), else the statement rendered from the task's
schema with a line saying the page was not available; then a section generated from the
prepared files (each file with its rows and columns, the submission header with an example
row, the metric and its direction) and the rule that the local setup holds where it and the
page disagree. ``instructions.txt`` states the benchmark's rules at MLE-bench's paths.

Both are written from the public side only: the spec, the public files and the split report's
row counts. Nothing of ``private/`` is read, so no answer can reach them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from tambench.acquisition.statement_pages import (
    ObtainedPages,
    PageOptions,
    load_pages,
    obtain_pages,
    save_pages,
)
from tambench.core.layout import (
    DESCRIPTION_FILE,
    FILES_MANIFEST_FILE,
    INSTRUCTIONS_FILE,
    PAGES_DIR,
    PUBLIC_DIR,
    PUBLIC_TEST_FILE,
    PUBLIC_TRAIN_FILE,
    SAMPLE_SUBMISSION_FILE,
    TEST_FILES_DIR,
    TRAIN_FILES_DIR,
)
from tambench.fileio import write_text_atomic
from tambench.schema.taskspec import TaskSpec

#: MLE-bench's conventions, which the runner mounts.
DATA_PATH = "/home/data"
SUBMISSION_DIR = "/home/submission"


def submission_file(spec: TaskSpec) -> str:
    """The file an agent writes: ``submission.<format>`` of the task's grading (``submission.csv``
    for a task without one), the name grading looks for in a run folder."""
    fmt = spec.grading.submission_format.value if spec.grading is not None else "csv"
    return f"submission.{fmt}"
CODE_PATH = "/home/code"
LOGS_PATH = "/home/logs"
VALIDATE_URL = "http://localhost:5000/validate"
#: Columns listed by name in the data section; beyond this only the count.
MAX_LISTED_COLUMNS = 40
_ROLES = {
    PUBLIC_TRAIN_FILE: "the training rows, with the target column(s)",
    PUBLIC_TEST_FILE: "the rows to predict; the target column(s) are withheld",
    SAMPLE_SUBMISSION_FILE: "a submission in the expected format (placeholder predictions)",
    FILES_MANIFEST_FILE: "which per-row file belongs to which row",
}


def _csv_head(path: Path) -> tuple[list[str], list[str]]:
    """Header and first data row of a CSV file (read no further)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        return next(reader, []), next(reader, [])


def _line_rows(path: Path) -> int:
    """Data rows of a CSV file the split report does not count: its lines after the header."""
    lines, last = 0, b"\n"
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return max(lines + (last != b"\n") - 1, 0)


def _public_entries(public: Path) -> Iterator[Path]:
    skip = {DESCRIPTION_FILE, INSTRUCTIONS_FILE}
    for p in sorted(public.iterdir()):
        if p.name not in skip:
            yield p


def _column_list(header: list[str], spec: TaskSpec) -> str:
    g = spec.grading
    ids = set(g.id_columns) if g else set()
    targets = set(g.target_columns) if g else set()

    def label(c: str) -> str:
        role = " (id)" if c in ids else " (target)" if c in targets else ""
        return f"`{c}`{role}"

    shown = ", ".join(label(c) for c in header[:MAX_LISTED_COLUMNS])
    more = len(header) - MAX_LISTED_COLUMNS
    return shown + (f", and {more} more" if more > 0 else "")


def _file_lines(spec: TaskSpec, public: Path, rows: dict[str, int]) -> list[str]:
    lines: list[str] = []
    for p in _public_entries(public):
        role = _ROLES.get(p.name, "")
        if p.is_dir():
            n = sum(1 for f in p.rglob("*") if f.is_file())
            what = {TRAIN_FILES_DIR: "files of the training rows",
                    TEST_FILES_DIR: "files of the rows to predict"}.get(p.name, "files")
            lines.append(f"- `{p.name}/`: {n} {what}")
        elif p.suffix.lower() == ".csv":
            header, _ = _csv_head(p)
            n = rows[p.name] if p.name in rows else _line_rows(p)
            lines.append(f"- `{p.name}`: {n} rows, {len(header)} columns"
                         f"{': ' + role if role else ''}. Columns: {_column_list(header, spec)}")
        else:
            lines.append(f"- `{p.name}`: {p.stat().st_size:,} bytes"
                         f"{', ' + role if role else ''}")
    return lines


def _metric_lines(spec: TaskSpec) -> list[str]:
    # start-up: saves 3 ms (the metric registry)
    from tambench.core.metrics import get_metric

    g = spec.grading
    if g is None:
        return ["This task has no grading declared."]
    m = get_metric(g.metric)
    name = f" ({spec.metric.metric_name})" if spec.metric.metric_name else ""
    direction = "higher is better" if m.higher_is_better else "lower is better"
    lines = [f"Submissions are scored with `{g.metric}`{name}: {m.summary.rstrip('.')}; "
             f"{direction}."]
    if g.metric_params:
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(g.metric_params.items()))
        lines.append(f"Parameters: {params}.")
    return lines


def _submission_lines(spec: TaskSpec, public: Path) -> list[str]:
    g = spec.grading
    sample = public / SAMPLE_SUBMISSION_FILE
    header, first = _csv_head(sample) if sample.is_file() else ([], [])
    if g is not None and g.submission_header:
        header = list(g.submission_header)
    target = f"`{SUBMISSION_DIR}/{submission_file(spec)}`"
    lines = [f"Write your predictions to {target}, one row per row of `{PUBLIC_TEST_FILE}`."]
    if g is not None and g.submission_format == "json":
        lines = [f"Write your predictions to {target}: one JSON document with the keys, list "
                 "lengths and value types of `sample_submission.json`."]
    if header and (g is None or g.submission_format == "csv"):
        lines.append(f"Its header must be exactly: `{','.join(header)}`")
    if g is not None and g.submission_format == "txt":
        lines.append(f"It is plain text without a header: line i answers row i of "
                     f"`{PUBLIC_TEST_FILE}`, in that order (as `sample_submission.txt` shows).")
    if first:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([header, first])
        lines += ["", "For example (the first lines of `sample_submission.csv`):", "",
                  "```", buf.getvalue().rstrip("\n"), "```"]
    return lines


def benchmark_section(spec: TaskSpec, public: Path, rows: dict[str, int]) -> str:
    """The part of description.md generated from the prepared files (``rows``: the rows of
    the files the split report counts, by name)."""
    parts = ["## This benchmark's version of the task", "",
             f"The data is in `{DATA_PATH}`:", "", *_file_lines(spec, public, rows), "",
             "### Submission", "", *_submission_lines(spec, public), "",
             "### Metric", "", *_metric_lines(spec), "",
             "### Where this setup and the page disagree", "",
             "The local setup holds. The test set is a held-out part of the competition's "
             "training data, made by this benchmark, not the competition's own test set; its "
             "answers are hidden. The submission is the single file "
             f"`{submission_file(spec)}` described above, whatever the page says about files, "
             "kernels, notebooks or submission limits; the page's dates, leaderboards and "
             "prizes do not apply."]
    return "\n".join(parts) + "\n"


def statement_parts(spec: TaskSpec) -> list[tuple[str, str]]:
    """The statement's parts (name, text; empty when the schema leaves it empty)."""
    info = spec.data_information

    def joined(*parts: str) -> str:
        return " - ".join(x for x in parts if x)

    return [("Task type", spec.task_type), ("Goal", spec.goal_description),
            ("Metric", joined(spec.metric.metric_name, spec.metric.metric_formula)),
            ("Target", spec.target_col),
            ("Training data", joined(info.train.data_location, info.train.data_description)),
            ("Test data", joined(info.test.data_location, info.test.data_description)),
            ("Submission format", spec.output_format), ("Rules", spec.special_instructions)]


def schema_statement(spec: TaskSpec) -> str:
    """The statement rendered from the task's schema fields, for when the page is missing."""
    body = [f"## {name}\n\n{text}" for name, text in statement_parts(spec) if text.strip()]
    return "\n\n".join(body) + ("\n" if body else "")


def render_description(spec: TaskSpec, public: Path, pages: ObtainedPages | None,
                       rows: dict[str, int]) -> str:
    """The whole of description.md."""
    title = f"# {spec.title or spec.slug}\n\n"
    if pages is not None:
        head = ("The competition's page follows as published, without its leaderboard and "
                "prizes; the last section says how this benchmark's version differs.\n\n"
                "---\n\n" + pages.markdown.strip() + "\n\n---\n\n")
    else:
        head = ("The competition's original page was not available when this task was "
                "prepared; this statement is rendered from the benchmark's catalogue entry.\n\n"
                + schema_statement(spec) + "\n")
    return title + head + benchmark_section(spec, public, rows)


def render_instructions(spec: TaskSpec, time_limit: str = "") -> str:
    """The benchmark's rules for an agent, at MLE-bench's paths."""
    limit = (f"You have {time_limit} in all." if time_limit else
             "Your run has a time limit set by whoever runs the benchmark; plan for it.")
    submission = f"{SUBMISSION_DIR}/{submission_file(spec)}"
    rules = [
        f"You are solving the machine-learning task {spec.id} ({spec.title or spec.slug}).",
        f"The task's statement is {DATA_PATH}/{DESCRIPTION_FILE}; its data is in {DATA_PATH} "
        "(read-only).",
        f"Write your predictions for the test rows to {submission}. Only that file is "
        "graded; a run without it has no score.",
        f"Keep your code in {CODE_PATH} and your logs in {LOGS_PATH}.",
        f"Before you finish, you can check the format of a submission (not its score) by "
        f"posting the file to {VALIDATE_URL}, e.g. curl -X POST -F "
        f"file=@{submission} {VALIDATE_URL}",
        limit,
        "Labelling test data by hand, or by anything other than your model, is not allowed.",
        "Do not use the competition's public solutions, notebooks, write-ups or leaderboard "
        "submissions, nor its original test labels.",
        "Where the competition's page and this setup disagree, this setup holds (see the last "
        f"section of {DESCRIPTION_FILE}).",
    ]
    return "\n".join(f"{i}. {r}" for i, r in enumerate(rules, 1)) + "\n"


def write_statement(spec: TaskSpec, staging: Path, previous: Path | None,
                    options: PageOptions | None, *, rows: dict[str, int] | None = None,
                    time_limit: str = "") -> tuple[str, list[str]]:
    """Obtain or carry over the task's pages into ``staging/pages`` and write description.md
    and instructions.txt into ``staging/public``.

    Returns where the pages came from ("" when not obtained) and why each source tried
    before did not give them."""
    pages: ObtainedPages | None = None
    problems: list[str] = []
    if previous is not None:
        pages = load_pages(previous)
    if pages is None and options is not None:
        pages, problems = obtain_pages(spec, options)
    if pages is not None:
        save_pages(pages, staging)
    public = staging / PUBLIC_DIR
    write_text_atomic(public / DESCRIPTION_FILE,
                      render_description(spec, public, pages, rows or {}))
    write_text_atomic(public / INSTRUCTIONS_FILE, render_instructions(spec, time_limit))
    return (pages.origin if pages else ""), problems


__all__ = ["DESCRIPTION_FILE", "INSTRUCTIONS_FILE", "PAGES_DIR", "PageOptions",
           "render_description",
           "render_instructions", "schema_statement", "write_statement"]
