"""``tambench judge``: judge a solution's code against a task's numbered constraints."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from tambench.judge import JudgeResult
    from tambench.schema.taskspec import TaskSpec


def _local_id(path: Path) -> str:
    """A task id for a paper-format schema read from a file: ``local/<folder name>``."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", path.resolve().parent.name).strip("-.") or "task"
    if not slug[0].isalnum():
        slug = f"t{slug}"
    return f"local/{slug}"


def load_task_for_judge(task: str, catalogue: Path | None = None) -> TaskSpec:
    """A TaskSpec from a task.json / schema.json path, a folder holding one, or a catalogue id
    (``<platform>/<slug>`` or a unique slug). Paper-format schemas get the id
    ``local/<folder>``."""
    from tambench.config import load_settings
    from tambench.core.bounded import load_json
    from tambench.errors import TaskSpecError
    from tambench.schema.io import is_paper_format, parse_taskspec
    from tambench.tasks.catalogue import Catalogue

    path = Path(task)
    if path.is_dir():
        found = [path / n for n in ("task.json", "schema.json") if (path / n).is_file()]
        if not found:
            raise TaskSpecError(f"{path} holds neither task.json nor schema.json")
        path = found[0]
    if path.is_file():
        data = load_json(path, error=TaskSpecError)
        task_id = _local_id(path) if isinstance(data, dict) and is_paper_format(data) else None
        return parse_taskspec(data, task_id, source=str(path))
    settings = load_settings(catalogue=catalogue)
    return Catalogue(settings.catalogue).get(task).spec


def _read_solution(solution: Path) -> str:
    from tambench.errors import ConfigError

    try:
        return solution.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"solution file not found: {solution}") from None
    except IsADirectoryError:
        raise ConfigError(f"solution {solution} is a folder; give the solution's code file") \
            from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"solution file {solution} is not UTF-8 text: {exc}") from None


def _print_result(result: JudgeResult) -> None:
    """The human-readable verdicts (constraint texts and replies are data, never markup)."""
    from tambench.cli._console import console, err_console

    if not result.judged and result.total:
        err_console.print("no model configured: constraints are not judged "
                          "(give --model or set llm_model)")
    for v in result.verdicts:
        cited = f" lines {v.cited_lines}" if v.cited_lines else ""
        console.print(f"{v.number:>2}. [{v.status}]{cited} {v.text}", markup=False)
        if v.reason:
            console.print(f"      reason: {v.reason}", markup=False)
        for p in v.problems:
            console.print(f"      ! {p}", markup=False)
    for na in result.not_applicable:
        console.print(f"{na.number:>2}. [not applicable: {na.category}] {na.text}", markup=False)
        console.print(f"      {na.reason}", markup=False)
    rate = "n/a" if result.pass_rate is None else f"{result.pass_rate:.3f}"
    console.print(f"{result.passed}/{result.total} constraints passed (pass rate {rate}); "
                  f"not applicable {len(result.not_applicable)}, needs review "
                  f"{result.count('needs_review')}, unparseable {result.count('unparseable')}, "
                  f"errors {result.count('error')}", markup=False)


def judge(
    task: str = typer.Option(..., "--task", help="task.json / schema.json path, its folder, or a "
                             "task id in the catalogue."),
    solution: Path = typer.Option(..., "--solution", help="The final solution code file."),
    model: str | None = typer.Option(None, "--model", help="Model as 'provider:model' (e.g. "
                                     "anthropic:claude-sonnet-4-5, ollama:qwen2.5) or a bare "
                                     "OpenAI-compatible model name (default: the llm_model "
                                     "setting); without one, constraints are not judged."),
    base_url: str | None = typer.Option(None, "--base-url", help="The provider's endpoint "
                                        "(default: the llm_base_url setting)."),
    mode: str = typer.Option("strict", "--mode", help="strict (checked structured verdicts) or "
                             "paper (the paper's two-line answer)."),
    judge_all: bool = typer.Option(False, "--all-constraints", help="Judge every constraint, as "
                                   "the paper does, including those no code can show (accounts, "
                                   "teams, deadlines, ...)."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Verdict cache folder "
                                          "(default: ~/.cache/tambench/judge)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Task catalogue folder."),
    retries: int = typer.Option(2, "--retries", min=0, help="Retries of a failed request."),
    timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Seconds per request."),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """Ask an LLM whether the solution respects each checkable constraint of the task.

    Constraints no code can show (accounts, teams, submissions per day, deadlines, prizes,
    licences, platform limits) are listed as not applicable and left out of the pass rate.
    Exit code 0 when every checkable constraint got a verdict (pass or not), 3 when the
    endpoint failed for some of them.
    """
    from tambench.cli._console import print_json
    from tambench.config import load_settings
    from tambench.judge import JUDGE_MODES, default_cache_dir, judge_solution

    if mode not in JUDGE_MODES:
        raise typer.BadParameter(f"--mode must be one of {list(JUDGE_MODES)}, got {mode!r}")
    code = _read_solution(solution)
    spec = load_task_for_judge(task, catalogue)
    settings = load_settings(llm_model=model, llm_base_url=base_url)
    cache = None if no_cache else (cache_dir or default_cache_dir())
    result = judge_solution(spec, code, model=settings.llm_model or None,
                            base_url=settings.llm_base_url or None, cache_dir=cache,
                            mode=mode, timeout=timeout, max_retries=retries,
                            judge_all=judge_all)
    if json_out:
        print_json({"task": spec.id, "solution": str(solution), **result.as_dict()})
    else:
        _print_result(result)
    if result.count("error"):
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Attach the command."""
    app.command("judge")(judge)
