"""A run's trials share their task's code: checked out once, each trial's checkout made of
hard links to it, no trial's diff or hidden tests reaching another's, and the shared
checkout gone once the last trial that needs it has its own."""

from __future__ import annotations

import os
from pathlib import Path

from arena.ledger import Ledger, trial_store
from arena.ledger.file_store import FileStore
from arena.tasks import Task
from arena.trials import checkout, run_trials, safe_git
from arena.trials.sandbox import NONE
from arena.trials.shared_code import SharedCode
from tests.trials.conftest import BASE, FIXED, TEST_ADD, WRONG, diff, needs_patch


def git_task(project) -> Task:
    git_dir, commit = checkout.resolve_commit(project.repo, "HEAD")
    return Task(
        family="code",
        case_id="add",
        repo={"kind": "git", "path": str(git_dir), "base_commit": commit},
        hidden_tests={},
        test_command=("true",),
        time_limit_s=20,
    )


def trial_folder(tmp_path: Path, name: str) -> tuple[Path, Path]:
    root = tmp_path / name
    (root / "repo").mkdir(parents=True)
    return root, root / "repo"


def test_trials_of_one_commit_share_one_checkout_removed_after_the_last(project, tmp_path):
    task = git_task(project)
    shared = SharedCode(tmp_path / "code", FileStore(tmp_path / "files"), [task] * 3)
    repos = []
    for name in ("a", "b", "c"):
        root, repo = trial_folder(tmp_path, name)
        assert shared.fill(task, repo, root) is True
        repos.append(repo)
        code = [p.name for p in (tmp_path / "code").iterdir() if p.name.startswith("code-")]
        assert code == ([] if name == "c" else ["code-1"])
    first, second, _ = repos
    assert os.stat(first / "calc.py").st_ino == os.stat(second / "calc.py").st_ino
    # A diff applied in one trial's checkout changes no other's.
    (first.parent / "output.diff").write_text(diff("calc.py", BASE, FIXED))
    applied = safe_git.run(["apply", str(first.parent / "output.diff")], cwd=first)
    assert applied.returncode == 0, applied.stderr
    assert (first / "calc.py").read_text() == FIXED
    assert (second / "calc.py").read_text() == BASE == (repos[2] / "calc.py").read_text()
    # Only the git folder Arena borrowed (made once for the run) is left.
    assert [p.name for p in (tmp_path / "code").iterdir()] == [f"{checkout.BORROWED}-1"]


def test_code_one_trial_needs_is_checked_out_in_its_folder(project, tmp_path):
    task = git_task(project)
    shared = SharedCode(tmp_path / "code", FileStore(tmp_path / "files"), [task])
    root, repo = trial_folder(tmp_path, "only")
    assert shared.fill(task, repo, root) is False
    assert (repo / "calc.py").read_text() == BASE
    assert os.stat(repo / "calc.py").st_nlink == 1
    assert not [p for p in (tmp_path / "code").iterdir() if p.name.startswith("code-")]


def test_a_linked_tree_keeps_links_as_links_and_folders_its_own(tmp_path):
    source = tmp_path / "source"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("x = 1\n")
    (source / "run.sh").write_text("#!/bin/sh\n")
    (source / "run.sh").chmod(0o755)
    (source / "outside").symlink_to("/etc/passwd")
    (source / "alias").symlink_to("pkg")
    dest = tmp_path / "dest"
    dest.mkdir()
    checkout.link_tree(source, dest)
    assert os.readlink(dest / "outside") == "/etc/passwd"
    assert os.readlink(dest / "alias") == "pkg"
    assert os.stat(dest / "pkg").st_ino != os.stat(source / "pkg").st_ino
    assert os.stat(dest / "pkg" / "mod.py").st_ino == os.stat(source / "pkg" / "mod.py").st_ino
    assert os.access(dest / "run.sh", os.X_OK)


def test_own_files_leaves_no_file_shared(tmp_path):
    source, dest = tmp_path / "source", tmp_path / "dest"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("x = 1\n")
    (source / "pkg" / "mod.py").chmod(0o751)
    dest.mkdir()
    checkout.link_tree(source, dest)
    checkout.own_files(dest)
    mod = dest / "pkg" / "mod.py"
    assert os.stat(mod).st_nlink == 1 and os.stat(source / "pkg" / "mod.py").st_nlink == 1
    assert mod.read_text() == "x = 1\n" and (os.stat(mod).st_mode & 0o777) == 0o751
    mod.write_text("changed\n")
    assert (source / "pkg" / "mod.py").read_text() == "x = 1\n"


def run_all(project, workers: int = 2) -> list:
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=NONE, workers=workers)
        return trial_store.trials(ledger, "code")


def test_trials_sharing_code_get_their_own_results(project):
    good, wrong = diff("calc.py", BASE, FIXED), diff("calc.py", BASE, WRONG)
    outputs = [("add", "good", good), ("add", "wrong", wrong), ("add", "again", good)]
    project.load(outputs + [("add", "none", "")], [project.task("add", TEST_ADD)])
    results = sorted((t.result, t.reason) for t in run_all(project))
    assert results == [
        ("failed", "empty_patch"),
        ("failed", "tests_failed"),
        ("passed", ""),
        ("passed", ""),
    ]
    assert (project.repo / "calc.py").read_text() == BASE


@needs_patch
def test_a_fuzzy_patch_on_shared_code_changes_no_later_trial(project):
    # Its first line of context is off: git apply refuses the diff, patch --fuzz takes it.
    fuzzy = diff("calc.py", BASE, FIXED).replace(" def add(a, b):\n", " def add(a, b):  #\n")
    # Run after it, on the same shared code: it applies only to the code as checked out.
    outputs = [("add", "fuzzy", fuzzy), ("add", "wrong", diff("calc.py", BASE, WRONG))]
    project.load(outputs, [project.task("add", TEST_ADD)])
    trials = run_all(project, workers=1)
    assert sorted((t.applied_with, t.result) for t in trials) == [
        ("git-apply", "failed"),
        ("patch-fuzz", "passed"),
    ], [t.log_tail for t in trials]
    assert (project.repo / "calc.py").read_text() == BASE
