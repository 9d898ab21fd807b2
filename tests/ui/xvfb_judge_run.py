"""Judges ▸ Run a judge… in the real window at 1280×800 under Xvfb, against the scripted
server: the dialog half-way through a run (docs/images/judge-run.png), then, the run done,
a disagreement of the run judge opened on the Judges page with its two replies
(docs/images/judge-replies.png). Exits non-zero when the run does not end whole.

xvfb-run -a python -m tests.ui.xvfb_judge_run RUN.png REPLIES.png
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtTest import QTest

from arena.ledger import Ledger
from arena.rating.session import RatingSession
from arena.ui.app import application
from arena.ui.main_window import MainWindow
from arena.ui.settings import Settings
from tests.collecting.helpers import KEY
from tests.graded.fake_endpoint import FakeEndpoint, Judging
from tests.judges.judge_run_helpers import KEY_ENV, answered_family, judge_file

CASES = 12


def _wait(condition, seconds: float = 30.0) -> None:
    for _ in range(int(seconds * 20)):
        if condition():
            return
        QTest.qWait(50)
    raise SystemExit("timed out")


def main(run_shot: Path, replies_shot: Path) -> None:
    os.environ[KEY_ENV] = KEY
    app = application(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        path = tmp / "arena.sqlite"
        answered_family(path, tmp, cases=CASES)
        with Ledger.open(path) as ledger:  # the rater's votes: left, right, tie in turn
            session = RatingSession(ledger, "fam", seed=1, repeat_share=0.0)
            for n in range(CASES):
                session.vote(("left", "right", "tie")[n % 3])
        settings = Settings(QSettings(str(tmp / "Arena.ini"), QSettings.Format.IniFormat))
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.open_ledger(path)
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.families.select("fam")
        with FakeEndpoint(default=Judging(delay=0.15, unparsed_every=4)) as server:
            window.choose_run_judge()
            dialog = window.running_judge
            assert dialog is not None
            dialog.file.setText(str(judge_file(tmp, server.url)))
            dialog.read_file()
            dialog.max_cost.setValue(0.5)
            dialog.workers.setValue(1)
            dialog.start()
            _wait(lambda: dialog.stored >= CASES)
            QTest.qWait(200)
            dialog.grab().save(str(run_shot))
            _wait(lambda: not dialog.running, 60)
            if dialog.stored != 2 * CASES:
                raise SystemExit(f"{dialog.stored} replies stored: {dialog.status.text()}")
            dialog.close()
        window.show_judges("fam")
        page = window.judges
        _wait(lambda: page.shown is not None and not page.background.busy, 60)
        found = page.found
        at = next(
            (n for n in range(len(found.rows)) if page.found.rows[n].opposite),
            0,
        )
        page.found_table.selectRow(at)
        page._open(found.index(at, 0))
        QTest.qWait(400)
        window.grab().save(str(replies_shot))
        if not page.pair.reply_box.isVisible():
            raise SystemExit("no replies shown")
        window.close()
    app.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
