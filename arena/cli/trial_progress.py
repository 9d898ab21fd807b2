"""Progress of a run of trials on stderr: a bar on a terminal, a line per trial otherwise
(logs, CI)."""

from __future__ import annotations

import sys
from typing import Any


class TrialProgress:
    """Told of each trial as it is recorded (``trial``); a context manager that closes
    the bar."""

    def __init__(self, total: int, labels: dict[str, str]) -> None:
        self.total, self.labels, self.done = total, labels, 0
        self.bar: Any = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="trials", unit="trial", file=sys.stderr)

    def __enter__(self) -> TrialProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

    def trial(self, trial: Any, job: Any) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"{trial.case_id}: {trial.result}", refresh=False)
            self.bar.update(1)
            return
        took = f" ({trial.duration_ms / 1000:.1f} s)" if trial.duration_ms is not None else ""
        why = f" {trial.reason}" if trial.reason and trial.result != "passed" else ""
        print(
            f"[{self.done}/{self.total}] {trial.case_id} · "
            f"{self.labels.get(trial.system_id, trial.system_id[:12])} #{trial.sample}: "
            f"{trial.result}{why}{took}",
            file=sys.stderr,
            flush=True,
        )
