"""The demo's tests family (resources/demo/fixes): `arena tests run` on its tasks gives, for
every output, what running the same hidden tests directly gives; those results are the
designed ones (resources/demo/README.md) and the ones shipped with the outputs; `arena
demo` runs them in the sandbox, or, without one, keeps the shipped results and says so."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from arena import family_state
from arena.cli.main import main
from arena.ledger import Ledger, catalog, trial_store
from arena.trials import sandbox
from tests.conftest import REPO
from tests.trials.conftest import needs_bwrap

DEMO = REPO / "resources" / "demo"
FIXES = DEMO / "fixes"
A, B, C = "aurora-7b", "basalt-13b", "cedar-70b"
P, F = "passed", "failed"
# What each system's patch was written to do: the table in resources/demo/README.md.
DESIGNED = {
    ("fix-01", A): P, ("fix-01", B): P, ("fix-01", C): P,
    ("fix-02", A): P, ("fix-02", B): F, ("fix-02", C): P,
    ("fix-03", A): F, ("fix-03", B): F, ("fix-03", C): P,
    ("fix-04", A): P, ("fix-04", B): P, ("fix-04", C): P,
    ("fix-05", A): F, ("fix-05", B): P, ("fix-05", C): P,
    ("fix-06", A): F, ("fix-06", B): F, ("fix-06", C): F,
}  # fmt: skip
# Two passing patches with different diffs: the pairs left for the rater.
PENDING = {
    ("fix-01", A, C), ("fix-01", B, C), ("fix-02", A, C),
    ("fix-04", A, B), ("fix-04", A, C), ("fix-04", B, C), ("fix-05", B, C),
}  # fmt: skip


def _tasks() -> dict[str, dict]:
    return {t["id"]: t for t in tomllib.loads((FIXES / "tasks.toml").read_text("utf-8"))["task"]}


def _records() -> list[dict]:
    return [json.loads(line) for line in (DEMO / "fixes.jsonl").read_text("utf-8").splitlines()]


def direct_run(task: dict, diff: str | None, folder: Path) -> str:
    """The task's hidden tests run on ``diff`` the plain way: the repository copied,
    ``git apply``, the hidden tests copied in, the command in a subprocess."""
    repo = folder / "repo"
    shutil.copytree(FIXES / "pocketbook", repo, ignore=shutil.ignore_patterns("__pycache__"))
    if diff is not None:
        (folder / "output.diff").write_text(diff, "utf-8")
        applied = subprocess.run(
            ["git", "apply", str(folder / "output.diff")],
            cwd=repo,
            capture_output=True,
            env={**os.environ, "GIT_CEILING_DIRECTORIES": str(folder)},
        )
        if applied.returncode != 0:
            return F
    for hidden in task["hidden_tests"]:
        shutil.copyfile(FIXES / hidden["file"], repo / hidden["to"])
    command = [sys.executable if arg == "{python}" else arg for arg in task["test_command"]]
    done = subprocess.run(command, cwd=repo, capture_output=True, timeout=task["time_limit_s"])
    return P if done.returncode == 0 else F


@pytest.fixture(scope="module")
def direct(tmp_path_factory) -> dict[tuple[str, str], str]:
    tasks = _tasks()
    found = {}
    for number, record in enumerate(_records()):
        key = (record["case"]["id"], record["system"]["label"])
        folder = tmp_path_factory.mktemp(f"direct{number}")
        found[key] = direct_run(tasks[key[0]], record["output"], folder)
    return found


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _results(ledger: Ledger) -> dict[tuple[str, str], str]:
    """The result in force of each output of the fixes family, by (case, system label)."""
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "fixes")}
    state = family_state.load(ledger, "fixes")
    return {(o.case_id, labels[o.system_id]): o.test_result for o in state.in_force}


def _pending(ledger: Ledger) -> set[tuple[str, str, str]]:
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "fixes")}
    settlement = family_state.load(ledger, "fixes").settlement
    return {
        (p.case_id, *sorted((labels[p.system_a], labels[p.system_b]))) for p in settlement.pending
    }


def test_the_tasks_are_real_bugs_in_a_repository_whose_own_tests_pass(tmp_path):
    tasks = _tasks()
    any_task = tasks["fix-01"]
    base = dict(any_task, hidden_tests=[])
    assert direct_run(base, None, tmp_path / "base") == P
    for case, task in tasks.items():
        assert direct_run(task, None, tmp_path / case) == F, f"{case}: its hidden test passes"


def test_the_hidden_tests_are_not_in_the_repository_the_systems_saw():
    repository = {p.name for p in (FIXES / "pocketbook").rglob("*") if p.is_file()}
    for task in _tasks().values():
        for hidden in task["hidden_tests"]:
            assert Path(hidden["file"]).name not in repository
            assert Path(hidden["to"]).name not in repository
            assert hidden["file"].startswith("hidden/")


def test_the_shipped_results_are_what_the_hidden_tests_give(direct):
    shipped = {(r["case"]["id"], r["system"]["label"]): r["test_result"] for r in _records()}
    assert shipped == DESIGNED
    assert direct == DESIGNED


def test_the_task_file_gives_the_cases_their_prompts():
    records = {r["case"]["id"]: r["case"] for r in _records()}
    for case, task in _tasks().items():
        assert (records[case]["prompt"], records[case]["category"]) == (
            task["prompt"],
            task["category"],
        )


@needs_bwrap
def test_arena_tests_run_on_the_demo_tasks_equals_a_direct_run(direct, tmp_path):
    ledger_path = str(tmp_path / "fixes.sqlite")
    code, _, err = _cli(
        "--ledger",
        ledger_path,
        "import",
        str(DEMO / "fixes.jsonl"),
        "--family",
        "fixes",
        "--create",
    )
    assert code == 0, err
    code, out, err = _cli(
        "--ledger", ledger_path, "tasks", "import", str(FIXES / "tasks.toml"), "--family", "fixes"
    )
    assert code == 0 and "6 tasks read" in out and "keep their own" not in err, out + err
    code, out, err = _cli(
        "--ledger", ledger_path, "tests", "run", "--family", "fixes", "--workers", "2", "--json"
    )
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["trials"], summary["passed"], summary["failed"]) == (18, 11, 7)
    with Ledger.open(Path(ledger_path), readonly=True) as ledger:
        labels = {s.system_id: s.label for s in catalog.systems(ledger, "fixes")}
        trials = trial_store.trials(ledger, "fixes")
        ran = {(t.case_id, labels[t.system_id]): t.result for t in trials}
        assert ran == direct
        assert {(t.source, t.sandbox.split()[0]) for t in trials} == {("sandbox", "bwrap")}
        reasons = {(t.case_id, labels[t.system_id]): t.reason for t in trials}
        assert reasons[("fix-03", A)] == "patch_did_not_apply"
        assert _pending(ledger) == PENDING


@needs_bwrap
def test_arena_demo_runs_the_hidden_tests_in_the_sandbox(tmp_path):
    path = tmp_path / "demo.sqlite"
    code, out, err = _cli("demo", "--no-gui", "--out", str(path))
    assert code == 0, err
    assert "fixes: 18 trials run in bwrap" in out and "11 passed, 7 did not" in out
    assert "WARNING" not in err
    assert err.count("[") >= 18, "a progress line per trial"
    with Ledger.open(path, readonly=True) as ledger:
        trials = trial_store.trials(ledger, "fixes")
        assert len(trials) == 18 and {t.source for t in trials} == {"sandbox"}
        assert _results(ledger) == DESIGNED
        assert _pending(ledger) == PENDING
        labels = {s.system_id: s.label for s in catalog.systems(ledger, "fixes")}
        settled = family_state.load(ledger, "fixes").settled
        rules = {
            (c.case_id, *sorted((labels[c.system_a], labels[c.system_b]))): c.rule for c in settled
        }
        assert rules[("fix-01", A, B)] == "identical_diffs"
        assert rules[("fix-06", A, C)] == "both_failed_tests"
        assert rules[("fix-03", A, C)] == "tests_separate"


def test_without_a_sandbox_the_demo_keeps_the_shipped_results_and_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "best", lambda platform=sys.platform: None)
    path = tmp_path / "demo.sqlite"
    code, out, err = _cli("demo", "--no-gui", "--out", str(path))
    assert code == 0, err
    assert err.startswith("arena: WARNING: the demo's hidden tests were NOT run: there is no ")
    assert "shipped with the demo" in err and "tests run --family fixes" in err
    assert "hidden tests NOT run here" in out
    with Ledger.open(path, readonly=True) as ledger:
        assert trial_store.trials(ledger, "fixes") == []
        assert len(trial_store.latest_tasks(ledger, "fixes")) == 6
        assert _results(ledger) == DESIGNED
        assert _pending(ledger) == PENDING
