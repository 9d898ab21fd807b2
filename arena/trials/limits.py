"""The limits a trial's test command runs under, each a task-file field with a default
(docs/tests.md, "Limits")."""

from __future__ import annotations

from dataclasses import dataclass

from arena.tasks import Task

DEFAULT_TIME_LIMIT_S = 300.0
DEFAULT_MEMORY_MB = 2048
# Processes and threads alive at once inside the sandbox.
DEFAULT_MAX_PROCESSES = 512
# The checkout, /tmp, the home folder and /dev/shm together (tmpfs: memory, not disk).
DEFAULT_DISK_MB = 1024
# The trial's writable filesystems under bubblewrap, each a tmpfs of ``disk_mb``: what
# they hold together counts against ``disk_mb`` (watch.py adds it up).
DISKS = ("/tmp", "/dev/shm")
# Everything the command prints (stdout and stderr together).
DEFAULT_LOG_MB = 64
# A disk with less free space than this after a failed command was filled by it.
FULL_DISK_BYTES = 1 << 20


@dataclass(frozen=True)
class Limits:
    time_s: float = DEFAULT_TIME_LIMIT_S
    memory_mb: int = DEFAULT_MEMORY_MB
    max_processes: int = DEFAULT_MAX_PROCESSES
    disk_mb: int = DEFAULT_DISK_MB
    log_mb: int = DEFAULT_LOG_MB

    @classmethod
    def of(cls, task: Task, *, time_s: float | None = None) -> Limits:
        """``task``'s limits; ``time_s`` replaces its time limit (``--timeout``)."""
        return cls(
            time_s=task.time_limit_s if time_s is None else time_s,
            memory_mb=task.memory_mb,
            max_processes=task.max_processes or DEFAULT_MAX_PROCESSES,
            disk_mb=task.disk_mb or DEFAULT_DISK_MB,
            log_mb=task.log_mb or DEFAULT_LOG_MB,
        )

    @property
    def log_bytes(self) -> int:
        return self.log_mb << 20

    @property
    def disk_bytes(self) -> int:
        return self.disk_mb << 20
