"""Screenshots of the real window, run by test_window_xvfb.py in a subprocess under Xvfb.

python -m tests.ui.xvfb_shots OUT_DIR
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtTest import QTest

from arena.intake.outputs import FamilySettings, import_file
from arena.ledger import Ledger
from arena.rounds.model import RoundSettings
from arena.ui.app import application
from arena.ui.board import close_round_dialog
from arena.ui.main_window import MainWindow
from arena.ui.settings import Settings
from tests.ui.board_data import build_board_ledger
from tests.ui.conftest import SYSTEMS, write_family
from tests.ui.gates_ledger import build_gates_ledger


def main(out: Path) -> None:
    app = application(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        path = tmp / "shots.sqlite"
        with Ledger.open(path) as ledger:
            import_file(
                ledger,
                write_family(tmp / "p.jsonl", "prose", systems=SYSTEMS[:3], cases=2, leak_case=0),
                family="prose",
                fmt="native",
            )
            import_file(
                ledger,
                write_family(tmp / "d.jsonl", "code", systems=SYSTEMS[:2], cases=2, diff=True),
                family="code",
                fmt="native",
                settings=FamilySettings(max_chars=10**6),
            )
        settings = Settings(QSettings(str(tmp / "Arena.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.open_ledger(path)
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.grab().save(str(out / "families.png"))
        for family, name in (("prose", "prose-pair.png"), ("code", "diff-pair.png")):
            window.open_family(family)
            QTest.qWait(200)
            window.grab().save(str(out / name))
            window.escape()
        window.toggle_diff_layout()
        window.open_family("code")
        QTest.qWait(200)
        window.grab().save(str(out / "diff-pair-side-by-side.png"))
        # The board of a round closed from the window (a small penalty, so that one
        # system lands far behind), in both themes.
        window.open_ledger(build_board_ledger(tmp / "board.sqlite", tmp))
        close_round_dialog.ask_round_settings = lambda *_: RoundSettings(penalty=0.02)
        window.families.select("prose")
        window.round_actions.close_round()
        QTest.qWait(200)
        window.grab().save(str(out / "board.png"))
        window.toggle_theme()
        window.board.choose_category("explain")
        QTest.qWait(200)
        window.grab().save(str(out / "board-dark-category.png"))
        # The Gates page on a Language verdict of the case that asks for French, light theme.
        window.toggle_theme()
        window.open_ledger(build_gates_ledger(tmp / "gates.sqlite", tmp))
        window.families.select("mixed")
        window.show_gates()
        page = window.gates
        page.tree.setCurrentIndex(
            page.model.find(
                next(k for k in page.model.keys if page.data.find(*k).gate == "language")
            )
        )
        QTest.qWait(200)
        window.grab().save(str(out / "gates.png"))
        window.overlay.toggle()
        QTest.qWait(100)
        window.grab().save(str(out / "gates-keys.png"))
        window.close()
    app.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
