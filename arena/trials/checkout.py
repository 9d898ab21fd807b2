"""A task's code: pinned at import (a git commit, or a folder or tarball kept as a tar
archive), and checked out again, clean, for each trial.

A git repository is read, never written, and nothing of it runs: every git command goes
through ``safe_git`` (a git folder of Arena's own that borrows the repository's objects),
and the checkout goes through a temporary index of its own (``read-tree -u``), so the
repository's index, worktree and refs are left as they were, and the trial's folder holds
no link into it.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from arena.trials import safe_git

BORROWED = "borrowed.git"


class CheckoutFailed(Exception):
    """The code could not be checked out (the repository moved, a commit is gone…)."""


def resolve_commit(repository: Path, ref: str) -> tuple[Path, str]:
    """The git folder of ``repository`` and the full id of the commit ``ref`` names.

    Raises ValueError with the reason when it is not a repository or has no such commit.
    """
    try:
        git_dir = safe_git.git_folder(repository)
        with tempfile.TemporaryDirectory(prefix="arena-refs-") as scratch:
            env = safe_git.borrowed(git_dir, Path(scratch) / BORROWED, refs=True)
            commit = safe_git.run(
                ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], extra=env
            )
    except OSError as exc:
        raise ValueError(f"{repository} cannot be read: {exc.strerror or exc}") from None
    if commit.returncode != 0:
        raise ValueError(f"{ref!r} is not a commit of {repository}")
    return git_dir, commit.stdout.strip()


def checkout_git(
    git_dir: Path, commit: str, dest: Path, scratch: Path, *, borrowed: dict[str, str] | None = None
) -> None:
    """The tree of ``commit`` written into the empty folder ``dest`` (which has no .git
    afterwards), by one git command; ``scratch`` holds the index while it is written, and
    the borrowed git folder unless ``borrowed`` (``safe_git.borrowed``'s environment, made
    once for many checkouts) is given."""
    own, index = scratch / BORROWED, scratch / "checkout.index"
    try:
        env = dict(borrowed) if borrowed else safe_git.borrowed(git_dir, own, refs=False)
        env |= {"GIT_INDEX_FILE": str(index), "GIT_WORK_TREE": str(dest)}
        # --reset: from an empty index, every file of the tree is written (-u).
        done = safe_git.run(["read-tree", "--reset", "-u", commit], extra=env)
        if done.returncode != 0:
            raise CheckoutFailed(
                f"git read-tree of {commit[:12]} from {git_dir} failed: {done.stderr.strip()}"
            )
    except OSError as exc:
        raise CheckoutFailed(f"the git folder {git_dir} cannot be read: {exc}") from None
    finally:
        index.unlink(missing_ok=True)
        if not borrowed:
            shutil.rmtree(own, ignore_errors=True)


def link_tree(source: Path, dest: Path) -> None:
    """``source``'s files made to appear in the empty folder ``dest`` as hard links (its
    folders made anew, its symbolic links copied as links): a checkout in the time it
    takes to write its folders. Every writer of a trial's checkout replaces a file rather
    than writing into it (``git apply``, ``patch``, the hidden tests; the test command
    works on a copy in its sandbox), so the shared files stay as checked out. Where the
    file system has no hard links, files are copied."""
    stack = [(os.fspath(source), os.fspath(dest))]
    while stack:
        here, there = stack.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                target = os.path.join(there, entry.name)
                if entry.is_symlink():
                    os.symlink(os.readlink(entry.path), target)
                elif entry.is_dir(follow_symlinks=False):
                    os.mkdir(target)
                    stack.append((entry.path, target))
                else:
                    try:
                        os.link(entry.path, target, follow_symlinks=False)
                    except OSError:
                        shutil.copy2(entry.path, target, follow_symlinks=False)


def own_files(folder: Path) -> None:
    """Every file under ``folder`` that is a hard link shared with another folder made a
    file of its own, for a step that may write into files (``patch`` in a writable
    sandbox) rather than replace them."""
    for current, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(current, name)
            found = os.lstat(path)
            if stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
                data = Path(path).read_bytes()
                os.unlink(path)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "wb") as written:
                    written.write(data)
                os.chmod(path, stat.S_IMODE(found.st_mode))


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
