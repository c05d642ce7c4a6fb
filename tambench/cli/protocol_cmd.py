"""``tambench protocol``: score runs the way sibling benchmarks define it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

protocol_app = typer.Typer(
    help="Scoring rules of sibling benchmarks (`tambench protocol list` lists them).",
    no_args_is_help=True,
)


def _read_text(path: Path, what: str) -> str:
    from tambench.errors import ProtocolError

    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ProtocolError(f"{what} file not found: {path}") from None


@protocol_app.command("list")
def list_protocols(json_out: bool = typer.Option(False, "--json", help="Print strict JSON.")) -> None:
    """Every registered protocol: name, benchmark, what it scores, its inputs and docs."""
    from tambench.cli._console import console, print_json
    from tambench.protocols.base import PROTOCOLS

    rows = [{"name": p.name, "title": p.title, "summary": p.summary, "inputs": p.inputs,
             "entry_point": f"{p.evaluate.__module__}:{p.evaluate.__name__}", "doc": p.doc,
             "metrics": list(p.metrics)}
            for p in (PROTOCOLS[n] for n in PROTOCOLS)]
    if json_out:
        print_json(rows)
        return
    for r in rows:
        console.print(f"{r['name']} ({r['title']}): {r['summary']}\n  inputs: {r['inputs']}\n"
                      f"  docs: {r['doc']}" + (f"\n  metrics: {', '.join(r['metrics'])}"
                                               if r["metrics"] else ""))


def _original_rule(task: str, score: float | None, stdout: Path | None, out_text: str,
                   baseline: str | None, metric: str | None, mode: str,
                   threshold: float) -> tuple[dict[str, Any], str]:
    """MLAgentBench's improve-over-baseline rule for one run: (JSON result, summary line)."""
    from tambench.errors import ProtocolError
    from tambench.protocols.mlagentbench import extract_score, score_improvement

    value = score if score is not None else extract_score(out_text, mode, metric or "")  # type: ignore[arg-type]
    if value is None:
        raise ProtocolError(f"no score in {stdout}; the original rule needs a score")
    base = None
    if baseline is not None:
        try:
            base = float(baseline)
        except ValueError:
            raise typer.BadParameter(f"--baseline must be a number, got {baseline!r}") from None
    r = score_improvement(task, value, base, threshold=threshold)
    summary = (f"{task}: score {r.score} vs baseline {r.baseline} -> improvement "
               f"{r.improvement}, success@{threshold}: {r.success}")
    return {"rule": "improvement", **r.as_dict()}, summary


def _harness_rule(exit_code: int, out_text: str, err_text: str, metric: str | None,
                  baseline: str | None, score: float | None, mode: str) -> tuple[dict[str, Any], str]:
    """The harness variant's verdict for one run: (JSON result, summary line)."""
    from tambench.protocols.mlagentbench import evaluate_harness

    if metric is None:
        raise typer.BadParameter("the harness rule needs --metric (or give --task for the "
                                 "original rule)")
    h = evaluate_harness(exit_code=exit_code, stdout=out_text, stderr=err_text, metric=metric,
                         baseline=baseline, score=score, mode=mode)  # type: ignore[arg-type]
    summary = f"resolved: {h.resolved}"
    if h.score is not None:
        summary += f"; score {h.score}, baseline {h.baseline}, {h.metric_direction}"
    if h.error:
        summary += f"; error: {h.error}"
    if h.notes:
        summary += f" ({'; '.join(h.notes)})"
    return {"rule": "harness", **h.as_dict()}, summary


@protocol_app.command("mlagentbench")
def mlagentbench(
    metric: str | None = typer.Option(None, "--metric", help="The task's metric field (harness "
                                      "rule: gives the direction)."),
    baseline: str | None = typer.Option(None, "--baseline", help="The baseline score."),
    stdout: Path | None = typer.Option(None, "--stdout", help="File holding the eval script's "
                                       "stdout (the score is read from it)."),
    score: float | None = typer.Option(None, "--score", help="A score already known."),
    stderr: Path | None = typer.Option(None, "--stderr", help="File holding the eval script's "
                                       "stderr (quoted when the exit code is not 0)."),
    exit_code: int = typer.Option(0, "--exit-code", help="The eval script's exit status."),
    mode: str = typer.Option("default", "--mode", help="compatible (the reference runner, quirks "
                             "included) or default (corrected)."),
    task: str | None = typer.Option(None, "--task", help="Use the original benchmark's "
                                    "improve-over-baseline rule for this task instead."),
    threshold: float = typer.Option(0.1, "--threshold", help="Improvement needed by the "
                                    "original rule (0.1 = more than 10 %)."),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """MLAgentBench: the harness's resolution rule, or with --task the original rule."""
    from tambench.cli._console import console, print_json
    from tambench.protocols.mlagentbench import MODES

    if mode not in MODES:
        raise typer.BadParameter(f"--mode must be one of {list(MODES)}, got {mode!r}")
    if (stdout is None) == (score is None):
        raise typer.BadParameter("give exactly one of --stdout FILE and --score S")
    out_text = _read_text(stdout, "stdout") if stdout is not None else ""
    err_text = _read_text(stderr, "stderr") if stderr is not None else ""
    if task is not None:
        result, summary = _original_rule(task, score, stdout, out_text, baseline, metric, mode,
                                         threshold)
    else:
        result, summary = _harness_rule(exit_code, out_text, err_text, metric, baseline, score,
                                        mode)
    if json_out:
        print_json(result)
    else:
        console.print(summary)


@protocol_app.command("mlalgo")
def mlalgo(
    results: Path = typer.Argument(..., help="Results CSV: task, passed, score, "
                                   "reference_score, min, max, lower_is_better, time_agent, "
                                   "time_ref."),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """MLAlgo-Bench: pass rate, dScore, dTime and EScore from a results table."""
    from tambench.cli._console import console, print_json
    from tambench.protocols.mlalgo import aggregate_results, read_results

    agg = aggregate_results(read_results(results))
    if json_out:
        print_json(agg.as_dict())
        return

    def fmt(x: float | None) -> str:
        return "undefined" if x is None else f"{x:.6f}"

    console.print(f"tasks {agg.n_tasks}, passed {agg.n_passed}, pass rate {agg.pass_rate:.6f}")
    console.print(f"dScore {fmt(agg.d_score)} over {agg.n_included} task(s) "
                  f"(excluded {agg.excluded}); EScore {fmt(agg.e_score)}")
    console.print(f"dTime {fmt(agg.d_time)} over {agg.n_timed} task(s) "
                  f"(time excluded {agg.time_excluded})")


@protocol_app.command("kagglebench")
def kagglebench(
    tasks: Path = typer.Option(..., "--tasks", help="Folder of task folders "
                               "(<tasks>/<slug>/candidate_actions.json, testcases/)."),
    outputs: Path | None = typer.Option(None, "--outputs", help="Folder of agent outputs: "
                                        "<outputs>/<slug>/**/*.json."),
    human: bool = typer.Option(False, "--human", help="Score the human baselines "
                               "(<tasks>/<slug>/human_baseline/*.json) instead of --outputs."),
    scope: str = typer.Option("primary", "--scope", help="primary (core_preprocessing only) "
                              "or all."),
    pattern: str | None = typer.Option(None, "--pattern", help="Glob of output files inside "
                                       "each <outputs>/<slug>/ (default **/*.json)."),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON (every run, "
                                  "scenario and agent)."),
) -> None:
    """KaggleBench: score every output and aggregate per agent."""
    from tambench.cli._console import console, print_json
    from tambench.protocols.kagglebench import (
        HUMAN_BASELINE_GLOB,
        OUTPUT_GLOB,
        SCOPES,
        evaluate_outputs,
        find_task_dirs,
    )

    if scope not in SCOPES:
        raise typer.BadParameter(f"--scope must be one of {list(SCOPES)}, got {scope!r}")
    if human == (outputs is not None):
        raise typer.BadParameter("give exactly one of --outputs DIR and --human")
    # The human baselines live inside the task folders themselves.
    root: Path = find_task_dirs(tasks)[0].parent if outputs is None else outputs
    glob = pattern or (HUMAN_BASELINE_GLOB if human else OUTPUT_GLOB)
    report = evaluate_outputs(tasks, root, scope=scope, pattern=glob)
    if json_out:
        print_json(report)
        return
    console.print(f"scope {report['scope']}, {report['n_tasks']} task(s)")
    for name, s in report["agents"].items():
        console.print(
            f"{name}: {s['n_tasks']} task(s), {s['n_scenarios']} scenario(s), {s['n_runs']} "
            f"run(s)\n"
            f"  mean task completion {s['mean_task_completion']:.6f}, strict "
            f"{s['mean_strict_score']:.6f}\n"
            f"  mean add P/R/F1 {s['mean_add_precision']:.6f} / {s['mean_add_recall']:.6f} / "
            f"{s['mean_add_f1']:.6f}; mean remove recall {s['mean_remove_recall']:.6f}, "
            f"F1 {s['mean_remove_f1']:.6f}\n"
            f"  pass@k {s['pass_at_k']:.6f}, run success rate {s['run_success_rate']:.6f}"
        )
        missing = len(s["testcases_without_output"])
        if missing:
            console.print(f"  no output for {missing} testcase(s) (listed in --json)")


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(protocol_app, name="protocol")
