"""Running one test command in its sandbox: a time limit, and its log kept as a hash of
the whole and its last few kilobytes.

The command starts in a process group of its own; at the time limit the whole group is
killed (inside bubblewrap the sandbox's own process tree dies with it). Output is read
as it comes, so a command that prints gigabytes costs no memory or disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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


class _Log:
    """The output as it streams: its sha256 and its last ``LOG_TAIL_BYTES``."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.tail = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.digest.update(chunk)
        self.tail += chunk
        del self.tail[:-LOG_TAIL_BYTES]

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
    command: Callable[[int | None], list[str]],
    *,
    cwd: Path,
    env: dict[str, str],
    time_limit_s: float,
    status_pipe: bool = False,
    cancel: threading.Event | None = None,
) -> Finished:
    """Run ``command(status_fd)`` to its end or to the time limit. With ``status_pipe``,
    the sandbox (bubblewrap) is given a descriptor on which it reports that the command
    started; a sandbox that says nothing there failed to start it. Once ``cancel`` is set
    (Ctrl-C), a command that starts is killed at once (``kill_all`` kills the others)."""
    status_read = status_write = -1
    if status_pipe:
        status_read, status_write = os.pipe()
    argv = command(status_write if status_pipe else None)
    log = _Log()
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
            pass_fds=(status_write,) if status_pipe else (),
        )
    except OSError as exc:
        for fd in (status_read, status_write):
            if fd >= 0:
                os.close(fd)
        message = f"the command could not start: {exc.strerror or exc}"
        return Finished(None, False, 0.0, message, _sha256(message), problem=message)
    if status_pipe:
        os.close(status_write)
    with _live_lock:
        _live.add(process)
        if cancel is not None and cancel.is_set():
            _kill_group(process)
    assert process.stdout is not None
    stop_reading = threading.Event()
    reader = threading.Thread(
        target=log.read_all, args=(process.stdout.fileno(), stop_reading), daemon=True
    )
    reader.start()
    timed_out = False
    try:
        process.wait(timeout=time_limit_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        process.wait()
    finally:
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
    if status_pipe:
        problem = _sandbox_problem(status_read, log.text())
    return Finished(
        returncode=None if timed_out or problem else process.returncode,
        timed_out=timed_out and not problem,
        duration_ms=duration_ms,
        log_tail=log.text(),
        log_hash=log.digest.hexdigest(),
        problem=problem,
    )


def _sandbox_problem(status_read: int, log_tail: str) -> str:
    """Why the sandbox never started the command ('' when it did)."""
    with os.fdopen(status_read, "rb") as status:
        reported = status.read().decode("utf-8", errors="replace")
    decoder, position, documents = json.JSONDecoder(), 0, []
    while (start := reported.find("{", position)) >= 0:
        try:
            document, position = decoder.raw_decode(reported, start)
        except ValueError:
            break
        documents.append(document)
    if any(isinstance(d, dict) and "child-pid" in d for d in documents):
        return ""
    last = log_tail.strip().splitlines()[-1:] or ["no message"]
    return f"the sandbox could not start the command: {last[0]}"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
