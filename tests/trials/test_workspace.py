"""A trial's folder: a clean checkout that leaves the repository alone, the diff, the
hidden tests, and nothing written through a link the diff planted."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from arena.ledger import Ledger, trial_store
from arena.trials import checkout, run_trials, workspace
from arena.trials.sandbox import NONE
from tests.trials.conftest import BASE, FIXED, TEST_ADD, diff, git


def only_trial(project):
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=NONE)
        (trial,) = trial_store.trials(ledger, "code")
    return trial


def test_a_checkout_leaves_the_repository_as_it_was(project, tmp_path):
    (project.repo / "calc.py").write_text("uncommitted change\n")
    index = project.repo / ".git" / "index"
    before = (index.read_bytes(), git("status", "--porcelain", cwd=project.repo))
    git_dir, commit = checkout.resolve_commit(project.repo, "HEAD")
    dest = tmp_path / "out"
    dest.mkdir()
    checkout.checkout_git(git_dir, commit, dest, tmp_path)
    assert (dest / "calc.py").read_text() == BASE and not (dest / ".git").exists()
    assert (index.read_bytes(), git("status", "--porcelain", cwd=project.repo)) == before


def test_a_folder_archive_depends_only_on_its_files(project):
    first = checkout.folder_archive(project.repo)
    (project.repo / "calc.py").touch()
    assert checkout.folder_archive(project.repo) == first
    (project.repo / "calc.py").chmod(0o755)
    assert checkout.folder_archive(project.repo) != first


def test_a_folder_archive_leaves_out_byte_code_caches(project):
    first = checkout.folder_archive(project.repo)
    (project.repo / "__pycache__").mkdir()
    (project.repo / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\x00cached")
    assert checkout.folder_archive(project.repo) == first


def test_python_in_a_test_command_is_the_interpreter_running_arena(monkeypatch):
    argv = ("{python}", "-m", "unittest", "x{python}")
    assert workspace.resolved_command(argv) == (sys.executable, "-m", "unittest", "x{python}")
    assert workspace.resolved_command(("pytest", "-q")) == ("pytest", "-q")
    # A frozen build has no interpreter to lend: python3 on PATH, else the name (not found).
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(workspace.shutil, "which", lambda name: None)
    assert workspace.python_program() is None
    assert workspace.resolved_command(argv)[0] == "python3"


def test_a_python_placeholder_runs_with_arenas_interpreter(project):
    task = project.task("add", TEST_ADD, test_command=["{python}", "tests/test_add.py"])
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [task])
    trial = only_trial(project)
    assert (trial.result, trial.exit_code) == ("passed", 0), trial.log_tail


def test_an_empty_diff_is_a_failed_trial(project):
    project.load([("add", "lazy", "")], [project.task("add", TEST_ADD)])
    trial = only_trial(project)
    assert (trial.result, trial.reason, trial.exit_code) == ("failed", "empty_patch", None)


def test_an_empty_diff_fails_before_any_checkout(project):
    project.load([("add", "lazy", "")], [project.task("add", TEST_ADD)])
    shutil.rmtree(project.repo)  # the code cannot be had: no matter, nothing is checked out
    trial = only_trial(project)
    assert (trial.result, trial.reason) == ("failed", "empty_patch")


def test_no_hidden_test_is_written_through_a_link_the_diff_made(project):
    target = Path(tempfile.mkdtemp(prefix="arena-link-", dir="/var/tmp"))
    link = (
        "diff --git a/tests b/tests\n"
        "new file mode 120000\n"
        "--- /dev/null\n"
        "+++ b/tests\n"
        "@@ -0,0 +1 @@\n"
        f"+{target}\n"
        "\\ No newline at end of file\n"
    )
    try:
        project.load(
            [("add", "sly", diff("calc.py", BASE, FIXED) + link)], [project.task("add", TEST_ADD)]
        )
        trial = only_trial(project)
        assert (trial.result, trial.reason) == ("failed", "hidden_tests_blocked"), trial.log_tail
        assert list(target.iterdir()) == []
    finally:
        for leftover in target.iterdir():
            leftover.unlink()
        target.rmdir()
