"""Which of a board's columns (arena.rounds.board_vocabulary) wrap their header on screen:
one word a line, so the column is as narrow as its values and the board fits the window."""

from __future__ import annotations

from arena.rounds.board_vocabulary import (
    AGENT_TIME,
    BOTH_BAD,
    CATEGORY_BOTH_BAD,
    CI95,
    COST,
    FAILED_TESTS,
    GATE_FAILURES,
    LATENCY,
    NO_OUTPUT,
    PASS_RATE,
    RUN,
    TRIAL_TIME,
    VOTES,
    Column,
)
from arena.rounds.closing import TESTED

_WRAPPED = (CATEGORY_BOTH_BAD, RUN, NO_OUTPUT, TRIAL_TIME, AGENT_TIME, CI95)
# A tested board has more columns: their headers take a line a word.
_TESTED_WRAPPED = (GATE_FAILURES, PASS_RATE, FAILED_TESTS, BOTH_BAD, VOTES)
_GRADED_WRAPPED = (COST, LATENCY)


def wraps(column: Column, kind: str) -> bool:
    """Whether the header of ``column`` on a board of ``kind`` takes one word a line."""
    return (
        column.category is not None
        or column in _WRAPPED
        or (kind in TESTED and column in _TESTED_WRAPPED)
        or (kind == "graded" and column in _GRADED_WRAPPED)
    )
