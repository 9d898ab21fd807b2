"""`arena tests run` end to end: trials as a direct run would have them, recorded once,
resumable after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import family_state
from arena.ledger import Ledger, catalog, trial_store
from arena.trials import run_trials
from arena.trials.sandbox import NONE, choose
from tests.trials.conftest import BASE, FIXED, TEST_ADD, TEST_MUL, diff, git, needs_bwrap

REPO = Path(__file__).resolve().parents[2]


def run_all(ledger_path: Path, **options: object) -> run_trials.RunSummary:
    sandbox = options.pop("sandbox", None) or choose()
    with Ledger.open(ledger_path) as ledger:
        planned = run_trials.plan(ledger, "code", rerun=options.pop("rerun", None))
        return run_trials.run(ledger, planned, sandbox=sandbox, **options)  # type: ignore[arg-type]


def trials(ledger_path: Path) -> list:
    with Ledger.open(ledger_path, readonly=True) as ledger:
        return trial_store.trials(ledger, "code")


def direct_run(project, case: str, label: str, text: str, test: str, scratch: Path) -> str:
    """The same check without Arena: a clone at the base commit, `git apply`, the hidden
    test copied in, its command run in a plain subprocess."""
    folder = scratch / f"{case}-{label}"
    subprocess.run(["git", "clone", "-q", str(project.repo), str(folder)], check=True)
    git("checkout", "-q", project.commit, cwd=folder)
    (scratch / "p.diff").write_text(text)
    applied = subprocess.run(
        ["git", "apply", str(scratch / "p.diff")], cwd=folder, capture_output=True
    )
    if applied.returncode:
        return "failed"
    (folder / "tests").mkdir(exist_ok=True)
    (folder / "tests" / f"test_{case}.py").write_text(test)
    done = subprocess.run(
        [sys.executable, f"tests/test_{case}.py"], cwd=folder, capture_output=True
    )
    return "passed" if done.returncode == 0 else "failed"


@needs_bwrap
def test_trials_equal_a_direct_run_of_the_same_tests(project, standard_outputs, tmp_path):
    tests = {"add": TEST_ADD, "mul": TEST_MUL}
    project.load(standard_outputs, [project.task(c, t) for c, t in tests.items()])
    summary = run_all(project.ledger_path, workers=2)
    assert summary.trials == 6 and summary.sandbox.startswith("bwrap")
    with Ledger.open(project.ledger_path, readonly=True) as ledger:
        state = family_state.load(ledger, "code")
        labels = {s.system_id: s.label for s in catalog.systems(ledger, "code")}
        found = {(o.case_id, labels[o.system_id]): o.test_result for o in state.in_force}
    expected = {
        (case, label): direct_run(project, case, label, text, tests[case], tmp_path / "direct")
        for case, label, text in standard_outputs
    }
    assert found == expected
    assert expected[("add", "good")] == "passed" and expected[("add", "wrong")] == "failed"
    recorded = trials(project.ledger_path)
    assert {t.source for t in recorded} == {"sandbox"}
    assert all(t.log_hash and t.task_hash for t in recorded)
    # Every trial sees its folder at the same path, so the same run logs the same bytes.
    run_all(project.ledger_path, workers=2, rerun="all")
    again = trials(project.ledger_path)[6:]
    assert {(t.output_id, t.log_hash) for t in again} == {
        (t.output_id, t.log_hash) for t in recorded
    }


@needs_bwrap
def test_a_diff_that_does_not_apply_is_a_failed_trial_with_no_test_run(project):
    wrong_base = diff("calc.py", BASE.replace("a - b", "a // b"), FIXED)
    project.load([("add", "sloppy", wrong_base)], [project.task("add", TEST_ADD)])
    run_all(project.ledger_path)
    (trial,) = trials(project.ledger_path)
    assert (trial.result, trial.reason) == ("failed", "patch_did_not_apply")
    assert trial.exit_code is None and trial.duration_ms is None
    assert "patch does not apply" in trial.log_tail


def test_no_sandbox_records_it_on_every_trial(project, standard_outputs):
    project.load(standard_outputs[:2], [project.task("add", TEST_ADD)])
    run_all(project.ledger_path, sandbox=NONE)
    recorded = trials(project.ledger_path)
    assert {(t.source, t.sandbox) for t in recorded} == {("no_sandbox", "none")}
    assert sorted(t.result for t in recorded) == ["failed", "passed"]


def test_a_run_skips_what_has_a_trial_and_rerun_makes_the_newest_in_force(project):
    project.load(
        [("add", "good", diff("calc.py", BASE, FIXED))],
        [project.task("add", "raise SystemExit(3)\n")],
    )
    first = run_all(project.ledger_path, sandbox=NONE)
    again = run_all(project.ledger_path, sandbox=NONE)
    assert (first.trials, again.trials, again.already_tried) == (1, 0, 1)
    # The task's hidden test is fixed: a changed task is run again without being asked.
    with Ledger.open(project.ledger_path) as ledger:
        from arena.trials.task_import import import_tasks

        import_tasks(ledger, project.write_tasks([project.task("add", TEST_ADD)]), family="code")
    assert run_all(project.ledger_path, sandbox=NONE).trials == 1
    assert run_all(project.ledger_path, sandbox=NONE, rerun="errored").trials == 0
    assert run_all(project.ledger_path, sandbox=NONE, rerun="all").trials == 1
    results = [t.result for t in trials(project.ledger_path)]
    assert results == ["failed", "passed", "passed"]
    with Ledger.open(project.ledger_path, readonly=True) as ledger:
        (output,) = family_state.load(ledger, "code").in_force
    assert output.test_result == "passed"


def test_a_command_that_cannot_start_is_an_errored_trial(project):
    task = project.task("add", TEST_ADD, test_command=["/no/such/python", "t.py"])
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [task])
    run_all(project.ledger_path, sandbox=NONE)
    (trial,) = trials(project.ledger_path)
    assert trial.result == "errored" and trial.reason.startswith("command_not_found")


def _arena(ledger: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "arena", "--ledger", str(ledger), *args]


@needs_bwrap
def test_a_kill_in_the_middle_loses_nothing_and_repeats_nothing(project):
    slow = "import time\ntime.sleep(0.4)\n" + TEST_ADD
    outputs = [
        ("add", f"system{i}", diff("calc.py", BASE, FIXED if i % 2 else BASE.replace("a - b", "0")))
        for i in range(8)
    ]
    project.load(outputs, [project.task("add", slow)])
    # The killed run leaves the folder of its trial in flight: in the test's own folder.
    scratch = project.root / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(scratch)}
    process = subprocess.Popen(
        _arena(project.ledger_path, "tests", "run", "--family", "code", "--workers", "1"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
        if (
            Path(str(project.ledger_path) + "-wal").exists()
            and len(trials(project.ledger_path)) >= 3
        ):
            break
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    before = trials(project.ledger_path)
    assert 3 <= len(before) < 8, "the run was not killed in the middle"
    done = subprocess.run(
        _arena(project.ledger_path, "tests", "run", "--family", "code", "--json"),
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    after = trials(project.ledger_path)
    per_output = {}
    for trial in after:
        per_output[trial.output_id] = per_output.get(trial.output_id, 0) + 1
    assert len(per_output) == 8 and set(per_output.values()) == {1}
    assert {t.trial_id for t in before} <= {t.trial_id for t in after}
    assert len(after) - len(before) == 8 - len(before)
    assert sorted(t.result for t in after) == ["failed"] * 4 + ["passed"] * 4


def test_without_a_sandbox_the_run_is_refused_unless_asked(project, monkeypatch, capsys):
    from arena.cli.main import main
    from arena.trials import sandbox

    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [project.task("add", TEST_ADD)])
    monkeypatch.setattr(sandbox, "best", lambda: None)
    ledger = str(project.ledger_path)
    assert main(["--ledger", ledger, "tests", "run", "--family", "code"]) == 3
    assert "no sandbox" in capsys.readouterr().err and trials(project.ledger_path) == []
    assert main(["--ledger", ledger, "tests", "run", "--family", "code", "--no-sandbox"]) == 0
    assert "WARNING: --no-sandbox" in capsys.readouterr().err
    assert [t.source for t in trials(project.ledger_path)] == ["no_sandbox"]


def test_ctrl_c_kills_the_commands_in_flight_and_records_nothing_more(project):
    hang = "import time\ntime.sleep(60)\n"
    unapplied = diff("calc.py", BASE.replace("a - b", "a // b"), FIXED)
    outputs = [("add", "sloppy", unapplied)] + [
        ("add", f"slow{i}", diff("calc.py", BASE, FIXED)) for i in range(3)
    ]
    project.load(outputs, [project.task("add", hang, time_limit_s=60)])

    def interrupt(trial, job):
        raise KeyboardInterrupt

    began = time.monotonic()
    with Ledger.open(project.ledger_path) as ledger:
        planned = run_trials.plan(ledger, "code")
        with pytest.raises(KeyboardInterrupt):
            run_trials.run(ledger, planned, sandbox=NONE, workers=2, on_trial=interrupt)
    assert time.monotonic() - began < 15
    assert [t.reason for t in trials(project.ledger_path)] == ["patch_did_not_apply"]
