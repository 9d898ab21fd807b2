"""The real window at 1280×800 on the written ledger (tests/ui/written_data.py): what it
shows is checked, and the rating page is saved as prose, code, two turns and raw view.
Run by test_as_written_xvfb.py in a subprocess under Xvfb.

python -m tests.ui.xvfb_written OUT_DIR
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest

from arena.ui.app import application
from arena.ui.main_window import MainWindow
from arena.ui.settings import Settings
from tests.ui.written_data import CSV, CSV_QUESTION, WORDS, WORDS_QUESTION, build_written_ledger

SHOTS = {
    "prose": "rating-prose.png",
    "code": "rating-code.png",
    "turns": "rating-two-turns.png",
    "raw": "rating-raw.png",
}


def lines_of(browser) -> list[str]:
    text = browser.document().toPlainText()
    return text.replace("\u2028", "\n").replace("\xa0", " ").split("\n")


def check_turns(window: MainWindow) -> None:
    view = window.rating.pair_view
    pair = view.pair
    assert pair is not None and view.stack.currentWidget() is view.turns_page
    side = "left" if WORDS in pair.left.text else "right"
    first, second = view.turn_rows[:2]
    questions = [r.question.document().toPlainText() for r in (first, second)]
    assert questions == [WORDS_QUESTION, CSV_QUESTION], questions
    for row in (first, second):
        assert row.question.isVisible() and row.question.verticalScrollBar().maximum() == 0
        bottom = row.question_box.mapTo(window, QPoint(0, row.question_box.height())).y()
        assert bottom <= window.height(), bottom
    assert lines_of(getattr(first, side).browser) == WORDS.split("\n")
    assert lines_of(getattr(second, side).browser) == CSV.split("\n")


def check_raw(window: MainWindow) -> None:
    view = window.rating.pair_view
    pair = view.pair
    assert pair is not None and view.raw
    pane = view.left if "tea" in pair.left.text else view.right
    shown = lines_of(pane.browser)
    assert shown == ["first line ends with a space·", "name→\tprice", "tea→\t3"], shown


def main(out: Path) -> None:
    app = application(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        path = build_written_ledger(tmp / "written.sqlite", tmp)
        settings = Settings(QSettings(str(tmp / "Arena.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.open_ledger(path)
        window.show()
        window.activateWindow()  # shortcuts act only in the active window
        assert QTest.qWaitForWindowActive(window)
        window.open_family("written")
        seen: set[str] = set()
        while (pair := window.rating.current_pair()) is not None and len(seen) < len(SHOTS):
            QTest.qWait(200)
            case = pair.case.case_id
            if case == "turns":
                check_turns(window)
            if case == "raw":
                QTest.keyClick(window, Qt.Key.Key_M)
                QTest.qWait(200)
                check_raw(window)
            if case in SHOTS:
                # The status line is shown whole, the first pair's too.
                assert window.status.width() >= window.status.sizeHint().width()
                window.grab().save(str(out / SHOTS[case]))
                seen.add(case)
            if case == "raw":
                QTest.keyClick(window, Qt.Key.Key_M)
            QTest.keyClick(window, Qt.Key.Key_3)  # a tie: on to the next pair
        assert seen == set(SHOTS), seen
        window.close()
    app.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
