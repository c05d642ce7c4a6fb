"""Commands work without a home directory: HOME unset and a user id with no passwd entry (a
container run under an arbitrary uid), where ``Path.home()`` raises "Could not determine home
directory". The user config file is skipped; libraries that keep caches under the home
directory (the browser agent, the judge's verdict cache) get a private temporary folder.

The commands run in child processes as a uid without a passwd entry (the tests run as root and
switch the child's uid; elsewhere they are skipped).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tambench.errors import ConfigError
from tests.grading.corpus import TASKS, perfect_text

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "tambench.cli.main"]


def _unused_uid() -> int:
    uid = 54321
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


@pytest.fixture(scope="module")
def homeless() -> Iterator[tuple[Path, int]]:
    """A work folder owned by a uid that has no passwd entry."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("switching to a uid without a passwd entry needs root and setpriv")
    uid = _unused_uid()
    root = Path(tempfile.mkdtemp(prefix="tambench-homeless-test-"))
    _build(root)
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            os.chown(os.path.join(folder, name), uid, uid)
    os.chown(root, uid, uid)
    yield root, uid
    shutil.rmtree(root, ignore_errors=True)


def _build(root: Path) -> None:
    """A catalogue of one task with a leaderboard, its answers, one run, a config file in a
    home folder the child cannot find."""
    from tests.grading.test_batch import make_env, put

    cat, data, runs = make_env(root)
    put(runs, "agent", "value", "r1", perfect_text(TASKS["value"]))
    put(runs, "agent", "value", "r2", "id,y\n1,2\n")
    (root / "sub.csv").write_text(perfect_text(TASKS["value"]))


def _as_uid(uid: int, argv: list[str]) -> list[str]:
    """``argv`` run as ``uid`` (util-linux's setpriv: the interpreter of this venv may live
    in a folder only root can list, which setpriv's exec still reaches)."""
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]


def _run(root: Path, uid: int, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"HOME", "MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
                        "TAMBENCH_CONFIG"}}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(_as_uid(uid, [*CLI, *args]), cwd=root, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_the_child_really_has_no_home(homeless: tuple[Path, int]) -> None:
    root, uid = homeless
    env = {k: v for k, v in os.environ.items() if k != "HOME"}
    probe = subprocess.run(
        _as_uid(uid, [sys.executable, "-c", "import os; from pathlib import Path; "
                      "print(os.getuid()); Path.home()"]),
        cwd=root, env=env, capture_output=True, text=True, check=False)
    assert probe.stdout.strip() == str(uid)
    assert "Could not determine home directory" in probe.stderr


def test_commands_work_without_a_home_directory(homeless: tuple[Path, int]) -> None:
    root, uid = homeless
    where = ["--catalogue", "catalogue", "--data-dir", "data"]
    commands = {
        "metrics": ["metrics", "--json"],
        "tasks list": ["tasks", "list", "--catalogue", "catalogue", "--json"],
        "tasks validate": ["tasks", "validate", "--catalogue", "catalogue", "--json"],
        "schema validate": ["schema", "validate", "catalogue/test/value/task.json"],
        "grade": ["grade", "sub.csv", "--task", "test/value", *where, "--json"],
        "grade-runs": ["grade-runs", "runs", *where, "--out", "report", "--executor", "serial",
                       "--json"],
        "rank": ["rank", "--leaderboard", "catalogue/test/value/leaderboard.csv", "--score",
                 "0.7", "--metric", "rmse", "--json"],
        "leaderboard show": ["leaderboard", "show", "catalogue/test/value/leaderboard.csv",
                             "--metric", "rmse", "--json"],
    }
    failed = {}
    for name, args in commands.items():
        proc = _run(root, uid, args)
        # The validators exit 3 on the test task's own gaps (it is not a complete task).
        ok = {0, 3} if name.endswith("validate") else {0}
        if proc.returncode not in ok or "Traceback" in proc.stderr or "home" in proc.stderr:
            failed[name] = (proc.returncode, proc.stderr[-600:])
    assert failed == {}
    report = json.loads((root / "report" / "grades.json").read_text())
    assert [r["status"] for r in report["rows"]] == ["graded_valid", "invalid_submission"]
    html = (root / "report" / "report.html").read_text()
    assert "data:image/svg+xml" in html  # the figures were drawn
    assert not [p for p in Path(tempfile.gettempdir()).glob("tambench-nohome-*")
                if p.stat().st_uid == uid]  # the fallback folders are removed at exit


def test_a_tilde_path_without_a_home_directory_is_a_clear_error(
    homeless: tuple[Path, int]
) -> None:
    root, uid = homeless
    proc = _run(root, uid, ["tasks", "list", "--catalogue", "~/catalogue"])
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "catalogue ~/catalogue starts with ~" in proc.stderr


def _no_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process, as if it had no home directory."""
    monkeypatch.delenv("HOME", raising=False)

    def no_entry(uid: int) -> None:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", no_entry)


def test_settings_skip_the_user_config_file(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from tambench.config import config_file, home_dir, load_settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TAMBENCH_CONFIG", raising=False)
    _no_home(monkeypatch)
    assert home_dir() is None and config_file() is None
    assert load_settings(max_workers=3).max_workers == 3
    with pytest.raises(ConfigError, match="data_dir ~/x starts with ~"):
        load_settings(data_dir=Path("~/x"))


def test_library_folders_fall_back_to_a_private_temporary_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tambench.acquisition.kaggle_client import has_credentials
    from tambench.config import env_dir_fallback
    from tambench.judge.cache import default_cache_dir

    for var in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "KAGGLE_CONFIG_DIR", "KAGGLE_API_TOKEN",
                "KAGGLE_USERNAME", "KAGGLE_KEY"):
        monkeypatch.delenv(var, raising=False)
    _no_home(monkeypatch)
    env_dir_fallback("MPLCONFIGDIR", "matplotlib")
    mpl = Path(os.environ["MPLCONFIGDIR"])
    assert mpl.is_dir() and (mpl.stat().st_mode & 0o077) == 0
    cache = default_cache_dir()
    assert cache.parent == mpl.parent and (cache.stat().st_mode & 0o077) == 0
    assert has_credentials() is False  # environment only; no crash
    monkeypatch.setenv("MPLCONFIGDIR", "/somewhere")
    env_dir_fallback("MPLCONFIGDIR", "matplotlib")
    assert os.environ["MPLCONFIGDIR"] == "/somewhere"  # a folder set by the user is kept


def test_the_browser_gets_a_temporary_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tambench.acquisition.agent import configure_browser_use_env
    from tambench.acquisition.browser import chromium_env

    _no_home(monkeypatch)
    assert chromium_env(str(tmp_path))["HOME"] == str(tmp_path)  # Chromium's profile, tmp
    for var in ("ANONYMIZED_TELEMETRY", "BROWSER_USE_CLOUD_SYNC", "BROWSER_USE_VERSION_CHECK",
                "BROWSER_USE_DISABLE_EXTENSIONS", "BROWSER_USE_CONFIG_DIR",
                "BROWSER_USE_SETUP_LOGGING"):
        monkeypatch.setenv(var, "restored after the test")
    configure_browser_use_env(tmp_path / "bu")
    home = Path(os.environ["HOME"])  # browser-use expands ~: it gets a private folder
    assert home.is_dir() and (home.stat().st_mode & 0o077) == 0 and home != tmp_path
    monkeypatch.delenv("HOME")
