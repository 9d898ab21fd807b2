"""The task code a run's trials share: each task's code (a git commit, or a stored
archive) checked out once per run into the run's folder, and each trial's checkout made
of hard links to it (``checkout.link_tree``) instead of checked out again.

A shared checkout lives only while trials that need it are still to come: the trial that
uses it last removes it (a trial ended before its checkout, by an unsafe path or Ctrl-C,
leaves it to the run's end, when the run's folder goes). Code used by a single trial is
checked out straight into that trial's folder. The git folder Arena borrows to read a
repository (``safe_git.borrowed``) is made once per repository and run too.
"""

from __future__ import annotations

import shutil
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from arena.ledger.file_store import FileStore
from arena.tasks import Task
from arena.trials import checkout, safe_git

Key = tuple[str, str, str]


def key_of(task: Task) -> Key:
    """What makes two tasks' code the same: the repository and commit, or the archive and
    the folder in it taken as the top."""
    if task.repo["kind"] == "git":
        return ("git", str(task.repo["path"]), str(task.repo["base_commit"]))
    return ("archive", str(task.repo["archive"]), str(task.repo.get("root") or ""))


class SharedCode:
    """Checkouts for the trials of ``tasks`` (one entry per trial to come), kept in
    ``folder`` (made here)."""

    def __init__(self, folder: Path, store: FileStore, tasks: Iterable[Task]) -> None:
        self.folder = folder
        self.store = store
        self._left: Counter[Key] = Counter(key_of(task) for task in tasks)
        self._lock = threading.Lock()
        self._key_locks: dict[Key, threading.Lock] = {}
        self._made: dict[Key, Path] = {}
        self._borrowed: dict[str, dict[str, str]] = {}
        self._count = 0
        folder.mkdir()

    def fill(self, task: Task, dest: Path, scratch: Path) -> bool:
        """``task``'s code written into the empty folder ``dest`` (``scratch``: a folder of
        the trial's for git's index); whether its files are hard links shared with other
        trials (``checkout.own_files`` before writing into them). Raises
        ``checkout.CheckoutFailed`` (or the file store's LedgerError)."""
        key = key_of(task)
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        # One trial at a time per code: the first checks it out, the last removes it.
        with key_lock:
            with self._lock:
                self._left[key] -= 1
                last = self._left[key] <= 0
                made = self._made.get(key)
            if made is None:
                if last:
                    self._check_out(task, dest, scratch)
                    return False
                made = self._new_folder()
                try:
                    self._check_out(task, made, scratch)
                except BaseException:
                    shutil.rmtree(made, ignore_errors=True)
                    raise
                self._made[key] = made
            try:
                checkout.link_tree(made, dest)
            finally:
                if last:
                    del self._made[key]
                    shutil.rmtree(made, ignore_errors=True)
            return True

    def _new_folder(self) -> Path:
        with self._lock:
            self._count += 1
            made = self.folder / f"code-{self._count}"
        made.mkdir()
        return made

    def _check_out(self, task: Task, dest: Path, scratch: Path) -> None:
        if task.repo["kind"] != "git":
            checkout.extract_archive(
                self.store.get(task.repo["archive"]), dest, task.repo.get("root")
            )
            return
        git_dir = Path(task.repo["path"])
        checkout.checkout_git(
            git_dir, task.repo["base_commit"], dest, scratch, borrowed=self._borrowed_for(git_dir)
        )

    def _borrowed_for(self, git_dir: Path) -> dict[str, str]:
        with self._lock:
            found = self._borrowed.get(str(git_dir))
            if found is None:
                place = self.folder / f"{checkout.BORROWED}-{len(self._borrowed) + 1}"
                try:
                    found = safe_git.borrowed(git_dir, place, refs=False)
                except OSError as exc:
                    shutil.rmtree(place, ignore_errors=True)
                    raise checkout.CheckoutFailed(
                        f"the git folder {git_dir} cannot be read: {exc}"
                    ) from None
                self._borrowed[str(git_dir)] = found
            return found
