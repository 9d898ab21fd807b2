"""The board of a tested family: the agent's time and cost beside the test run's, a family
of two harnesses said so, the round settings one key away, and the known limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from arena.ledger import Ledger
from arena.rounds.known_limits import known_limits
from arena.rounds.model import RoundSettings
from arena.ui.board import close_round_dialog
from arena.ui.board.settings_panel import SETTINGS_KEY
from tests.rounds.test_agent_columns import MIXED, _family


@pytest.fixture(autouse=True)
def _settings(monkeypatch):
    monkeypatch.setattr(close_round_dialog, "ask_round_settings", lambda *_: RoundSettings())


@pytest.fixture
def page(qtbot, open_window, tmp_path: Path):
    path = tmp_path / "agents.sqlite"
    with Ledger.open(path) as ledger:
        _family(ledger, tmp_path, MIXED)
    window = open_window(path)
    window.families.select("t")
    assert window.round_actions.close_round(), window.ops.last_error
    qtbot.wait(20)
    return window.board


def _cells(model) -> dict[str, dict[str, str]]:
    headers = [model.header(c) for c in model.columns]
    return {
        model.data(model.index(r, headers.index("System"))): {
            h: model.data(model.index(r, i)) for i, h in enumerate(headers)
        }
        for r in range(model.rowCount())
    }


def test_the_agents_time_and_cost_are_shown_apart_from_the_test_runs(page):
    model = page.model
    cells = _cells(model)
    # As checked by hand in tests/rounds/test_agent_columns.py: 2000 and 750 ms of the
    # agent's run, 0.4 and 0.15 a solution, 300 and 500 ms of the hidden tests.
    assert (cells["a"]["Agent p50"], cells["b"]["Agent p50"]) == ("2.0 s", "750 ms")
    assert (cells["a"]["Cost / solution"], cells["b"]["Cost / solution"]) == ("0.4", "0.15")
    assert (cells["a"]["Test run p50"], cells["b"]["Test run p50"]) == ("300 ms", "500 ms")
    headers = [model.header(c) for c in model.columns]
    tips = {
        h: model.headerData(i, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        for i, h in enumerate(headers)
    }
    assert "agent's whole run" in tips["Agent p50"] and "Test run p50" in tips["Agent p50"]
    assert "hidden-test command" in tips["Test run p50"] and "not the agent" in tips["Test run p50"]
    row = next(i for i, r in enumerate(model.rows) if r.label == "a")
    cost = model.data(
        model.index(row, headers.index("Cost / solution")), Qt.ItemDataRole.ToolTipRole
    )
    assert cost == "The mean of 2 of its 3 solutions: those that report a cost."
    notes = page.notes.text()
    assert "Agent p50 and Cost / solution: the agent's whole run on a task" in notes
    assert (
        "t: its systems do not share one agent and turn budget (harness: swe-agent (a), " in notes
    )


def test_the_round_settings_are_one_key_away_and_the_limits_below_the_summary(page, qtbot):
    assert not page.side.showing_settings
    limits = page.summary.limits.text()
    assert all(limit in limits for limit in known_limits("tests_then_votes"))
    assert page.summary.limits.isVisible()
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_R)
    assert page.side.showing_settings and page.side.button.text().startswith("Round summary")
    shown = page.side.settings.items.text()
    for part in ("Point method", "penalized Bradley–Terry", "Decisive-vote threshold", "Coverage"):
        assert part in shown
    assert "Case set" in shown and "3 cases (hash " in shown
    assert "Agents" in shown
    assert "the systems differ in harness: swe-agent (a), openhands (b) (reported)" in shown
    qtbot.keyClick(page.table, Qt.Key.Key_R)
    assert not page.side.showing_settings
    assert page.side.button.text() == f"Round settings  [{SETTINGS_KEY}]"
