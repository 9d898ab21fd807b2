"""A category board shows its own evidence, and a tests-then-votes board fits 1280×800."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from arena.intake.outputs import FamilySettings, import_file
from arena.intake.votes import import_votes
from arena.ledger import Ledger
from arena.rounds.model import RoundSettings
from arena.ui.board import close_round_dialog
from tests.conftest import native_line
from tests.ui.conftest import diff_text

# SWE-bench runs are named like this: the board elides them rather than lose columns.
LONG = (
    "20240620_sweagent_claude3.5sonnet",
    "20241029_OpenHands-CodeAct-2.1-sonnet-20241022",
    "20240820_honeycomb",
    "20241108_autocoderover-v2.0-claude-3-5-sonnet-20241022",
)


@pytest.fixture(autouse=True)
def _settings(monkeypatch):
    monkeypatch.setattr(
        close_round_dialog, "ask_round_settings", lambda *_: RoundSettings(penalty=0.02)
    )


def _board(qtbot, window, family: str):
    window.families.select(family)
    assert window.round_actions.close_round(), window.ops.last_error
    qtbot.wait(20)
    return window.board


@pytest.fixture
def runs_ledger(tmp_path: Path) -> Path:
    """A tests-then-votes family of four long-named runs on four tasks in two categories."""
    lines, votes = [], []
    for c in range(4):
        for v, label in enumerate(LONG):
            lines.append(
                native_line(
                    f"t{c}",
                    label,
                    diff_text(f"mod{c}", 3 + 2 * v, v),
                    is_diff=True,
                    category="django" if c < 2 else "sympy",
                    test_result="passed" if (c + v) % 3 else "failed",
                    cost=0.01 * (v + 1),
                    latency_ms=1000.0 * (v + 1),
                )
            )
            for w in range(v + 1, len(LONG)):
                votes.append(
                    {
                        "case_id": f"t{c}",
                        "left_system": label,
                        "right_system": LONG[w],
                        "choice": "left" if (c + v + w) % 2 else "right",
                        "session": 1,
                        "actor": "rater",
                        "shown_at": "2026-11-01T10:00:00Z",
                        "voted_at": "2026-11-01T10:00:20Z",
                    }
                )
    (tmp_path / "runs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "votes.jsonl").write_text("\n".join(map(json.dumps, votes)) + "\n", "utf-8")
    path = tmp_path / "runs.sqlite"
    with Ledger.open(path) as ledger:
        import_file(
            ledger,
            tmp_path / "runs.jsonl",
            family="runs",
            fmt="native",
            settings=FamilySettings(kind="tests_then_votes", max_chars=200_000),
        )
        import_votes(ledger, tmp_path / "votes.jsonl", family="runs")
    return path


def _spans(page) -> dict[str, tuple[int, int]]:
    header = page.table.horizontalHeader()
    return {
        page.model.header(c): (
            header.sectionViewportPosition(i),
            header.sectionViewportPosition(i) + header.sectionSize(i),
        )
        for i, c in enumerate(page.model.columns)
    }


@pytest.mark.parametrize("category", [None, "django"])
def test_a_tests_then_votes_board_of_long_names_fits_a_1280_by_800_window(
    qtbot, open_window, runs_ledger, category
):
    window = open_window(runs_ledger)
    window.resize(1280, 800)
    page = _board(qtbot, window, "runs")
    page.choose_category(category)
    qtbot.wait(20)
    spans = _spans(page)
    width = page.table.viewport().width()
    assert max(right for _, right in spans.values()) <= width, spans
    assert not page.table.horizontalScrollBar().isVisible()
    system, points = spans["System"], next(v for k, v in spans.items() if k.startswith("Points"))
    assert system[0] >= 0 and points[1] <= width
    # A label that does not fit is elided; its tooltip gives it whole.
    longest = max(LONG, key=len)
    row = next(i for i, r in enumerate(page.model.rows) if r.label == longest)
    column = page.model.columns.index(next(c for c in page.model.columns if c.header == "System"))
    index = page.model.index(row, column)
    assert page.model.data(index, Qt.ItemDataRole.ToolTipRole).startswith(longest)
    assert page.table.textElideMode() == Qt.TextElideMode.ElideMiddle


def test_a_category_board_shows_its_own_votes_beside_the_familys(qtbot, open_window, board_ledger):
    window = open_window(board_ledger)
    page = _board(qtbot, window, "prose")
    page.choose_category("explain")
    own = page.found.categories["explain"]
    headers = [page.model.header(c) for c in page.model.columns]
    assert headers[4:7] == ["Votes", "Votes (all)", "Both bad"]
    ranked = [r for r in own.systems if not r.unranked]
    for r, row in enumerate(ranked):
        shown = [page.model.data(page.model.index(r, c)) for c in (4, 5)]
        assert shown == [str(row.category_votes), str(row.votes)]
    # The category's own votes are fewer than the family's for someone, and say so.
    assert any(row.category_votes < row.votes for row in ranked)
    assert "this category's own votes" in page.notes.text()
    page.choose_category(None)
    assert [page.model.header(c) for c in page.model.columns][4:6] == ["Votes", "Both bad"]


def test_a_tests_board_shows_each_run_with_its_trials_and_unanswered_tasks(
    qtbot, open_window, tmp_path
):
    from tests.tested_helpers import make_tests_family

    path = tmp_path / "tested.sqlite"
    with Ledger.open(path) as ledger:
        make_tests_family(
            ledger,
            tmp_path,
            {("t1", "a"): "passed", ("t2", "a"): "failed", ("t1", "b"): "passed"},
            descriptors={"a": {"harness": "swe-agent", "turn_budget": 30}},
        )
    window = open_window(path)
    page = _board(qtbot, window, "t")
    model = page.model
    headers = [model.header(c) for c in model.columns]
    assert "Votes" not in headers and "Both bad" not in headers
    shown = {
        model.data(model.index(r, headers.index("System"))): {
            h: model.data(model.index(r, i)) for i, h in enumerate(headers)
        }
        for r in range(model.rowCount())
    }
    assert shown["a"]["Run"] == "swe-agent, 30 turns" and shown["a"]["Passed"] == "1/2"
    assert (shown["b"]["Passed"], shown["b"]["No output"]) == ("1/2", "1")
    assert shown["a"]["Marks"] == "" and shown["b"]["Pass rate"] == "50%"
