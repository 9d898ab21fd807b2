"""Limits that hold: processes, disk (/tmp and /dev/shm together) and output end a trial as
resource_limit within their limits, and /dev is read-only (in bubblewrap; each control,
without a sandbox or with the defence switched off, shows it is the defence that stops
it); a killed run's folders are gone after the next run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.errors import NotAvailable
from arena.ledger import Ledger, trial_store
from arena.trials import run_trials, sandbox, trial_root, watch
from arena.trials.sandbox import NONE
from tests.trials.conftest import BASE, FIXED, HEADER, diff, needs_bwrap, needs_patch

REPO = Path(__file__).resolve().parents[2]
GOOD = [("add", "good", diff("calc.py", BASE, FIXED))]


def one_trial(project, chosen: sandbox.Sandbox, rerun: bool = False):
    return project.run(chosen, rerun=rerun)[-1]


# Forks 4 × the limit of children that sleep, then waits for them: a fork bomb that ends
# by itself (the control without a sandbox must not take the machine down).
BOMB = HEADER + (
    "import os, time\n"
    "children = []\n"
    "for _ in range(128):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        time.sleep(3); os._exit(0)\n"
    "    children.append(pid)\n"
    "for pid in children: os.waitpid(pid, 0)\n"
    "print('forked', len(children))\n"
)


@needs_bwrap
def test_a_fork_bomb_ends_as_resource_limit(project):
    project.load(GOOD, [project.task("add", BOMB, max_processes=32, time_limit_s=60)])
    began = time.monotonic()
    inside = one_trial(project, sandbox.bubblewrap())
    assert inside.result == "resource_limit", inside.log_tail
    assert inside.reason == "processes: 32 alive at once"
    assert time.monotonic() - began < 10 and inside.exit_code is None
    control = one_trial(project, NONE, rerun=True)
    assert control.result == "passed" and "forked 128" in control.log_tail


def filler(then: str) -> str:
    """Writes 64 MB into TMPDIR, a MB at a time; on a full disk, ``then``."""
    return HEADER + (
        "import os, time\n"
        "path = os.path.join(os.environ['TMPDIR'], 'filler')\n"
        "with open(path, 'wb') as out:\n"
        "    for _ in range(64):\n"
        "        try:\n"
        "            out.write(b'x' * (1 << 20)); out.flush()\n"
        "        except OSError as e:\n"
        f"            print('disk full:', e, flush=True); {then}\n"
        "os.unlink(path)\n"
        "print('wrote 64 MB')\n"
    )


@needs_bwrap
@pytest.mark.parametrize("then", ["raise", "time.sleep(60)"], ids=["fails", "hangs"])
def test_a_disk_filler_ends_as_resource_limit(project, then):
    project.load(GOOD, [project.task("add", filler(then), disk_mb=32, time_limit_s=30)])
    began = time.monotonic()
    inside = one_trial(project, sandbox.bubblewrap())
    assert inside.result == "resource_limit", inside.log_tail
    assert inside.reason == "disk: the trial's 32 MB are full"
    assert time.monotonic() - began < 15
    control = one_trial(project, NONE, rerun=True)
    assert control.result == "passed" and "wrote 64 MB" in control.log_tail


# Writes 64 MB into /dev/shm, a MB at a time, saying how many it wrote.
SHM_FILLER = HEADER + (
    "written = 0\n"
    "try:\n"
    "    with open('/dev/shm/filler', 'wb') as out:\n"
    "        for _ in range(64):\n"
    "            out.write(b'x' * (1 << 20)); out.flush(); written += 1\n"
    "finally:\n"
    "    print('wrote', written, 'MB to /dev/shm', flush=True)\n"
)


def without_dev_defence(monkeypatch) -> None:
    """bubblewrap's /dev as it was: writable, /dev/shm a folder of its unbounded tmpfs,
    /tmp alone counted against disk_mb."""
    monkeypatch.setattr(watch, "DISKS", ("/tmp",))
    wrap = sandbox.Sandbox.wrap

    def old_wrap(self, *args, **kwargs):
        argv = wrap(self, *args, **kwargs)
        shm = argv.index("/dev/shm")
        assert argv[shm - 3 : shm + 3][::2] == ["--size", "--tmpfs", "--remount-ro"]
        return argv[: shm - 3] + argv[shm + 3 :]

    monkeypatch.setattr(sandbox.Sandbox, "wrap", old_wrap)


@needs_bwrap
def test_dev_shm_holds_no_more_than_disk_mb(project, monkeypatch):
    project.load(GOOD, [project.task("add", SHM_FILLER, disk_mb=16, time_limit_s=30)])
    inside = one_trial(project, sandbox.bubblewrap())
    assert (inside.result, inside.reason) == ("resource_limit", "disk: the trial's 16 MB are full")
    written = int(inside.log_tail.split("wrote ")[1].split()[0])
    assert written <= 16, inside.log_tail
    # The control: with /dev/shm on bubblewrap's own /dev, all 64 MB go in.
    without_dev_defence(monkeypatch)
    control = one_trial(project, sandbox.bubblewrap(), rerun=True)
    assert control.result == "passed" and "wrote 64 MB to /dev/shm" in control.log_tail


@needs_bwrap
def test_dev_shm_and_tmp_count_against_one_disk_mb(project, monkeypatch):
    # 10 MB in each: either alone fits in 16 MB, both together do not.
    both = HEADER + (
        "import os, time\n"
        "for folder in (os.environ['TMPDIR'], '/dev/shm'):\n"
        "    with open(os.path.join(folder, 'ten'), 'wb') as out: out.write(b'x' * (10 << 20))\n"
        "print('wrote 20 MB', flush=True)\n"
        "time.sleep(3)\n"
    )
    project.load(GOOD, [project.task("add", both, disk_mb=16, time_limit_s=30)])
    inside = one_trial(project, sandbox.bubblewrap())
    assert (inside.result, inside.reason) == ("resource_limit", "disk: the trial's 16 MB are full")
    # The control: counting /tmp alone, as before, lets it pass.
    monkeypatch.setattr(watch, "DISKS", ("/tmp",))
    control = one_trial(project, sandbox.bubblewrap(), rerun=True)
    assert control.result == "passed", control.log_tail


@needs_bwrap
def test_dev_is_read_only(project, monkeypatch):
    planter = HEADER + (
        "import os\n"
        "for make in (lambda: open('/dev/planted', 'w'), lambda: os.mkdir('/dev/folder')):\n"
        "    try:\n"
        "        make(); print('made', flush=True)\n"
        "    except OSError as e:\n"
        "        print('refused', e.strerror, flush=True)\n"
        "open('/dev/null', 'w').write('still a device')\n"
    )
    project.load(GOOD, [project.task("add", planter)])
    inside = one_trial(project, sandbox.bubblewrap())
    assert inside.result == "passed", inside.log_tail
    assert inside.log_tail.count("refused Read-only file system") == 2, inside.log_tail
    without_dev_defence(monkeypatch)
    control = one_trial(project, sandbox.bubblewrap(), rerun=True)
    assert control.log_tail.count("made") == 2, control.log_tail


PRINTER = HEADER + (
    "import sys\nline = b'y' * 1023 + b'\\n'\n"
    "for _ in range(1 << 20): sys.stdout.buffer.write(line)\n"  # 1 GB
)


@needs_bwrap
@pytest.mark.parametrize("chosen", ["bwrap", "none"])
def test_a_1_gb_printer_ends_as_resource_limit(project, chosen):
    project.load(GOOD, [project.task("add", PRINTER, log_mb=4, time_limit_s=60)])
    began = time.monotonic()
    trial = one_trial(project, sandbox.bubblewrap() if chosen == "bwrap" else NONE)
    assert (trial.result, trial.reason) == ("resource_limit", "output: more than 4 MB printed")
    assert time.monotonic() - began < 15 and len(trial.log_tail.encode()) <= 4096


def _arena(ledger: Path, *argv: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "--ledger", str(ledger), *argv],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@needs_bwrap
def test_a_killed_runs_folders_are_gone_after_the_next_run(project, tmp_path):
    hang = HEADER + "import time\nprint('hanging', flush=True)\ntime.sleep(120)\n"
    project.load(GOOD, [project.task("add", hang, time_limit_s=120)])
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(REPO)}
    base = temporary / f"arena-trials-{os.getuid()}"
    killed = _arena(project.ledger_path, "tests", "run", "--family", "code", env=env)
    deadline = time.monotonic() + 30
    while not list(base.glob("run-*/trial-*/repo")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    killed.send_signal(signal.SIGKILL)
    killed.communicate()
    left = [p for p in base.iterdir() if p.is_dir()]
    assert len(left) == 1 and list(left[0].glob("trial-*/repo/calc.py"))
    again = _arena(
        project.ledger_path, "tests", "run", "--family", "code", "--timeout", "1", env=env
    )
    _, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    assert "removed 1 trial folder left by an earlier run that was killed" in err
    assert list(base.iterdir()) == []


def test_a_live_runs_folder_is_left_alone(tmp_path):
    with trial_root.run_folder(tmp_path) as live:
        (live / "trial-x").mkdir()
        dead = tmp_path / "run-dead"
        (dead / "trial-y").mkdir(parents=True)
        (tmp_path / "run-dead.lock").write_text("")
        removed = trial_root.remove_leftovers(tmp_path)
        assert removed.folders == 1 and not dead.exists() and (live / "trial-x").is_dir()
    assert list(tmp_path.iterdir()) == []


def test_someone_elses_trial_root_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    (tmp_path / f"arena-trials-{os.getuid()}").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(NotAvailable, match="is not a folder of yours"):
        trial_root.base()


def test_a_weak_sandbox_runs_only_when_asked(monkeypatch):
    weak = sandbox.Sandbox("unshare", "unshare 2.38 (weak: …)", "/usr/bin/unshare")
    monkeypatch.setattr(sandbox, "best", lambda: weak)
    with pytest.raises(NotAvailable, match="--weak-sandbox"):
        sandbox.choose()
    chosen = sandbox.choose(weak_sandbox=True)
    assert chosen is weak and chosen.source == "weak_sandbox"
    assert sandbox.choose(no_sandbox=True) is NONE


@needs_bwrap
@needs_patch
def test_a_diff_git_apply_refuses_is_applied_with_fuzz(project):
    # The diff's context names mul as it was in an older calc.py: git apply wants every
    # context line, patch --fuzz lets them go as SWE-bench's harness does.
    older = BASE.replace("def mul(a, b):", "def multiply(a, b):")
    fuzzy = diff("calc.py", older, older.replace("a - b", "a + b"))
    test = HEADER + "assert calc.add(2, 3) == 5\n"
    project.load([("add", "fuzzy", fuzzy), *GOOD], [project.task("add", test)])
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=sandbox.bubblewrap())
        found = {t.applied_with for t in trial_store.trials(ledger, "code")}
        trials = trial_store.trials(ledger, "code")
    assert found == {"git-apply", "patch-fuzz"}
    assert all(t.result == "passed" for t in trials), [t.log_tail for t in trials]


@needs_bwrap
@needs_patch
def test_a_diff_neither_applies_is_failed_with_both_refusals(project):
    removes_a_line_not_there = diff("calc.py", BASE.replace("a - b", "a // b"), FIXED)
    project.load([("add", "sloppy", removes_a_line_not_there)], [project.task("add", "pass\n")])
    trial = one_trial(project, sandbox.bubblewrap())
    assert (trial.result, trial.reason, trial.applied_with) == (
        "failed",
        "patch_did_not_apply",
        None,
    )
    assert "git apply:" in trial.log_tail and "patch --fuzz:" in trial.log_tail


def test_arena_tests_run_refuses_a_weak_sandbox_unless_asked(project, monkeypatch, capsys):
    from arena.cli.main import main as arena_main

    weak = sandbox.Sandbox("unshare", "unshare 2.38 (weak: …)", "/usr/bin/unshare")
    monkeypatch.setattr(sandbox, "best", lambda: weak)
    project.load(GOOD, [project.task("add", "pass\n")])
    argv = ["--ledger", str(project.ledger_path), "tests", "run", "--family", "code"]
    assert arena_main(argv) == 3
    assert "--weak-sandbox" in capsys.readouterr().err
    with Ledger.open(project.ledger_path, readonly=True) as ledger:
        assert trial_store.trials(ledger, "code") == []
