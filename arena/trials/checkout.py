"""A task's code: pinned at import (a git commit, or a folder or tarball kept as a tar
archive), and checked out again, clean, for each trial.

A git repository is read, never written: the checkout goes through a temporary index of
its own (``read-tree`` + ``checkout-index``), so the repository's index, worktree and
refs are left as they were, and the trial's folder holds no link into it.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path, PurePosixPath

from arena.errors import NotAvailable


class CheckoutFailed(Exception):
    """The code could not be checked out (the repository moved, a commit is gone…)."""


def git_program() -> str:
    found = shutil.which("git")
    if found is None:
        raise NotAvailable(
            "git is not installed; tests families need it to check out repositories and "
            "apply diffs (Debian/Ubuntu: apt-get install git)"
        )
    return found


def _git(args: list[str], *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [git_program(), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def resolve_commit(repository: Path, ref: str) -> tuple[Path, str]:
    """The git folder of ``repository`` and the full id of the commit ``ref`` names.

    Raises ValueError with the reason when it is not a repository or has no such commit.
    """
    found = _git(["-C", str(repository), "rev-parse", "--absolute-git-dir"])
    if found.returncode != 0:
        raise ValueError(f"{repository} is not a git repository")
    git_dir = Path(found.stdout.strip())
    commit = _git(
        ["--git-dir", str(git_dir), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"]
    )
    if commit.returncode != 0:
        raise ValueError(f"{ref!r} is not a commit of {repository}")
    return git_dir, commit.stdout.strip()


def checkout_git(git_dir: Path, commit: str, dest: Path, scratch: Path) -> None:
    """The tree of ``commit`` written into ``dest`` (which has no .git afterwards)."""
    env = {
        "GIT_DIR": str(git_dir),
        "GIT_INDEX_FILE": str(scratch / "checkout.index"),
        "GIT_WORK_TREE": str(dest),
    }
    for step in (["read-tree", commit], ["checkout-index", "--all", "--force"]):
        done = _git(step, env=env)
        if done.returncode != 0:
            raise CheckoutFailed(
                f"git {step[0]} of {commit[:12]} from {git_dir} failed: {done.stderr.strip()}"
            )
    Path(env["GIT_INDEX_FILE"]).unlink(missing_ok=True)


def _normalised(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    return info


def folder_archive(folder: Path) -> bytes:
    """``folder`` as a gzipped tar whose bytes depend only on its files' names, contents,
    modes and links (sorted, times and owners cleared), so the same folder hashes alike.
    ``__pycache__`` folders are left out: Python's byte-code caches (which pip writes
    beside installed code) are not code."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for current, dirs, files in os.walk(folder):
                dirs[:] = sorted(name for name in dirs if name != "__pycache__")
                for name in sorted(dirs + files):
                    full = Path(current) / name
                    arcname = full.relative_to(folder).as_posix()
                    tar.add(full, arcname, recursive=False, filter=_normalised)
    return buffer.getvalue()


def check_archive(data: bytes, root: str | None) -> None:
    """Refuse an archive that cannot be read, that would write outside its folder, or
    whose ``root`` is not a folder in it (ValueError with the reason)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = tar.getmembers()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ValueError(f"not a readable tar archive ({exc})") from None
    for member in members:
        _refuse_unsafe(member)
    top = PurePosixPath(root) if root is not None else None
    if top is not None and not any(top in PurePosixPath(m.name).parents for m in members):
        raise ValueError(f"the archive has no folder {root!r}")


def _refuse_unsafe(member: tarfile.TarInfo) -> None:
    name = PurePosixPath(member.name)
    if name.is_absolute() or ".." in name.parts:
        raise ValueError(f"the archive's entry {member.name!r} points outside its folder")
    if member.isdev():
        raise ValueError(f"the archive's entry {member.name!r} is a device file")
    if member.islnk() or member.issym():
        target = PurePosixPath(member.linkname)
        if target.is_absolute() or ".." in (
            PurePosixPath(os.path.normpath(str(name.parent / target))).parts
        ):
            raise ValueError(f"the archive's link {member.name!r} points outside its folder")


def extract_archive(data: bytes, dest: Path, root: str | None) -> None:
    """Unpack a stored archive into ``dest``; with ``root``, only that folder, as the top."""
    scratch = dest.parent / (dest.name + ".unpacked")
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = tar.getmembers()
            for member in members:
                _refuse_unsafe(member)
            _extract(tar, members, dest if root is None else scratch)
    except (tarfile.TarError, ValueError, EOFError) as exc:
        raise CheckoutFailed(f"the stored archive could not be unpacked: {exc}") from None
    if root is not None:
        dest.rmdir()
        (scratch / root).rename(dest)
        shutil.rmtree(scratch, ignore_errors=True)


def _extract(tar: tarfile.TarFile, members: list[tarfile.TarInfo], into: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        # Python 3.11.4+ checks every entry itself as well: no links or paths outside.
        tar.extractall(into, members=members, filter="data")
    else:  # pragma: no cover (older 3.11)
        tar.extractall(into, members=members)
