"""The points axis of a board's bars: where it starts, and which systems fall off it (far
behind)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.rounds.settings_record import AXIS_SPAN


@dataclass(frozen=True)
class Axis:
    """The points axis of the bars: ``start`` (left end) to ``top`` (the top score)."""

    start: float
    top: float

    def fraction(self, points: float) -> float | None:
        """Where ``points`` sits on the axis (0–1); None below its start (far behind)."""
        if points < self.start:
            return None
        return (points - self.start) / (self.top - self.start)

    def ticks(self) -> list[float]:
        step = 100.0 if self.top - self.start > 250 else 50.0
        first = math.ceil(self.start / step) * step
        return [first + i * step for i in range(int((self.top - first) // step) + 1)]


def axis_for(points: list[float]) -> Axis | None:
    """An axis that starts a little below the lowest score, but never more than
    ``AXIS_SPAN`` below the top: a lower score is then far behind, off the axis."""
    if not points:
        return None
    top, low = max(points), min(points)
    room = max(50.0, 0.1 * (top - low))
    return Axis(max(top - AXIS_SPAN, math.floor((low - room) / 50) * 50), top)
