"""One command under a time limit: killed with everything it started, its log kept as a
hash and a tail."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from arena.ledger import Ledger, trial_store
from arena.trials import run_trials, runner, sandbox
from arena.trials.limits import Limits
from tests.trials.conftest import BASE, FIXED, diff, needs_bwrap


def run(code: str, tmp_path: Path, limit: float = 20.0) -> runner.Finished:
    return runner.run_command(
        lambda status_fd, report_fd: [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PATH": os.defpath},
        limits=Limits(time_s=limit),
    )


def test_a_command_over_its_time_limit_is_killed_with_its_children(tmp_path):
    # The command starts a child that would outlive it, then hangs.
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(tmp_path / 'child')!r}, 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    began = time.monotonic()
    finished = run(code, tmp_path, limit=1.0)
    assert finished.timed_out and finished.returncode is None
    assert time.monotonic() - began < 10 and "started" in finished.log_tail
    child = int((tmp_path / "child").read_text())
    time.sleep(0.2)
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text()


def test_the_log_keeps_the_hash_of_the_whole_and_the_last_4_kb(tmp_path):
    code = "import sys\nfor i in range(5000): print(f'line {i}')\nsys.exit(4)\n"
    finished = run(code, tmp_path)
    whole = "".join(f"line {i}\n" for i in range(5000)).encode()
    assert finished.returncode == 4 and not finished.timed_out
    assert finished.log_hash == hashlib.sha256(whole).hexdigest()
    assert finished.log_tail.encode() == whole[-runner.LOG_TAIL_BYTES :]


def test_a_tail_never_starts_inside_a_character():
    data = ("é" * 3000).encode()
    assert runner.tail_text(data) == "é" * (runner.LOG_TAIL_BYTES // 2)


def test_a_program_that_cannot_start_says_so(tmp_path):
    finished = runner.run_command(
        lambda status_fd, report_fd: ["/no/such/program"],
        cwd=tmp_path,
        env={},
        limits=Limits(time_s=5),
    )
    assert finished.returncode is None and "could not start" in finished.problem


@needs_bwrap
def test_a_timeout_inside_bubblewrap_is_timed_out(project):
    hang = "import time\ntime.sleep(60)\n"
    project.load(
        [("add", "good", diff("calc.py", BASE, FIXED))],
        [project.task("add", hang, time_limit_s=1)],
    )
    began = time.monotonic()
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=sandbox.bubblewrap())
        (trial,) = trial_store.trials(ledger, "code")
    assert time.monotonic() - began < 15
    assert (trial.result, trial.reason, trial.exit_code) == ("timed_out", "time limit 1 s", None)
    assert 900 < trial.duration_ms < 10_000
    # --timeout replaces the task's own limit.
    with Ledger.open(project.ledger_path) as ledger:
        planned = run_trials.plan(ledger, "code", rerun="all")
        run_trials.run(ledger, planned, sandbox=sandbox.bubblewrap(), timeout_s=0.5)
        assert trial_store.trials(ledger, "code")[-1].reason == "time limit 0.5 s"


@needs_bwrap
def test_the_memory_limit_holds_inside_bubblewrap(project):
    greedy = "block = bytearray(400 * 1024 * 1024)\nprint('allocated')\n"
    project.load(
        [("add", "good", diff("calc.py", BASE, FIXED))],
        [project.task("add", greedy, memory_mb=200)],
    )
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=sandbox.bubblewrap())
        (trial,) = trial_store.trials(ledger, "code")
    assert trial.result == "failed" and "MemoryError" in trial.log_tail


def test_a_process_that_leaves_the_group_does_not_hold_the_run(tmp_path, monkeypatch):
    # With no sandbox, a daemon in a session of its own keeps the output open and outlives
    # the time limit's kill: the run ends anyway, with what was printed.
    monkeypatch.setattr(runner, "DRAIN_S", 0.5)
    code = (
        "import subprocess, sys\n"
        "daemon = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'],"
        " start_new_session=True)\n"
        f"open({str(tmp_path / 'daemon')!r}, 'w').write(str(daemon.pid))\n"
        "print('left a daemon', flush=True)\n"
    )
    began = time.monotonic()
    finished = run(code, tmp_path)
    os.kill(int((tmp_path / "daemon").read_text()), 9)
    assert finished.returncode == 0 and "left a daemon" in finished.log_tail
    assert time.monotonic() - began < 5


def test_the_wait_ends_with_the_command_not_at_a_poll():
    quick = subprocess.Popen([sys.executable, "-c", "pass"])
    started = time.monotonic()
    assert runner._exited_within(quick, 20.0)
    assert time.monotonic() - started < 10
    assert quick.wait() == 0
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    started = time.monotonic()
    assert not runner._exited_within(sleeper, 0.3)
    assert 0.3 <= time.monotonic() - started < 10
    sleeper.kill()
    sleeper.wait()


def test_a_command_ending_within_its_limit_is_not_timed_out(tmp_path):
    finished = run("print('ok')", tmp_path, limit=30.0)
    assert (finished.returncode, finished.timed_out, finished.log_tail) == (0, False, "ok\n")
    assert finished.duration_ms < 10_000
