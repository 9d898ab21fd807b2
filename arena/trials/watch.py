"""Watching a command inside bubblewrap: the processes it has alive and the room left on
its private disks, seen from outside through ``/proc/PID/root`` (the sandbox's own
``/proc`` lists its process tree alone).

The process limit is also set inside (``RLIMIT_NPROC``), but the kernel does not apply
it to root: watching is what holds it there. The disks (``/tmp`` and ``/dev/shm``) are
tmpfs, each as large as the trial's whole disk: what both hold together is what counts
against it. A command that fills them may hang on a full disk (caught here) or fail at
once (its start script reports how full they were, ``disk_was_full``).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable

from arena.trials.limits import DISKS, FULL_DISK_BYTES, Limits

POLL_S = 0.05


class Watcher(threading.Thread):
    """Reads bubblewrap's status descriptor until it names the command's pid
    (``started``), then checks the limits every ``POLL_S`` until ``ended`` is set, calling
    ``reached(why)`` when one is reached."""

    def __init__(
        self,
        status_fd: int,
        limits: Limits,
        ended: threading.Event,
        reached: Callable[[str], None],
    ) -> None:
        super().__init__(daemon=True, name="arena-trial-watch")
        self.status_fd = status_fd
        self.limits = limits
        self.ended = ended
        self.reached = reached
        self.started = False

    def run(self) -> None:
        # The descriptor stays open until the command has ended: bubblewrap writes its
        # exit code there last, and would die of SIGPIPE writing to a closed pipe.
        try:
            pid = _child_pid(self.status_fd)
            if pid is None:
                return
            self.started = True
            root = f"/proc/{pid}/root"
            while not self.ended.wait(POLL_S):
                why = self.over(root)
                if why:
                    self.reached(why)
                    self.ended.wait()
        finally:
            os.close(self.status_fd)

    def over(self, root: str) -> str:
        """The limit the sandbox seen at ``root`` has reached ('' when none, or when it
        cannot be seen: it has ended)."""
        try:
            alive = sum(name.isdigit() for name in os.listdir(f"{root}/proc"))
            disks = [os.statvfs(f"{root}{disk}") for disk in DISKS]
        except OSError:
            return ""
        if alive >= self.limits.max_processes:
            return f"processes: {self.limits.max_processes} alive at once"
        used = sum((d.f_blocks - d.f_bavail) * d.f_frsize for d in disks)
        if self.limits.disk_bytes - used < FULL_DISK_BYTES:
            return f"disk: the trial's {self.limits.disk_mb} MB are full"
        return ""


def _child_pid(status_fd: int) -> int | None:
    """The pid bubblewrap reports for the command (None: it ended without starting it)."""
    reported = b""
    decoder = json.JSONDecoder()
    while chunk := os.read(status_fd, 4096):
        reported += chunk
        text, position = reported.decode("utf-8", errors="replace"), 0
        while (start := text.find("{", position)) >= 0:
            try:
                document, position = decoder.raw_decode(text, start)
            except ValueError:
                break
            if isinstance(document, dict) and isinstance(document.get("child-pid"), int):
                return document["child-pid"]
    return None


def disk_was_full(report_fd: int, limits: Limits) -> bool:
    """Whether the start script reported less room than ``FULL_DISK_BYTES`` left of the
    trial's disk when the command ended (a line 'blocks avail-blocks block-size' from
    ``stat -f`` for each of ``DISKS``)."""
    os.set_blocking(report_fd, False)
    with contextlib.suppress(OSError):
        lines = [line.split() for line in os.read(report_fd, 512).splitlines()]
        numbers = [[int(word) for word in line] for line in lines if _numbers(line, 3)]
        if len(numbers) == len(DISKS):
            used = sum((blocks - avail) * size for blocks, avail, size in numbers)
            return limits.disk_bytes - used < FULL_DISK_BYTES
    return False


def _numbers(words: list[bytes], count: int) -> bool:
    return len(words) == count and all(word.isdigit() for word in words)
