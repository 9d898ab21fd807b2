"""One board vocabulary: the columns, cells and marks that `arena round show` prints
and the window shows."""

from __future__ import annotations

import pytest

from arena.cli.board_text import board_table
from arena.rounds.board_vocabulary import (
    AGENT_TIME,
    BOTH_BAD,
    CATEGORY_BOTH_BAD,
    CATEGORY_VOTES,
    COST,
    MARKS,
    POINTS,
    RUN,
    TRIALS,
    VOTES,
    board_columns,
    cell,
    columns_for,
    marks,
)
from arena.rounds.model import BoardRow


def _row(**given) -> BoardRow:
    return BoardRow(system="s", label="a", rank=1, points=1000.0, **given)


@pytest.mark.parametrize("kind", ["votes", "tests", "tests_then_votes"])
def test_the_command_line_prints_the_windows_headers_in_lower_case(kind):
    headers, _, _ = board_table(kind, [_row()], category=False)
    assert headers == [c.header.lower() for c in columns_for(kind)]


def test_a_category_view_shows_its_own_votes_before_the_familys():
    columns = columns_for("votes", category=True)
    at = columns.index(CATEGORY_VOTES)
    assert columns[at : at + 3] == (CATEGORY_VOTES, VOTES, CATEGORY_BOTH_BAD)
    assert BOTH_BAD not in columns
    headers, _, _ = board_table("votes", [_row()], category=True)
    assert headers[at : at + 3] == ["votes", "votes (all)", "both bad"]


def test_a_tested_category_view_leaves_out_the_run_and_the_test_run_time():
    assert RUN in columns_for("tests") and RUN not in columns_for("tests", category=True)


def test_a_tests_board_never_marks_a_system_preliminary():
    row = _row(preliminary=True, far_behind=True)
    assert marks(row, "votes") == ["preliminary", "far behind"]
    assert marks(row, "tests") == ["far behind"]
    assert cell(row, MARKS, "tests_then_votes") == "preliminary, far behind"


def test_cells_are_formatted_once_for_both_boards():
    row = _row(p50_latency_ms=125_000.0, trials=6, trials_passed=4, cost_per_output=0.0000403)
    assert cell(row, AGENT_TIME, "tests") == "2.1 min"
    assert cell(row, TRIALS, "tests") == "4/6"
    assert cell(row, COST, "votes") == "0.0000403"
    assert cell(row, POINTS, "votes") == "1000"
    assert cell(_row(), COST, "votes") is None


def test_a_graded_board_has_a_column_per_category_and_a_cost_only_when_reported():
    rows = [
        _row(headline=0.5, categories={"maths": 0.25, "prose": 0.75}),
        _row(headline=0.4, categories={"prose": 0.5, "code": 1.0}),
    ]
    columns = board_columns("graded", rows)
    assert [c.category for c in columns if c.category] == ["maths", "prose", "code"]
    assert COST not in columns
    assert cell(rows[0], columns[6], "graded") == "25.0%"
    costed = [*rows, _row(headline=0.1, cost_per_output=0.5)]
    assert COST in board_columns("graded", costed)
