"""A wall clock a test moves by hand: ISO 8601 times, as the ledger stores them."""

from __future__ import annotations

from datetime import datetime, timedelta


class FakeClock:
    def __init__(self, start: str = "2026-03-02T09:00:00.000+00:00", *, tick: float = 0.0):
        """``tick``: seconds it moves on by itself each time it is read."""
        self.at = datetime.fromisoformat(start)
        self.tick = timedelta(seconds=tick)

    def __call__(self) -> str:
        now = self.at.isoformat(timespec="milliseconds")
        self.at += self.tick
        return now

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)
