"""Running one test command in its sandbox within its limits, its log kept as a hash of
the whole and its last few kilobytes.

The command starts in a process group of its own; at the time limit, or at the first
other limit it reaches (output, and under bubblewrap processes and disk), the whole
group is killed (inside bubblewrap the sandbox's own process tree dies with it). Output
is read as it comes, so a command that prints gigabytes costs no memory or disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.trials import watch
from arena.trials.limits import Limits

LOG_TAIL_BYTES = 4096
# After a kill, or after the command exits, how long to wait for the rest of its output
# (a process that left the group may hold the pipe open).
DRAIN_S = 5.0

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()


@dataclass(frozen=True)
class Finished:
    """How a command ended. ``returncode`` is None when it was killed at the time limit or
    never started (``problem`` says why)."""

    returncode: int | None
    timed_out: bool
    duration_ms: float
    log_tail: str
    log_hash: str
    problem: str = ""
    # The limit the command reached (processes, disk, output), when it was stopped at one.
    limit: str = ""


class _Log:
    """The output as it streams: its sha256 and its last ``LOG_TAIL_BYTES``; past
    ``cap`` bytes, ``overflow`` is called once (it stops the command)."""

    def __init__(self, cap: int) -> None:
        self.digest = hashlib.sha256()
        self.tail = bytearray()
        self.size = 0
        self.cap = cap
        self.overflow: Callable[[], None] = lambda: None

    def feed(self, chunk: bytes) -> None:
        self.digest.update(chunk)
        self.tail += chunk
        del self.tail[:-LOG_TAIL_BYTES]
        before, self.size = self.size, self.size + len(chunk)
        if before <= self.cap < self.size:
            self.overflow()

    def read_all(self, fd: int, stop: threading.Event) -> None:
        """Read ``fd`` to its end, or until ``stop`` is set and nothing more comes (the
        descriptor is closed only after this returns, so no other file can take its number
        while it is read)."""
        with contextlib.suppress(OSError, ValueError):
            while True:
                if os.name == "posix":
                    ready, _, _ = select.select([fd], [], [], 0.2)
                    if not ready:
                        if stop.is_set():
                            return
                        continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    return
                self.feed(chunk)

    def text(self) -> str:
        return tail_text(bytes(self.tail))


def tail_text(data: bytes) -> str:
    """The last ``LOG_TAIL_BYTES`` of ``data`` as text (a character cut in two dropped)."""
    data = data[-LOG_TAIL_BYTES:]
    text = data.decode("utf-8", errors="replace")
    return text[1:] if len(data) == LOG_TAIL_BYTES and text.startswith("\ufffd") else text


def kill_all() -> None:
    """Kill every command still running (Ctrl-C): nothing outlives the run."""
    with _live_lock:
        running = list(_live)
    for process in running:
        _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover (Windows)
            process.kill()


def run_command(
    command: Callable[[int | None, int | None], list[str]],
    *,
    cwd: Path,
    env: dict[str, str],
    limits: Limits,
    sandboxed: bool = False,
    cancel: threading.Event | None = None,
) -> Finished:
    """Run ``command(status_fd, report_fd)`` to its end, to the time limit, or to the
    first other limit it reaches (then it is killed and ``limit`` says which).

    With ``sandboxed`` (bubblewrap), the sandbox is given a descriptor on which it reports
    that the command started, with its pid (a sandbox that says nothing there failed to
    start it), and the command's start script one on which it reports the room left on
    its disk when it ends; its processes and disk are watched while it runs. Once
    ``cancel`` is set (Ctrl-C), a command that starts is killed at once (``kill_all``
    kills the others)."""
    status_read = status_write = report_read = report_write = -1
    if sandboxed:
        status_read, status_write = os.pipe()
        report_read, report_write = os.pipe()
    argv = command(status_write if sandboxed else None, report_write if sandboxed else None)
    breach = _Breach()
    log = _Log(limits.log_bytes)
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(status_write, report_write) if sandboxed else (),
        )
    except OSError as exc:
        for fd in (status_read, status_write, report_read, report_write):
            if fd >= 0:
                os.close(fd)
        message = f"the command could not start: {exc.strerror or exc}"
        return Finished(None, False, 0.0, message, _sha256(message), problem=message)
    if sandboxed:
        os.close(status_write)
        os.close(report_write)
    with _live_lock:
        _live.add(process)
        if cancel is not None and cancel.is_set():
            _kill_group(process)
    log.overflow = lambda: breach.hit(f"output: more than {limits.log_mb} MB printed", process)
    assert process.stdout is not None
    stop_reading = threading.Event()
    reader = threading.Thread(
        target=log.read_all, args=(process.stdout.fileno(), stop_reading), daemon=True
    )
    reader.start()
    ended = threading.Event()
    watcher = None
    if sandboxed:
        watcher = watch.Watcher(status_read, limits, ended, lambda why: breach.hit(why, process))
        watcher.start()
    timed_out = False
    try:
        if not _exited_within(process, limits.time_s):
            timed_out = True
            _kill_group(process)
        process.wait()
    finally:
        ended.set()
        with _live_lock:
            _live.discard(process)
    duration_ms = (time.monotonic() - started) * 1000
    reader.join(DRAIN_S)
    if reader.is_alive():
        # Something that left the process group still holds the output open: stop there.
        _kill_group(process)
        stop_reading.set()
        reader.join()
    process.stdout.close()
    problem = ""
    if watcher is not None:
        watcher.join()
        problem = "" if watcher.started else _sandbox_problem(log.text())
        if process.returncode != 0 and watch.disk_was_full(report_read, limits):
            breach.hit(f"disk: the trial's {limits.disk_mb} MB are full", None)
        os.close(report_read)
    stopped = problem or breach.reason
    return Finished(
        returncode=None if timed_out or stopped else process.returncode,
        timed_out=timed_out and not stopped,
        duration_ms=duration_ms,
        log_tail=log.text(),
        log_hash=log.digest.hexdigest(),
        problem=problem,
        limit="" if problem else breach.reason,
    )


def _exited_within(process: subprocess.Popen, seconds: float) -> bool:
    """Whether ``process`` exits within ``seconds`` (it is not reaped here). On Linux the
    wait is woken by the exit itself (a pidfd); ``Popen.wait(timeout)`` instead polls with
    sleeps that double up to 50 ms, which added up to a tenth of a short trial's time."""
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux 5.3+: poll as Popen does
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            # At most a minute at a time: poll's timeout is a C int of milliseconds.
            if poller.poll(min(left, 60.0) * 1000 + 1):
                return True
    finally:
        os.close(pidfd)


class _Breach:
    """The first limit a command reached; reaching it kills the command."""

    def __init__(self) -> None:
        self.reason = ""
        self._lock = threading.Lock()

    def hit(self, reason: str, process: subprocess.Popen | None) -> None:
        with self._lock:
            if self.reason:
                return
            self.reason = reason
        if process is not None:
            _kill_group(process)


def _sandbox_problem(log_tail: str) -> str:
    """Why the sandbox never started the command."""
    last = log_tail.strip().splitlines()[-1:] or ["no message"]
    return f"the sandbox could not start the command: {last[0]}"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
