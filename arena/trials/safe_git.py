"""Every git command Arena runs, run so that nothing of the task's repository runs on the
host (docs/tests.md, "git runs nothing of the repository's").

A repository's configuration can name programs that git starts by itself: an fsmonitor, a
hook, a clean/smudge filter, an external diff or textconv, a pager, and config files to
include that name more. So Arena never points git at the repository's own git folder:
each command gets a *borrowed* git folder of Arena's making, which holds only Arena's
configuration and takes the repository's objects (``GIT_OBJECT_DIRECTORY``) and, to name a
commit at import, its refs (links to them). The repository's config, hooks and
``info/attributes`` are never read, and no system or user configuration either.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from arena.errors import NotAvailable

# Settings that win over any configuration: no hook, no fsmonitor, no pager, no
# attributes file but the tree's own .gitattributes (which can name a filter, but only
# configuration can say what program a filter runs, and only Arena's is read).
OVERRIDES = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.attributesFile=/dev/null",
    "core.pager=cat",
    "core.sparseCheckout=false",
    "protocol.allow=never",
)
# The environment every git command gets on top of the host's (less any GIT_* variable,
# which could name another git folder, configuration or program).
ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_SYSTEM": os.devnull,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
}
# How deep git follows alternates that list alternates.
ALTERNATES_DEPTH = 5
BORROWED_CONFIG = "[core]\n\trepositoryformatversion = {version}\n\tbare = true\n{extensions}"


def git_program() -> str:
    found = shutil.which("git")
    if found is None:
        raise NotAvailable(
            "git is not installed; tests families need it to check out repositories and "
            "apply diffs (Debian/Ubuntu: apt-get install git)"
        )
    return found


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The host's environment without its GIT_* variables, with ``ENVIRONMENT`` and
    ``extra`` (GIT_DIR and the like) on top."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**kept, **ENVIRONMENT, **(extra or {})}


def run(
    args: list[str], *, cwd: Path | None = None, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` with ``OVERRIDES`` and ``environment(extra)``: the one way Arena runs
    git."""
    overrides = [word for setting in OVERRIDES for word in ("-c", setting)]
    return subprocess.run(
        [git_program(), *overrides, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment(extra),
        stdin=subprocess.DEVNULL,
    )


def git_folder(repository: Path) -> Path:
    """The git folder of ``repository`` (a working tree's top, its ``.git`` folder or a
    bare repository), found by reading the folder, not by running git in it. ValueError
    when it is none."""
    dot_git = repository / ".git"
    if dot_git.is_file():  # a linked worktree or a submodule: ``gitdir: PATH``
        text = dot_git.read_text("utf-8", errors="replace").strip()
        if not text.startswith("gitdir:"):
            raise ValueError(f"{repository} is not a git repository ({dot_git} names none)")
        folder = repository / text.removeprefix("gitdir:").strip()
    else:
        folder = dot_git if dot_git.is_dir() else repository
    if not ((folder / "HEAD").is_file() and (common_folder(folder) / "objects").is_dir()):
        raise ValueError(f"{repository} is not a git repository (give its top folder)")
    return folder.resolve()


def common_folder(git_dir: Path) -> Path:
    """Where a git folder's objects and refs are (a linked worktree's main git folder)."""
    common = git_dir / "commondir"
    if common.is_file():
        return (git_dir / common.read_text("utf-8", errors="replace").strip()).resolve()
    return git_dir


def object_folders(git_dir: Path) -> list[Path]:
    """Every folder git reads ``git_dir``'s objects from: its own, and those its
    ``objects/info/alternates`` lists, theirs too (as deep as git goes)."""
    found = [common_folder(git_dir) / "objects"]
    level = list(found)
    for _ in range(ALTERNATES_DEPTH):
        level = [alternate for folder in level for alternate in _alternates(folder)]
        level = [folder for folder in dict.fromkeys(level) if folder not in found]
        found += level
    return found


def _alternates(objects: Path) -> list[Path]:
    try:
        text = (objects / "info" / "alternates").read_text("utf-8", errors="replace")
    except OSError:
        return []
    named = [line.strip().strip('"') for line in text.splitlines()]
    return [(objects / name).resolve() for name in named if name and not name.startswith("#")]


def borrowed(git_dir: Path, place: Path, *, refs: bool) -> dict[str, str]:
    """A git folder of Arena's own at ``place`` that borrows ``git_dir``'s objects (and,
    with ``refs``, its HEAD and refs, to name a commit): the environment that points git
    at it."""
    common = common_folder(git_dir)
    place.mkdir()
    if refs:
        (place / "HEAD").write_bytes((git_dir / "HEAD").read_bytes())
        (place / "refs").symlink_to(common / "refs")
        if (common / "packed-refs").exists():
            (place / "packed-refs").symlink_to(common / "packed-refs")
    else:
        (place / "HEAD").write_text("ref: refs/heads/arena\n")
        (place / "refs").mkdir()
    (place / "config").write_text(_config_for(common))
    return {"GIT_DIR": str(place), "GIT_OBJECT_DIRECTORY": str(common / "objects")}


def _config_for(common: Path) -> str:
    """Arena's configuration for a borrowed git folder: only the object format is taken
    from the repository's (a SHA-256 repository's objects need it), read as text."""
    try:
        text = (common / "config").read_text("utf-8", errors="replace")
    except OSError:
        text = ""
    if re.search(r"^\s*objectformat\s*=\s*sha256\s*$", text, re.IGNORECASE | re.MULTILINE):
        return BORROWED_CONFIG.format(
            version=1, extensions="[extensions]\n\tobjectformat = sha256\n"
        )
    return BORROWED_CONFIG.format(version=0, extensions="")
