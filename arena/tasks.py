"""A tests family's case as a task: the record ``arena tasks import`` stores and a trial
runs against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.canonical import content_hash
from arena.records import CaseId


@dataclass(frozen=True)
class Task:
    """A tests family's case as a task: where the repository is, the hidden tests (path in
    the checkout -> sha256 of the file in the ledger's file store), the command that runs
    them and its limits. ``repo`` is {"kind": "git", "path": ..., "base_commit": ...} (a
    repository referred to by its absolute path and full commit id), or {"kind": "folder" |
    "tarball", "archive": sha256} (a tar archive in the file store, so a run never needs the
    original again; a tarball may add "root", the folder inside it that is the repository).
    """

    family: str
    case_id: CaseId
    repo: dict[str, Any]
    hidden_tests: dict[str, str]
    test_command: tuple[str, ...]
    time_limit_s: float = 300.0
    memory_mb: int = 2048
    environment: str = ""
    # Limits and paths a task file may set; None or empty: the default (arena.trials.limits).
    max_processes: int | None = None
    disk_mb: int | None = None
    log_mb: int | None = None
    read_only_paths: tuple[str, ...] = ()
    # The task file's folder, kept when a path it names lies in the home or working folder
    # and only its pack may vouch for it (arena.trials.protected), at import and at run.
    pack: str | None = None

    def canonical(self) -> dict[str, Any]:
        # The fields added later only when given, so a task stored before keeps its hash.
        later = {k: getattr(self, k) for k in ("max_processes", "disk_mb", "log_mb")}
        return {
            "case_id": self.case_id,
            "repo": self.repo,
            "hidden_tests": dict(sorted(self.hidden_tests.items())),
            "test_command": list(self.test_command),
            "time_limit_s": repr(float(self.time_limit_s)),
            "memory_mb": self.memory_mb,
            "environment": self.environment,
            **{k: v for k, v in later.items() if v is not None},
            **({"read_only_paths": list(self.read_only_paths)} if self.read_only_paths else {}),
            **({"pack": self.pack} if self.pack is not None else {}),
        }

    @property
    def task_hash(self) -> str:
        return content_hash(self.canonical())
