"""Watching a command inside bubblewrap: the processes it has alive and the room left on
its private disk, seen from outside through ``/proc/PID/root`` (the sandbox's own
``/proc`` lists its process tree alone).

The process limit is also set inside (``RLIMIT_NPROC``), but the kernel does not apply
it to root: watching is what holds it there. The disk is a size-limited tmpfs; a
command that fills it may hang on the full disk (caught here) or fail at once (its start
script reports the room left, ``disk_was_full``).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable

from arena.trials.limits import FULL_DISK_BYTES, Limits

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
            room = os.statvfs(f"{root}/tmp")
        except OSError:
            return ""
        if alive >= self.limits.max_processes:
            return f"processes: {self.limits.max_processes} alive at once"
        if room.f_bavail * room.f_frsize < FULL_DISK_BYTES:
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


def disk_was_full(report_fd: int) -> bool:
    """Whether the start script reported less room than ``FULL_DISK_BYTES`` left on the
    disk when the command ended ('avail-blocks block-size' from ``stat -f``)."""
    os.set_blocking(report_fd, False)
    with contextlib.suppress(OSError):
        words = os.read(report_fd, 256).split()
        if len(words) >= 2 and words[0].isdigit() and words[1].isdigit():
            return int(words[0]) * int(words[1]) < FULL_DISK_BYTES
    return False
