"""The points axis of a board's bars."""

from __future__ import annotations

from arena.rounds.points_axis import axis_for
from arena.rounds.settings_record import AXIS_SPAN


def test_the_axis_starts_at_most_its_span_below_the_top():
    near = axis_for([1000.0, 900.0])
    assert near is not None and near.start == 850.0 and near.fraction(850.0) == 0.0
    far = axis_for([1000.0, 100.0])
    assert far is not None and far.start == 1000.0 - AXIS_SPAN
    assert far.fraction(300.0) is None  # far behind: left of the axis
    assert axis_for([]) is None
