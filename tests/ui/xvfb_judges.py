"""The Judges page of the real window at 1280×800 (tests/ui/judges_data.py), under Xvfb:
the judges' table and the boards side by side on their one anchor. Exits non-zero where a
table scrolls sideways.

xvfb-run -a python -m tests.ui.xvfb_judges OUT.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtTest import QTest

from arena.ui.app import application
from arena.ui.main_window import MainWindow
from arena.ui.settings import Settings
from tests.ui.judges_data import build_judges_ledger


def main(out: Path) -> None:
    app = application(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        path = build_judges_ledger(tmp)
        settings = Settings(QSettings(str(tmp / "Arena.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.open_ledger(path)
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.families.select("chat")
        window.show_judges()
        page = window.judges
        while page.shown is None or page.background.busy:
            QTest.qWait(100)
        page.tabs.setCurrentIndex(1)  # the boards, on their one anchor
        QTest.qWait(300)
        window.grab().save(str(out))
        tables = (page.judge_table, page.board_table)
        sideways = [t.horizontalScrollBar().maximum() for t in tables]
        window.close()
        if any(sideways) or window.width() != 1280:
            raise SystemExit(f"a table scrolls sideways at {window.width()} px: {sideways}")
    app.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
