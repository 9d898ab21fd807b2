"""The Judges page for a judge run from Arena: a disagreement opened shows the judge's full
reply in each order it was asked, as plain text (a reply is untrusted), with its order and
whether it named a verdict; the judges' table counts each run judge's unparsed replies."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit

from tests.collecting.helpers import KEY
from tests.judges.judge_run_helpers import KEY_ENV, MARKUP, judged_and_voted

CASES = 4


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judged")
    path = folder / "ledger.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, KEY)
        judged_and_voted(path, folder, cases=CASES)
    return path


@pytest.fixture
def on_page(qtbot, open_window, judged, tmp_path):
    from tests.conftest import copy_ledger

    path = copy_ledger(judged, tmp_path / "ledger.sqlite")
    shutil.copytree(f"{judged}.files", f"{path}.files")  # the replies' file store
    window = open_window(path)
    window.families.select("fam")
    qtbot.keyClick(window.families.table, Qt.Key.Key_J)
    page = window.judges
    qtbot.waitUntil(lambda: page.shown is not None and not page.background.busy, timeout=20_000)
    return window, page


def test_the_judges_row_counts_its_unparsed_replies(on_page):
    _, page = on_page
    columns = page.judges.columns
    assert columns[columns.index("verdicts") + 1] == "unparsed"
    row = page.judges.rows[0]
    assert row["judge"] == "gpt-judge" and row["unparsed"] == CASES
    assert page.judges.cell(row, columns.index("unparsed")) == str(CASES)


def test_a_disagreement_shows_each_reply_as_plain_text(qtbot, on_page):
    window, page = on_page
    assert len(page.found.rows) == CASES  # the rater's ties against the judge's [[A]]
    qtbot.keyClick(page.judge_table, Qt.Key.Key_Return)
    assert page.found_table.hasFocus()
    qtbot.keyClick(page.found_table, Qt.Key.Key_Return)
    pair = page.pair
    assert page.stack.currentWidget() is pair and pair.reply_box.isVisible()
    assert isinstance(pair.reply_text, QPlainTextEdit) and pair.reply_text.isReadOnly()
    shown = pair.reply_text.toPlainText()
    d = pair.shown
    # Both orders, each named with the systems as the judge saw them and its verdict.
    assert [r.game for r in pair.replies] == [1, 2]
    assert [r.parsed for r in pair.replies] == [True, False]
    first, second = pair.replies
    labels = {d.left.system_id: d.left.label, d.right.system_id: d.right.label}
    assert f"Game 1: left {labels[first.left]}, right {labels[first.right]}" in shown
    assert f"verdict left ({labels[first.left]})" in shown
    assert "Game 2:" in shown and "unparsed: the reply named no verdict" in shown
    assert "(as you first saw it)" in shown and "(sides swapped)" in shown
    # The markup is shown as written, twice, never rendered.
    assert shown.count(MARKUP) == 2 and "Verdict: [[A]]" in shown
    # Keys: Alt+Y reaches the replies; Esc goes back to the list.
    qtbot.keyClick(pair, Qt.Key.Key_Y, Qt.KeyboardModifier.AltModifier)
    assert pair.reply_text.hasFocus()
    qtbot.keyClick(pair.reply_text, Qt.Key.Key_Escape)
    assert page.stack.currentWidget() is page.lists


def test_a_reply_missing_from_the_file_store_is_said(qtbot, on_page):
    window, page = on_page
    shutil.rmtree(f"{window.ledger.path}.files")
    qtbot.keyClick(page.found_table, Qt.Key.Key_Return)
    shown = page.pair.reply_text.toPlainText()
    assert "could not be read" in shown and "missing from its file store" in shown


def test_an_imported_judge_has_no_reply_pane(qtbot, on_page, tmp_path):
    from arena.judges.replies import item_replies

    window, page = on_page
    d = page.found.rows[0]
    systems = (d.left.system_id, d.right.system_id)
    assert item_replies(window.ledger, "fam", "someone", d.case_id, systems) == []
    assert len(item_replies(window.ledger, "fam", "gpt-judge", d.case_id, systems)) == 2
