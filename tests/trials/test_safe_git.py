"""git runs nothing of the task's repository on the host: a repository whose configuration
names an fsmonitor, hooks, clean/smudge filters, an external diff, a textconv driver, and
config files to include that name more, each a script that leaves a mark. With Arena's
git (safe_git), importing it and running the demo's 18 trials on it leaves no mark; with
the defence switched off (git pointed at the repository, as before), or with plain git,
every one of them leaves its mark."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena import family_state
from arena.cli.main import main
from arena.ledger import Ledger, catalog
from arena.trials import checkout, safe_git
from tests.conftest import REPO
from tests.trials.conftest import git, make_repo, needs_bwrap
from tests.trials.test_demo_trials import DESIGNED

FIXES = REPO / "resources" / "demo" / "fixes"
# Each vector's mark: the file its script writes.
VECTORS = ("fsmonitor", "hook", "filter", "diff", "textconv", "include", "includeif")
# The tree names the filters and the diff driver; only configuration says what they run.
ATTRIBUTES = "*.py filter=evil diff=tc\n*.md filter=inc\npocketbook/__init__.py filter=incif\n"


def _script(marks: Path, name: str) -> Path:
    """A program that leaves a mark named ``name`` and passes its input through."""
    path = marks.parent / "scripts" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "$*" >> {marks / name}\nexec cat\n')
    path.chmod(0o755)
    return path


def plant(repo: Path, marks: Path) -> None:
    """Every vector in the committed repository ``repo``: its config, hooks and includes."""
    marks.mkdir()
    run = {name: str(_script(marks, name)) for name in VECTORS}
    config = repo / ".git" / "config"
    include, include_if = repo.parent / "include.config", repo.parent / "includeif.config"
    include.write_text(f'[filter "inc"]\n\tsmudge = {run["include"]}\n')
    include_if.write_text(f'[filter "incif"]\n\tsmudge = {run["includeif"]}\n')
    config.write_text(
        config.read_text()
        + f"[core]\n\tfsmonitor = {run['fsmonitor']}\n"
        + f'[filter "evil"]\n\tsmudge = {run["filter"]}\n\tclean = {run["filter"]}\n'
        + f"[diff]\n\texternal = {run['diff']}\n"
        + f'[diff "tc"]\n\ttextconv = {run["textconv"]}\n'
        + f"[include]\n\tpath = {include}\n"
        + f'[includeIf "gitdir:/"]\n\tpath = {include_if}\n'
    )
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-index-change", "post-checkout", "pre-commit", "post-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {marks / 'hook'}\n")
        (hooks / hook).chmod(0o755)


def pocketbook_repo(folder: Path) -> Path:
    """The demo's tasks with pocketbook as a git repository (a .gitattributes added),
    every vector planted: the task file."""
    pack = folder / "pack"
    shutil.copytree(FIXES, pack, ignore=shutil.ignore_patterns("__pycache__"))
    repo = pack / "pocketbook"
    (repo / ".gitattributes").write_text(ATTRIBUTES)
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "base", cwd=repo)
    plant(repo, folder / "marks")
    tasks = pack / "tasks-git.toml"
    tasks.write_text(
        (pack / "tasks.toml")
        .read_text("utf-8")
        .replace('{ folder = "pocketbook" }', '{ git = "pocketbook", base_commit = "HEAD" }')
    )
    return tasks


def marks(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "marks").iterdir())


def defence_off(monkeypatch) -> None:
    """git as Arena ran it before: at the repository's own git folder, with the host's
    configuration and environment."""
    monkeypatch.setattr(safe_git, "OVERRIDES", ())
    monkeypatch.setattr(safe_git, "ENVIRONMENT", {})
    monkeypatch.setattr(
        safe_git, "borrowed", lambda git_dir, place, *, refs: {"GIT_DIR": str(git_dir)}
    )


def test_every_vector_runs_when_git_reads_the_repositorys_configuration(tmp_path, monkeypatch):
    tasks = pocketbook_repo(tmp_path)
    repo = tasks.parent / "pocketbook"
    defence_off(monkeypatch)
    git_dir, commit = checkout.resolve_commit(repo, "HEAD")
    (tmp_path / "checkout").mkdir()
    checkout.checkout_git(git_dir, commit, tmp_path / "checkout", tmp_path)
    assert marks(tmp_path) == ["filter", "fsmonitor", "hook", "include", "includeif"]
    # Arena runs no git command that diffs; plain git's diff runs the last two.
    (repo / "README.md").write_text("changed\n")
    subprocess.run(["git", "diff"], cwd=repo, capture_output=True, check=True)
    (repo / "pocketbook" / "money.py").write_text("changed = 1\n")
    subprocess.run(["git", "diff", "--no-ext-diff"], cwd=repo, capture_output=True, check=True)
    assert marks(tmp_path) == sorted(VECTORS)


def test_arenas_git_checks_out_the_tree_and_leaves_no_mark(tmp_path):
    tasks = pocketbook_repo(tmp_path)
    git_dir, commit = checkout.resolve_commit(tasks.parent / "pocketbook", "HEAD")
    dest = tmp_path / "checkout"
    dest.mkdir()
    checkout.checkout_git(git_dir, commit, dest, tmp_path)
    assert marks(tmp_path) == []
    shown = {p.relative_to(dest) for p in dest.rglob("*") if p.is_file()}
    shipped = {
        p.relative_to(FIXES / "pocketbook")
        for p in (FIXES / "pocketbook").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert shown == shipped | {Path(".gitattributes")}
    for name in shipped:
        assert (dest / name).read_bytes() == (FIXES / "pocketbook" / name).read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkout", "marks", "pack", "scripts"]


@needs_bwrap
def test_no_vector_leaves_a_mark_over_the_demos_18_trials(tmp_path):
    tasks = pocketbook_repo(tmp_path)
    ledger = str(tmp_path / "ledgers" / "fixes.sqlite")
    outputs = str(REPO / "resources" / "demo" / "fixes.jsonl")
    assert main(["--ledger", ledger, "import", outputs, "--family", "fixes", "--create"]) == 0
    assert main(["--ledger", ledger, "tasks", "import", str(tasks), "--family", "fixes"]) == 0
    assert main(["--ledger", ledger, "tests", "run", "--family", "fixes", "--workers", "2"]) == 0
    assert marks(tmp_path) == []
    with Ledger.open(Path(ledger), readonly=True) as opened:
        labels = {s.system_id: s.label for s in catalog.systems(opened, "fixes")}
        state = family_state.load(opened, "fixes")
        ran = {(o.case_id, labels[o.system_id]): o.test_result for o in state.in_force}
    assert ran == DESIGNED


def test_the_hosts_git_variables_reach_no_git_command(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    commit = make_repo(repo)
    clean = tmp_path / "clean"
    git("clone", "-q", "--no-checkout", str(repo), str(clean), cwd=tmp_path)
    plant(repo, tmp_path / "marks")
    script = tmp_path / "scripts" / "fsmonitor"
    # Configuration given in the environment: an fsmonitor and the planted hooks.
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(repo / ".git" / "hooks"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{script}'")
    dest = tmp_path / "checkout"
    dest.mkdir()
    checkout.checkout_git(repo / ".git", commit, dest, tmp_path)
    assert (dest / "calc.py").is_file() and marks(tmp_path) == []
    # The control: the same variables with plain git, on a clean clone, run both.
    index = {
        "GIT_DIR": str(clean / ".git"),
        "GIT_INDEX_FILE": str(tmp_path / "index"),
        "GIT_WORK_TREE": str(dest),
    }
    for step in (["read-tree", commit], ["checkout-index", "-a", "-f"]):
        subprocess.run(["git", *step], env={**os.environ, **index}, capture_output=True)
    assert marks(tmp_path) == ["fsmonitor", "hook"]


def test_a_worktree_a_bare_clone_and_their_refs_are_read_without_the_repository(tmp_path):
    main_repo = tmp_path / "main"
    first = make_repo(main_repo)
    git("tag", "v1", cwd=main_repo)
    (main_repo / "calc.py").write_text("changed = 1\n")
    git("commit", "-qam", "second", cwd=main_repo)
    second = git("rev-parse", "HEAD", cwd=main_repo)
    git("worktree", "add", "-q", str(tmp_path / "wt"), "v1", cwd=main_repo)
    git("clone", "-q", "--bare", str(main_repo), str(tmp_path / "bare.git"), cwd=tmp_path)
    git("pack-refs", "--all", cwd=tmp_path / "bare.git")
    assert checkout.resolve_commit(main_repo, "HEAD")[1] == second
    assert checkout.resolve_commit(main_repo / ".git", "v1") == (main_repo / ".git", first)
    assert checkout.resolve_commit(tmp_path / "wt", "HEAD")[1] == first
    assert checkout.resolve_commit(tmp_path / "bare.git", first[:8]) == (
        tmp_path / "bare.git",
        first,
    )
    assert checkout.resolve_commit(tmp_path / "bare.git", "v1")[1] == first
    with pytest.raises(ValueError, match="is not a commit"):
        checkout.resolve_commit(tmp_path / "wt", "no-such-branch")
    with pytest.raises(ValueError, match="is not a git repository"):
        checkout.resolve_commit(tmp_path, "HEAD")
    wt_git = safe_git.git_folder(tmp_path / "wt")
    dest = tmp_path / "checkout"
    dest.mkdir()
    checkout.checkout_git(wt_git, second, dest, tmp_path)
    assert (dest / "calc.py").read_text() == "changed = 1\n"


def test_a_sha256_repository_is_read(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    done = subprocess.run(
        ["git", "init", "-q", "--object-format=sha256"], cwd=repo, capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("this git cannot make SHA-256 repositories")
    (repo / "calc.py").write_text("x = 1\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "base", cwd=repo)
    git_dir, commit = checkout.resolve_commit(repo, "HEAD")
    assert len(commit) == 64
    dest = tmp_path / "checkout"
    dest.mkdir()
    checkout.checkout_git(git_dir, commit, dest, tmp_path)
    assert (dest / "calc.py").read_text() == "x = 1\n"
