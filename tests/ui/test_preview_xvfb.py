"""The preview board in the real window on a real X server (Xvfb), kept as a screenshot.

    xvfb-run -a -s "-screen 0 1280x800x24" python -m tests.ui.test_preview_xvfb docs/images

writes ``board-preview.png`` (docs/window.md shows it): the board of ``prose``
(tests/ui/board_data.py), whose votes no round has fitted yet, at 1280×800.
"""

from __future__ import annotations

import struct
import sys
import tempfile
from pathlib import Path

from tests.ui.real_window import needs_xvfb, run_under_xvfb

SHOT = "board-preview.png"


def main(out: Path) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest

    from arena.rounds.preview import NOT_A_ROUND
    from arena.ui.app import application
    from arena.ui.main_window import MainWindow
    from arena.ui.settings import Settings
    from tests.ui.board_data import build_board_ledger

    application(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        settings = Settings(QSettings(str(tmp / "Arena.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.open_ledger(build_board_ledger(tmp / "board.sqlite", tmp))
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.show_board("prose")
        page = window.board
        for _ in range(600):  # the first refit starts the worker process
            if page.preview is not None:
                break
            QTest.qWait(50)
        assert page.previewing and page.preview is not None, page.preview_problem
        assert NOT_A_ROUND in page.title.text() and page.banner.isVisible()
        QTest.qWait(300)
        window.grab().save(str(out / SHOT))
        window.close()


@needs_xvfb
def test_the_preview_board_at_1280_by_800_under_xvfb(tmp_path):
    run_under_xvfb("tests.ui.test_preview_xvfb", tmp_path)
    shot = (tmp_path / SHOT).read_bytes()
    assert struct.unpack(">II", shot[16:24]) == (1280, 800)  # the PNG header's size
    assert 10_000 < len(shot) < 200_000


if __name__ == "__main__":
    main(Path(sys.argv[1]))
