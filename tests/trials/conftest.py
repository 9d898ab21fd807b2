"""A small project to run hidden tests on: a git repository with a buggy ``calc.py``,
hidden tests for it, and diffs from a few systems, imported into a tests family."""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.ledger import Ledger
from arena.records import Trial
from arena.trials.sandbox import Sandbox

PYTHON = sys.executable
BASE = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = BASE.replace("a - b", "a + b")
WRONG = BASE.replace("a - b", "b - a")
# Hidden tests: plain scripts (exit 0 = passed) that import the checkout's calc.py.
HEADER = "import sys\nsys.path.insert(0, '.')\nimport calc\n"
TEST_ADD = HEADER + "assert calc.add(2, 3) == 5, calc.add(2, 3)\nprint('add ok')\n"
TEST_MUL = HEADER + "assert calc.mul(2, 3) == 6\nprint('mul ok')\n"

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (CI installs it)"
)
needs_patch = pytest.mark.skipif(
    shutil.which("patch") is None, reason="patch is not installed (CI installs it)"
)


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Arena Tests", "-c", "user.email=tests@arena.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def make_repo(folder: Path, files: dict[str, str] | None = None) -> str:
    """A git repository holding ``files`` (default: calc.py); its commit id."""
    folder.mkdir(parents=True)
    git("init", "-q", cwd=folder)
    for name, text in (files or {"calc.py": BASE}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    git("add", "-A", cwd=folder)
    git("commit", "-qm", "base", cwd=folder)
    return git("rev-parse", "HEAD", cwd=folder)


def diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}")
    )


@dataclass
class Project:
    root: Path
    repo: Path
    commit: str
    ledger_path: Path

    def hidden(self, name: str, text: str) -> str:
        (self.root / "hidden").mkdir(exist_ok=True)
        (self.root / "hidden" / name).write_text(text)
        return f"hidden/{name}"

    def task(self, case: str, test: str, **extra: object) -> dict[str, object]:
        """A task record (JSON Lines) for ``case`` whose hidden test is ``test``'s text."""
        name = f"test_{case}.py"
        return {
            "id": case,
            "prompt": f"Fix {case}.",
            "repository": {"git": "repo", "base_commit": self.commit},
            "hidden_tests": [{"file": self.hidden(name, test), "to": f"tests/{name}"}],
            "test_command": [PYTHON, f"tests/{name}"],
            "time_limit_s": 20,
            "environment": "this test run's Python",
            **extra,
        }

    def write_tasks(self, tasks: list[dict[str, object]], name: str = "tasks.jsonl") -> Path:
        path = self.root / name
        path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
        return path

    def write_outputs(
        self, outputs: list[tuple[str, str, str]], family: str = "code", sample: int = 0
    ) -> Path:
        """(case, system label, diff) records in the native format."""
        path = self.root / "outputs.jsonl"
        with path.open("w") as out:
            for case, label, text in outputs:
                record = {
                    "family": {"name": family, "kind": "tests"},
                    "case": {"id": case, "prompt": f"Fix {case}."},
                    "system": {"label": label, "model": f"test/{label}"},
                    "output": text,
                    "is_diff": True,
                    "sample": sample,
                }
                out.write(json.dumps(record) + "\n")
        return path

    def run(self, chosen: Sandbox, *, rerun: bool = False) -> list[Trial]:
        """Run the family's trials in ``chosen`` (all again with ``rerun``): this run's."""
        from arena.ledger import trial_store
        from arena.trials import run_trials

        with Ledger.open(self.ledger_path) as ledger:
            planned = run_trials.plan(ledger, "code", rerun="all" if rerun else None)
            run_trials.run(ledger, planned, sandbox=chosen)
            return trial_store.trials(ledger, "code")[
                len(trial_store.trials(ledger, "code")) - len(planned.jobs) :
            ]

    def load(self, outputs: list[tuple[str, str, str]], tasks: list[dict[str, object]]) -> None:
        """Import the outputs, then the tasks, into the family ``code``."""
        from arena.intake.outputs import import_file
        from arena.trials.task_import import import_tasks

        with Ledger.open(self.ledger_path) as ledger:
            import_file(ledger, self.write_outputs(outputs), family="code", fmt="native")
            import_tasks(ledger, self.write_tasks(tasks), family="code")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    commit = make_repo(root / "repo")
    # The ledger in a folder of its own: a task may name nothing inside the ledger's folder.
    return Project(root, root / "repo", commit, tmp_path / "ledgers" / "ledger.sqlite")


@pytest.fixture
def standard_outputs() -> list[tuple[str, str, str]]:
    """Three systems on two cases: one fixes add, one gets it wrong, one sends a diff that
    does not apply; everyone leaves mul (already right) alone with a comment."""
    unapplied = diff("calc.py", BASE.replace("a - b", "a // b"), FIXED)
    touch_mul = diff("calc.py", BASE, BASE.replace("def mul", "# multiply\ndef mul"))
    return [
        ("add", "good", diff("calc.py", BASE, FIXED)),
        ("add", "wrong", diff("calc.py", BASE, WRONG)),
        ("add", "sloppy", unapplied),
        ("mul", "good", touch_mul),
        ("mul", "wrong", diff("calc.py", BASE, BASE.replace("a * b", "a ** b"))),
        ("mul", "sloppy", touch_mul),
    ]
