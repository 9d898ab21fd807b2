"""A trial's folder: a clean checkout of the task's code, the output's diff applied, the
hidden tests added. The test command then runs in ``repo/`` and may write only here.

Layout: ``root/repo`` (the checkout, where the command starts), ``root/tmp`` (its
TMPDIR), ``root/home`` (its HOME) and ``root/output.diff``.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.ledger.file_store import FileStore
from arena.records import AppliedWith
from arena.tasks import Task
from arena.trials import checkout, safe_git, view
from arena.trials.shared_code import SharedCode

# An argument of a test command that is exactly this stands for python_program().
PYTHON_PLACEHOLDER = "{python}"
PATCH_DID_NOT_APPLY = "patch_did_not_apply"
PATCH_FILE = "output.diff"
# SWE-bench's fallback after a strict `git apply`: patch with up to 5 lines of fuzz. It
# runs in the sandbox (patch reads an untrusted diff), in the checkout.
FUZZY_PATCH = ("patch", "--batch", "--fuzz=5", "-p1", "--no-backup-if-mismatch", "-i")
EMPTY_PATCH = "empty_patch"
HIDDEN_TESTS_BLOCKED = "hidden_tests_blocked"


# Tries ``patch --fuzz`` in a trial folder: (applied, its log).
Fuzzy = Callable[[Path], tuple[bool, str]]


@dataclass(frozen=True)
class Refused:
    """The output could not be put in place: a failed trial, with no test run."""

    reason: str
    log: str


def prepare(
    task: Task,
    diff: str,
    store: FileStore,
    root: Path,
    *,
    fuzzy: Fuzzy,
    shared: SharedCode | None = None,
) -> Refused | AppliedWith:
    """Fill ``root`` for one trial: how the output's diff was applied, or a Refused when
    the diff is the problem. A diff ``git apply`` refuses goes to ``fuzzy`` (``patch
    --fuzz``, run in the sandbox), as SWE-bench's harness does. With ``shared``, the
    task's code comes from the run's shared checkouts (hard links to them).

    Raises ``checkout.CheckoutFailed`` (or the file store's LedgerError) when the task's
    code or hidden tests cannot be had: the harness's problem, not the output's.
    """
    # An empty diff fails whatever the code: no checkout for it.
    if not diff.strip():
        return Refused(EMPTY_PATCH, "the output holds no diff")
    repo = root / "repo"
    for folder in (repo, root / "tmp", root / "home"):
        folder.mkdir()
    linked = False
    if shared is not None:
        linked = shared.fill(task, repo, root)
    elif task.repo["kind"] == "git":
        checkout.checkout_git(Path(task.repo["path"]), task.repo["base_commit"], repo, root)
    else:
        checkout.extract_archive(store.get(task.repo["archive"]), repo, task.repo.get("root"))
    patch = root / PATCH_FILE
    patch.write_text(diff if diff.endswith("\n") else diff + "\n", "utf-8")
    # Never look above the trial's folder for a repository to apply in.
    applied = safe_git.run(
        ["apply", "--whitespace=nowarn", str(patch)],
        cwd=repo,
        extra={"GIT_CEILING_DIRECTORIES": str(root)},
    )
    applied_with: AppliedWith = "git-apply"
    if applied.returncode != 0:
        refusal = (applied.stderr or applied.stdout).strip()
        if shutil.which("patch") is None:
            return Refused(
                PATCH_DID_NOT_APPLY, refusal + "\n(patch is not installed: no fuzzy retry)"
            )
        if linked:  # patch writes in a writable sandbox: no file shared with others
            checkout.own_files(repo)
        fuzzed, log = fuzzy(root)
        if not fuzzed:
            return Refused(
                PATCH_DID_NOT_APPLY, f"git apply: {refusal}\npatch --fuzz: {log.strip()}"
            )
        applied_with = "patch-fuzz"
    return _add_hidden_tests(task, store, repo) or applied_with


def _add_hidden_tests(task: Task, store: FileStore, repo: Path) -> Refused | None:
    for target, digest in sorted(task.hidden_tests.items()):
        # A diff may have put a link (or a file) where a hidden test's folder goes: never
        # write through it, where it might lead out of the checkout.
        place = repo
        for part in PurePosixPath(target).parts[:-1]:
            place = place / part
            if place.is_symlink() or (place.exists() and not place.is_dir()):
                return Refused(
                    HIDDEN_TESTS_BLOCKED,
                    f"the diff put a link or a file at {place.relative_to(repo)}, where the "
                    f"hidden test {target} goes",
                )
            place.mkdir(exist_ok=True)
        place = repo / target
        if place.is_symlink() or place.is_file():
            place.unlink()
        elif place.exists():
            shutil.rmtree(place)
        place.write_bytes(store.get(digest))
    return None


def environment(root: Path, path: str | None = None) -> dict[str, str]:
    """What the test command finds in its environment, and nothing else (no tokens, no
    proxies): ``path`` as PATH (the user's PATH when None), HOME and TMPDIR inside its
    folder ``root``, a UTF-8 locale and NO_COLOR."""
    return {
        "PATH": os.environ.get("PATH", os.defpath) if path is None else path,
        "HOME": str(root / "home"),
        "TMPDIR": str(root / "tmp"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }


def python_program() -> str | None:
    """The Python ``{python}`` stands for: the interpreter running Arena; in a frozen
    build (which has no interpreter of its own to lend) the one ``python3`` on PATH runs
    (a launcher such as a pyenv shim resolved to it: the sandbox shows only the real
    interpreter's installation), if any."""
    if getattr(sys, "frozen", False) or not sys.executable:
        launcher = shutil.which("python3") or shutil.which("python")
        found = view.python_at(launcher) if launcher else None
        return found[0] if found else launcher
    return sys.executable


def resolved_command(argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` with each ``{python}`` argument replaced by the Python to use, resolved
    when the tests run (so a task file, and the task's hash, name no machine's path)."""
    if PYTHON_PLACEHOLDER not in argv:
        return argv
    python = python_program() or "python3"  # not found: command_problem says so
    return tuple(python if arg == PYTHON_PLACEHOLDER else arg for arg in argv)


def command_problem(argv: tuple[str, ...], repo: Path, env: dict[str, str]) -> str:
    """Why ``argv`` cannot start ('' when its program is found)."""
    program = argv[0]
    if "/" in program:
        where = repo / program if not os.path.isabs(program) else Path(program)
        if where.is_file() and os.access(where, os.X_OK):
            return ""
        return f"command_not_found: {program} (no executable file there)"
    if shutil.which(program, path=env["PATH"]) is None:
        return f"command_not_found: {program} (not on PATH)"
    return ""
