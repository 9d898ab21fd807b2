"""No sandbox process outlives a killed `arena tests run`: killed with SIGKILL at random
early moments (while it starts one sandbox after another), it leaves no bubblewrap and no
trial process behind; and the watcher is what stops the one bubblewrap leaves for good (a
sandbox whose bubblewrap died while setting it up waits for it forever)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.trials import reaper
from tests.trials.conftest import BASE, FIXED, Project, diff, needs_bwrap

REPO = Path(__file__).resolve().parents[2]
CASES = 40


def holding(marker: str) -> list[int]:
    """The live processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def gone(marker: str, within: float) -> list[int]:
    """What still holds ``marker`` after waiting up to ``within`` seconds for it to go."""
    deadline = time.monotonic() + within
    while (left := holding(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kills(project: Project, tmp_path: Path, count: int) -> None:
    outputs = [(f"c{n}", "good", diff("calc.py", BASE, FIXED)) for n in range(CASES)]
    quick = [
        {**project.task(f"c{n}", "pass\n"), "test_command": ["/bin/sh", "-c", "sleep 0.05"]}
        for n in range(CASES)
    ]
    project.load(outputs, quick)
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    marker = str(temporary)  # every trial folder, so every bubblewrap's command line
    env = {**os.environ, "TMPDIR": marker, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "arena", "--ledger", str(project.ledger_path)]
    argv += ["tests", "run", "--family", "code", "--rerun", "--workers", "4"]
    rng = random.Random(43)
    left: dict[int, list[int]] = {}
    for kill in range(count):
        run = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # From its start to well into its first trials, while sandboxes start.
        time.sleep(rng.uniform(0.3, 1.5))
        run.send_signal(signal.SIGKILL)
        run.wait()
        found = gone(marker, within=5)
        if found:
            left[kill] = found
            kill_all(found)
    assert left == {}, f"{len(left)} of {count} kills left processes behind: {left}"


@needs_bwrap
def test_a_killed_tests_run_leaves_no_sandbox_process(project, tmp_path):
    _kills(project, tmp_path, 16)


@needs_bwrap
@pytest.mark.slow
def test_a_hundred_killed_tests_runs_leave_no_sandbox_process(project, tmp_path):
    _kills(project, tmp_path, 100)


# Starts a sandbox whose bubblewrap dies setting it up (nobody reads its status), so the
# sandbox's first process waits for good; then dies by SIGKILL, watched or not.
STUCK = """
import os, signal, subprocess, sys, time
from pathlib import Path
from arena.trials import reaper, sandbox, view
from arena.trials.limits import Limits

folder = Path(sys.argv[1])

def stuck():
    read, write = os.pipe()
    os.close(read)
    argv = sandbox.bubblewrap().wrap(
        ("sleep", "60"), root=folder, view=view.system_view(), limits=Limits(), status_fd=write
    )
    subprocess.Popen(argv, pass_fds=(write,), start_new_session=True)
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)

if sys.argv[2] == "watched":
    with reaper.watching(folder):
        stuck()
stuck()
"""


@needs_bwrap
def test_the_watcher_kills_a_sandbox_its_killed_run_left_waiting(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for mode in ("unwatched", "watched"):
        folder = tmp_path / mode
        (folder / "repo").mkdir(parents=True)
        subprocess.run([sys.executable, "-c", STUCK, str(folder), mode], env=env, check=False)
        left = gone(str(folder), within=3)
        kill_all(left)
        # The control: unwatched, the sandbox's first process is still there, for good.
        assert bool(left) == (mode == "unwatched"), (mode, left)


def test_a_run_that_ends_lets_its_watcher_go_at_once(tmp_path):
    began = time.monotonic()
    with reaper.watching(tmp_path):
        pass
    assert time.monotonic() - began < 1


def test_a_run_that_fails_has_its_watcher_kill_what_names_its_folder(tmp_path):
    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", str(tmp_path)], start_new_session=True
    )
    with pytest.raises(KeyboardInterrupt):
        with reaper.watching(tmp_path):
            raise KeyboardInterrupt
    assert sleeper.wait(timeout=5) == -signal.SIGKILL
