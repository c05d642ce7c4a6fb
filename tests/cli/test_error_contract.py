"""One error contract for every command: a missing file, a folder where a file is needed, a
misspelt id or option -> a non-zero exit, one line on stderr and no traceback; with ``--json``
stdout is exactly one JSON document, ``{"error": {...}}``.

The table below names every leaf command of the CLI (a completeness test fails when a command
is added without a row), with at least one bad input each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import build_command, main

M, D, F, LB = "{missing}", "{folder}", "{file}", "{leaderboard}"

#: command -> [(argv after the command, expected exit code)]
CASES: dict[str, list[tuple[list[str], int]]] = {
    "acquire": [(["kaggle:x", "--catalogue", F, "--renderer", "http"], 1)],
    "audit": [([M], 1), ([D], 1), (["kaggle/spaceship-titanc"], 1)],
    "check-split": [([M], 1), ([D], 1)],
    "demo": [(["extra-argument"], 2)],
    "difficulty calibrate": [(["--labels", M], 1), (["--labels", D], 1)],
    "difficulty compare": [(["--labels", M], 1), (["--labels", D], 1)],
    "difficulty compute": [([M, "--metric", "rmse"], 1), ([D, "--metric", "rmse"], 1),
                           ([LB, "--metric", "rmsee"], 1)],
    "difficulty methods": [(["--bogus"], 2)],
    "discover": [(["kagle"], 2)],
    "grade": [([M, "--answers", LB, "--metric", "rmse", "--id-column", "Rank",
                "--target-column", "Score"], 1),
              ([D, "--answers", LB, "--metric", "rmse", "--id-column", "Rank",
                "--target-column", "Score"], 1),
              ([LB, "--answers", D, "--metric", "rmse", "--id-column", "id"], 1),
              ([LB, "--task", "kaggle/spaceship-titanc"], 1)],
    "grade-runs": [([M], 1), ([D, "--catalogue", M], 1), ([F], 1)],
    "judge": [(["--task", M, "--solution", F], 1), (["--task", "kaggle/spaceship-titanic",
                                                       "--solution", D], 1),
              (["--task", "kaggle/spaceship-titanc", "--solution", F], 1)],
    "leaderboard normalize": [([M, "{out}"], 1), ([D, "{out}"], 1)],
    "leaderboard refresh": [(["kaggle/spaceship-titanc", "--catalogue", D], 1),
                            (["kaggle/x", "--catalogue", D, "--kind", "final"], 2)],
    "leaderboard show": [([M], 1), ([D], 1)],
    "metrics": [(["--bogus"], 2)],
    "prepare": [([M, "--download"], 1), ([D, "--raw", D], 1),
                (["kaggle/spaceship-titanc", "--raw", D], 1)],
    "protocol list": [(["--bogus"], 2)],
    "protocol kagglebench": [(["--tasks", M, "--human"], 1), (["--tasks", D, "--human"], 1)],
    "protocol mlagentbench": [(["--stdout", M, "--metric", "accuracy"], 1),
                              (["--stdout", D, "--metric", "accuracy"], 1)],
    "protocol mlalgo": [([M], 1), ([D], 1)],
    "rank": [(["--leaderboard", M, "--score", "1", "--metric", "rmse"], 1),
             (["--leaderboard", D, "--score", "1", "--metric", "rmse"], 1),
             (["--leaderboard", LB, "--score", "1", "--metric", "rmsee"], 1)],
    "run": [(["kaggle/spaceship-titanc", "--agent", "true"], 1),
            (["kaggle/spaceship-titanic", "--agent", "true", "--time-limit", "soon"], 1),
            (["kaggle/spaceship-titanic", "--agent", "true", "--sandbox", "bwrap"], 1),
            (["--agent", "true"], 2)],
    "schema convert": [([M, "--id", "a/b"], 1), ([D, "--id", "a/b"], 1)],
    "schema export": [(["--out", D], 1)],
    "schema map": [([M, "--id", "a/b"], 1), ([D, "--id", "a/b"], 2)],
    "schema validate": [([M], 1), ([D], 1)],
    "site serve": [(["--port", "99999"], 2)],
    "subsets build": [(["--catalogue", M], 1)],
    "subsets diff": [([M, M], 1), ([D, D], 1)],
    "tasks import": [(["mle-bnch", D], 2), (["mle-bench", M], 1)],
    "tasks index": [(["--catalogue", M], 1)],
    "tasks list": [(["--catalogue", M], 1)],
    "tasks pages": [(["kaggle/spaceship-titanc"], 1),
                    (["kaggle/spaceship-titanic", "--pages-from", "nobody=/"], 1)],
    "tasks show": [(["kaggle/spaceship-titanc"], 1)],
    "tasks validate": [(["--catalogue", M], 1)],
    "validate": [([M, "--task", "kaggle/spaceship-titanc"], 1),
                 ([F, "--task", "kaggle/spaceship-titanic"], 1),
                 ([F, "--task", "kaggle/spaceship-titanic", "--public-dir", D], 1),
                 ([M, "--task", "kaggle/spaceship-titanic", "--public-dir", D], 1)],
    "serve validate": [(["--task", "kaggle/spaceship-titanc"], 1),
                       (["--task", "kaggle/spaceship-titanic"], 1),
                       (["--task", "kaggle/spaceship-titanic", "--port", "99999"], 2)],
}


def _leaf_commands() -> dict[str, bool]:
    """Every leaf command -> whether it takes --json."""
    out: dict[str, bool] = {}

    def walk(cmd: object, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        out[" ".join(path)] = any("--json" in p.opts for p in cmd.params)  # type: ignore[attr-defined]

    walk(build_command(), [])
    return out


def test_every_command_has_bad_input_cases() -> None:
    assert set(CASES) == set(_leaf_commands())


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    text = tmp_path / "notes.txt"
    text.write_text("not what any command wants\n")
    board = tmp_path / "leaderboard.csv"
    board.write_text("Rank,TeamName,Score\n" + "".join(f"{i},t{i},{i / 10}\n" for i in range(1, 9)))
    return {"{missing}": str(tmp_path / "no-such-file.csv"), "{folder}": str(folder),
            "{file}": str(text), "{leaderboard}": str(board), "{out}": str(tmp_path / "out.csv")}


CASE_IDS = [(cmd, i) for cmd, cases in CASES.items() for i in range(len(cases))]


@pytest.mark.parametrize(("command", "index"), CASE_IDS,
                         ids=[f"{c}-{i}" for c, i in CASE_IDS])
def test_bad_input_gives_one_error_line_and_a_json_error_object(
    command: str, index: int, places: dict[str, str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TAMBENCH_DATA_DIR", str(tmp_path / "no-data"))
    template, expected = CASES[command][index]
    argv = [*command.split(), *(places.get(a, a) for a in template)]

    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == expected, (argv, out, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert "rror" in err  # "error: ..." or click's "Error: ..."

    rc = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    document = json.loads(out)  # exactly one JSON document on stdout
    error = document["error"]
    assert set(error) == {"type", "kind", "message", "exit_code"}
    assert rc == error["exit_code"] != 0
    if _leaf_commands()[command]:
        assert rc == expected and error["kind"] in {"error", "usage"}
    else:  # the command has no --json: that option is the usage error
        assert (rc, error["kind"]) == (2, "usage") and "--json" in error["message"]


def test_a_bug_still_shows_its_traceback_and_a_json_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tambench.core.metrics as metrics_mod

    def broken() -> list[object]:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(metrics_mod, "list_metrics", broken)
    rc = main(["metrics", "--json"])
    out, err = capsys.readouterr()
    assert rc == 1 and "Traceback" in err and "ZeroDivisionError: planted" in err
    assert json.loads(out)["error"]["kind"] == "internal"


def test_json_mode_prints_nothing_but_the_error_when_a_command_fails_midway(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tambench.cli import main as main_mod

    (tmp_path / "half_done_cmd_for_test.py").write_text(
        "import typer\n"
        "from tambench.errors import TambenchError\n"
        "def register(app):\n"
        "    @app.command('half-done-for-test', hidden=True)\n"
        "    def half_done(json_out: bool = typer.Option(False, '--json')) -> None:\n"
        "        print('{\"partial\": ')\n"
        "        raise TambenchError('failed after printing')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(main_mod.COMMANDS, "half-done-for-test", "half_done_cmd_for_test")
    rc = main(["half-done-for-test", "--json"])
    out, _ = capsys.readouterr()
    assert rc == 1
    assert json.loads(out) == {"error": {"type": "TambenchError", "kind": "error",
                                         "message": "failed after printing", "exit_code": 1}}


def test_piped_output_is_not_wrapped_and_data_is_not_markup(
    capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["metrics"])
    out, _ = capsys.readouterr()
    assert rc == 0
    # the range column keeps its brackets (rich markup would eat "[0, 1]")
    accuracy = next(line for line in out.splitlines() if line.startswith("accuracy "))
    assert "  [0, 1]  " in accuracy
    assert max(len(line) for line in out.splitlines()) > 80  # one row per metric, no wrapping
    ids = [line.split()[0] for line in out.splitlines()[1:]]
    assert len(ids) == len(set(ids)) and all(i[0].isalpha() for i in ids)  # no folded rows


def test_help_has_no_type_placeholders_for_flags_nor_eaten_defaults(
    capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (["--help"], ["grade-runs", "--help"], ["prepare", "--help"], ["rank", "--help"]):
        assert main(argv) == 0
        out, _ = capsys.readouterr()
        assert "<bool>" not in out and " ." not in out, out
    assert main(["prepare", "--help"]) == 0
    assert "[default: config file, else auto]" in " ".join(capsys.readouterr().out.split())


def test_the_command_table_names_every_command_each_module_registers() -> None:
    from tambench.cli.main import COMMANDS, build_command

    for module in set(COMMANDS.values()):
        registered = set(build_command((module,)).commands)
        assert registered == {c for c, m in COMMANDS.items() if m == module}, module
    assert set(build_command().commands) == set(COMMANDS)


def test_a_command_line_loads_only_the_module_of_its_command() -> None:
    import subprocess
    import sys

    code = ("import sys; from tambench.cli.main import main; main(['grade', '--help']); "
            "print(sorted(m for m in sys.modules if m.startswith('tambench.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    loaded = eval(out.strip().splitlines()[-1])  # noqa: S307 - our own printed list
    assert "tambench.cli.grade_cmd" in loaded
    assert not {"tambench.cli.tasks_cmd", "tambench.cli.acquire_cmd",
                "tambench.cli.split_cmd"} & set(loaded)
