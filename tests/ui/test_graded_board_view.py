"""A graded board in the window: ranks by intervals, category columns, failures by status."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from arena.rounds.model import RoundSettings
from arena.ui.board.summary_panel import summary_items


def cells(model) -> list[dict[str, str]]:
    return [
        {model.header(c): model.data(model.index(r, i)) for i, c in enumerate(model.columns)}
        for r in range(model.rowCount())
    ]


@pytest.fixture
def graded_path(tmp_path):
    """Three runs of the starter suite: one right throughout, and two alike that fail."""
    from arena.graded.runs import collect_run
    from arena.graded.suites import load_suite
    from arena.ledger import Ledger
    from arena.rounds.closing import close_round
    from tests.graded.fake_endpoint import Fail, FakeEndpoint, Reply
    from tests.graded.test_graded import _script, _settings

    suite = load_suite("starter")
    wrong = {t.task_id for t in suite.tasks[::2]}
    path = tmp_path / "graded.sqlite"
    with Ledger.open(path) as ledger:
        for label, temperature in (("best", 0.0), ("twin-a", 0.1), ("twin-b", 0.2)):
            script = _script(suite, wrong=set() if label == "best" else wrong)
            if label != "best":
                script[suite.tasks[1].input] = [Reply("I can't help with that.")]
                script[suite.tasks[3].input] = [Fail(500), Fail(500)]
            with FakeEndpoint(script) as server:
                collect_run(
                    ledger,
                    suite,
                    _settings(server.url, inference={"temperature": temperature}),
                    label=label,
                )
        close_round(ledger, "starter", RoundSettings(seed=1))
    return path


def test_runs_alike_share_a_rank_and_the_board_says_why(qtbot, open_window, graded_path):
    window = open_window(graded_path)
    window.show_board("starter")
    page = window.board
    rows = {r["System"]: r for r in cells(page.model)}
    assert [r.label for r in page.model.rows] == ["best", "twin-a", "twin-b"]
    assert rows["best"]["Rank"] == "1"
    assert rows["twin-a"]["Rank"] == rows["twin-b"]["Rank"] == "2"
    notes = page.notes.text()
    assert "Rank = 1 + the number of runs whose 95% interval lies entirely above" in notes
    assert "Rank 2 is shared by twin-a" in notes and "their 95% intervals overlap" in notes
    rank = page.model.columns.index(next(c for c in page.model.columns if c.key == "rank"))
    tip = page.model.data(page.model.index(1, rank), Qt.ItemDataRole.ToolTipRole)
    assert "Rank 2: 1 run with a 95% interval entirely above" in tip
    assert "Shares it with twin-b" in tip


def test_category_scores_and_failures_by_status_are_shown(qtbot, open_window, graded_path):
    window = open_window(graded_path)
    window.show_board("starter")
    model = window.board.model
    headers = [model.header(c) for c in model.columns]
    for name in ("reasoning", "mathematics", "structured extraction", "instruction compliance"):
        assert name in headers
    (twin,) = [r for r in cells(model) if r["System"] == "twin-a"]
    (best,) = [r for r in cells(model) if r["System"] == "best"]
    assert best["reasoning"] == "100.0%" and best["Failures"] == "0"
    assert best["Passed"] == "24/24" and twin["Passed"] == "10/24"
    counts = model.rows[1].status_counts
    # "Answer: 7" where a JSON block is due is a parse failure; the rest are wrong answers.
    assert (counts["refusal"], counts["missing"], counts["timeout"]) == (1, 1, 0)
    assert twin["Failures"] == str(2 + counts["parse_failure"])
    failures = headers.index("Failures")
    tip = model.data(model.index(1, failures), Qt.ItemDataRole.ToolTipRole)
    assert tip == (
        f"Failures by status: parse_failure {counts['parse_failure']}, refusal 1, "
        "missing 1 (http_error 1)."
    )
    # A two-word category sits on two lines in the header, so the columns stay narrow.
    column = headers.index("structured extraction")
    shown = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
    assert shown == "structured\nextraction"
    # Exports (CSV, image) read the same table, each header on one line.
    head = model.table()[0]
    assert "structured extraction" in head and "Failures" in head
    # The detail pane: every run's failures and categories in a sentence.
    items = {i.title: i for i in summary_items(window.board.found, "graded")}
    assert items["twin-a (rank 2)"].figure == f"{2 + counts['parse_failure']} failures"
    assert "refusal 1, missing 1 (http_error 1)" in items["twin-a (rank 2)"].sentence
    assert "reasoning" in items["best (rank 1)"].sentence
    shown_text = " ".join(label.text() for label in window.board.summary.labels)
    assert "twin-b (rank 2)" in shown_text
    assert not window.board.summary.plot.isVisible()


def test_the_graded_columns_fit_the_window(qtbot, open_window, graded_path):
    window = open_window(graded_path)
    window.resize(1280, 800)
    window.show_board("starter")
    table = window.board.table
    qtbot.waitUntil(lambda: table.viewport().width() > 0)
    header = table.horizontalHeader()
    assert header.length() <= table.viewport().width(), (header.length(), table.viewport().width())
    assert not table.horizontalScrollBar().isVisible()
