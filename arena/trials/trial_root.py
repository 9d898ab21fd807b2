"""Where trial folders live: one Arena-owned root in the temporary folder
(``arena-trials-UID``), a folder per run inside it, held by a lock for as long as the run
lives. A run killed before it could clean up leaves its folder behind; the next run
removes every folder whose lock nobody holds before it starts.

Windows has no ``flock``: there a run cleans up after itself, and what a killed run
left stays.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.errors import NotAvailable

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


@dataclass(frozen=True)
class Leftovers:
    """What an earlier, killed run left and this run removed."""

    folders: int
    bytes: int


def base() -> Path:
    """The root of every trial folder: made private to this user, refused when someone
    else made it (a link or another owner's folder at its name)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    root = Path(tempfile.gettempdir()) / f"arena-trials-{uid}"
    with contextlib.suppress(FileExistsError):
        root.mkdir(mode=0o700)
    found = os.lstat(root)
    if not stat.S_ISDIR(found.st_mode) or (hasattr(os, "getuid") and found.st_uid != uid):
        raise NotAvailable(f"{root} is not a folder of yours: remove it and run again")
    if stat.S_IMODE(found.st_mode) != 0o700:
        root.chmod(0o700)
    return root


def _size(folder: Path) -> int:
    total = 0
    for current, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(current, name)).st_size
    return total


def remove_leftovers(root: Path) -> Leftovers:
    """Remove the run folders under ``root`` whose run is gone (their lock is free, or
    they have none)."""
    if fcntl is None:  # pragma: no cover (Windows)
        return Leftovers(0, 0)
    folders = size = 0
    for entry in sorted(root.iterdir()):
        if entry.name.endswith(LOCK_SUFFIX) or not entry.name.startswith("run-"):
            continue
        lock = entry.with_name(entry.name + LOCK_SUFFIX)
        try:
            descriptor = os.open(lock, os.O_RDWR)
        except FileNotFoundError:
            descriptor = -1  # the lock goes only after the folder: its run is gone
        try:
            if not entry.exists():
                continue  # its run ended meanwhile and removed it
            if descriptor >= 0:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live run
            size += _size(entry)
            shutil.rmtree(entry, ignore_errors=True)
            lock.unlink(missing_ok=True)
            folders += 1
        finally:
            if descriptor >= 0:
                os.close(descriptor)
    return Leftovers(folders, size)


@contextlib.contextmanager
def run_folder(root: Path) -> Iterator[Path]:
    """A folder for one run's trials, locked while the run lives and removed after it.
    The lock is taken before its name appears, so no other run can take it for a dead
    run's."""
    name = f"run-{uuid.uuid4().hex[:12]}"
    descriptor, made = tempfile.mkstemp(dir=root, prefix=".new-")
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        lock = root / (name + LOCK_SUFFIX)
        os.replace(made, lock)
        folder = root / name
        folder.mkdir(mode=0o700)
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            lock.unlink(missing_ok=True)
    finally:
        os.close(descriptor)
        Path(made).unlink(missing_ok=True)
