"""One family's judges beside the rater: each judge's figures, Krippendorff's α, and the
selected judge's disagreements, each opening its pair side by side (``judge_pair.py``).

The figures' bootstrap takes a moment on a large family, so the page works them out on a
thread of its own (``Background``) over a read-only connection of its own, and shows a
busy bar meanwhile; the window stays usable. Its one write, Import verdicts…, goes
through the window's ``LedgerOps.run_long`` (off the window's thread, with Cancel). It
works them out again when it opens and whenever the ledger changes while it is shown (a
judge imported, a vote undone elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from arena.judges import figures
from arena.judges.comparison import RATER_KIND, judges_report
from arena.judges.disagreements import Disagreement, disagreements
from arena.ledger import Ledger
from arena.texts import counted
from arena.ui.background import Background
from arena.ui.family_list import FamilyTable
from arena.ui.judges import judge_import
from arena.ui.judges.judge_pair import JudgePair
from arena.ui.judges.judge_tables import BoardTable, DisagreementTable, JudgeTable, heading
from arena.ui.keys import JUDGES_ACTIONS, page_actions
from arena.ui.operations import Changes, LedgerOps
from arena.ui.pages import lay_out_page, page_titles
from arena.ui.tables import pick_rows
from arena.ui.theme import Theme


@dataclass(frozen=True)
class Study:
    """What the page shows of a family: the report, and each judge's disagreements."""

    report: dict[str, Any]
    found: dict[str, list[Disagreement]]
    rater: str | None  # the one at the keyboard, asked for as the reference


def study(path: Path, family: str, rater: str | None = None) -> Study:
    """Work out ``family``'s judges against ``rater`` (where several people voted) on a
    connection of the caller's thread."""
    with Ledger.open(path, readonly=True) as ledger:
        report = judges_report(ledger, family, rater=rater)
        found = {
            j["judge"]: disagreements(ledger, family, j["judge"], rater)
            for j in report["judges"]
            if j["kind"] != RATER_KIND  # another rater: on the board, not a judge's answers
        }
    return Study(report, found, rater)


def _reference(name: str | None, asked: str | None) -> str:
    """Whose votes the others are read against: you (named where several people voted),
    or the first to vote where you have no votes here."""
    if name is None:
        return "You"
    if name == asked:
        return f"You ({name})"
    return f"{name} (the first to vote: you have no votes here)"


def _table(model: JudgeTable | DisagreementTable | BoardTable) -> QTableView:
    table = FamilyTable()  # Enter activates a row on every platform, as on the family list
    table.setModel(model)
    pick_rows(table)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.setTabKeyNavigation(False)  # Tab goes to the next part of the page, not cell
    table.verticalHeader().hide()
    # A figure stands above its interval: each row as tall as its lines.
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(not isinstance(model, BoardTable))  # boards: as wide as read
    return table


class JudgesPage(QWidget):
    studied = Signal()  # the figures shown are worked out

    def __init__(
        self,
        ops: LedgerOps,
        theme: Theme,
        point_size: float,
        parent: QWidget | None = None,
        *,
        rater: Callable[[], str | None] = lambda: None,
    ) -> None:
        """``rater``: who is at the keyboard now, the one the judges and the other raters
        are compared with where several people voted."""
        super().__init__(parent)
        self.ops = ops
        self.rater = rater
        self.ledger: Ledger | None = None
        self.family = ""
        self.shown: Study | None = None
        self.note = ""  # what the last import from this page did, shown once worked out
        self.background = Background(self)

        self.title, self.subtitle = page_titles()
        self.busy = QProgressBar()
        self.busy.setObjectName("arena-busy")
        self.busy.setRange(0, 0)  # no end known: a busy bar
        self.busy.setMaximumWidth(160)
        self.busy.hide()
        self.message = QLabel()
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)
        controls = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        self.judge_actions = page_actions(
            self,
            JUDGES_ACTIONS,
            {"import": self.import_verdicts},
            {"import": "Import verdicts…"},
            controls,
            self.buttons,
            owner=self,
        )
        controls.addWidget(self.busy)
        controls.addWidget(self.message, 1)

        self.judges = JudgeTable()
        self.judge_table = _table(self.judges)
        self.judges_heading = QLabel("&Judges (Enter: the judge's disagreements)")
        self.judges_heading.setBuddy(self.judge_table)
        self.alpha = QLabel()
        self.found = DisagreementTable()
        self.found_table = _table(self.found)
        self.found_title = QLabel()
        self.found_title.setWordWrap(True)
        self.boards = BoardTable()
        self.board_table = _table(self.boards)
        self.board_note = QLabel()
        self.board_note.setWordWrap(True)
        top, found, boards = QWidget(), QWidget(), QWidget()
        for box, widgets in (
            (top, (self.judges_heading, self.judge_table, self.alpha)),
            (found, (self.found_title, self.found_table)),
            (boards, (self.board_note, self.board_table)),
        ):
            layout = QVBoxLayout(box)
            layout.setContentsMargins(0, 0, 0, 0)
            for widget in widgets:
                layout.addWidget(widget)
        self.tabs = QTabWidget()
        self.tabs.addTab(found, "&Disagreements")
        self.tabs.addTab(boards, "Boa&rds")
        lists = QSplitter(Qt.Orientation.Vertical)
        lists.addWidget(top)
        lists.addWidget(self.tabs)
        lists.setSizes([250, 450])
        self.pair = JudgePair(theme, point_size)
        self.stack = QStackedWidget()
        self.stack.addWidget(lists)
        self.stack.addWidget(self.pair)
        self.lists = lists

        lay_out_page(self, (self.title, self.subtitle), controls, self.stack)
        self.setFocusProxy(self.judge_table)
        self.judge_table.selectionModel().currentRowChanged.connect(self._judge_selected)
        self.judge_table.activated.connect(self._to_disagreements)
        self.found_table.activated.connect(self._open)
        self.found_table.doubleClicked.connect(self._open)
        ops.changed.connect(self._ledger_changed)

    # -- what is shown ------------------------------------------------------------

    def load(self, ledger: Ledger, family: str) -> None:
        if (ledger, family) != (self.ledger, self.family):
            self.shown, self.note = None, ""
            self.judges.load([])
            self.boards.load(None)
            self.found.load("", [])
        self.ledger, self.family = ledger, family
        self.back()
        self.reload()

    def clear(self) -> None:
        self.background.cancel()
        self.ledger, self.family, self.shown = None, "", None
        self.judges.load([])
        self.boards.load(None)
        self.found.load("", [])
        self.busy.hide()
        self.stack.setCurrentWidget(self.lists)

    def reload(self) -> None:
        """Work the figures out again (on a thread), keeping what is shown meanwhile."""
        if self.ledger is None:
            return
        self.title.setText(f"{self.family} — judges")
        self.busy.show()
        self.message.setText("Working out each judge's figures and intervals…")
        path, family, rater = Path(self.ledger.path), self.family, self.rater()
        self.background.start(lambda: study(path, family, rater), self._studied, self._failed)

    def _studied(self, found: Study) -> None:
        self.busy.hide()
        self.message.setText(self.note)
        keep = self.selected_judge()
        self.shown = found
        report = found.report
        rater = report["rater"]
        you = _reference(rater.get("name"), found.rater)
        self.subtitle.setText(
            f"{you}: {counted(rater['verdicts'], 'vote')} on {counted(rater['items'], 'item')} · "
            f"95% intervals: bootstrap over items, seed {report['seed']}"
        )
        self.judges.load(report["judges"])
        self.judge_table.resizeColumnsToContents()
        self.boards.load(report)
        self.board_table.resizeColumnsToContents()
        self.board_note.setText(
            f"{figures.anchor_text(report, 'you')} Each board fitted as a round fits yours: "
            "points [95% interval], bootstrap over cases."
        )
        extra = [k for k, v in report.items() if figures.is_figure(v) and k != "alpha"]
        alpha = figures.stacked(report["alpha"], between=" ")
        over = "all raters and judges" if report.get("between_raters") else "you and all judges"
        lines = [f"Krippendorff's α (ordinal; {over}): {alpha}"]
        lines += [f"{heading(k)}: {figures.stacked(report[k], between=' ')}" for k in extra]
        if report.get("between_raters"):  # the other rows marked "rater" vote on the board
            lines.append(figures.between_text(report["between_raters"]))
        self.alpha.setText("\n".join(lines))
        if not report["judges"]:
            self.message.setText(
                f"No judges in {self.family}: `arena judges import` adds one (docs/judges.md)."
            )
            self.found.load("", [])
            self.found_title.clear()
            self.studied.emit()
            return
        names = [j["judge"] for j in report["judges"]]
        self.judge_table.selectRow(names.index(keep) if keep in names else 0)
        self._judge_selected()
        self.studied.emit()

    def _failed(self, error: BaseException) -> None:
        self.busy.hide()
        self.message.setText(f"The judges could not be worked out: {error}")

    def selected_judge(self) -> str | None:
        row = self.judge_table.currentIndex().row()
        return self.judges.rows[row]["judge"] if 0 <= row < len(self.judges.rows) else None

    def _judge_selected(self, *_: QModelIndex) -> None:
        judge = self.selected_judge()
        if judge is None or self.shown is None:
            return
        found = self.shown.found.get(judge, [])
        self.found.load(judge, found)
        self.found_table.resizeColumnsToContents()
        if found:
            self.found_table.selectRow(0)
        self.found_title.setText(
            f"Where {judge} and you answered differently: {counted(len(found), 'item')}, most "
            "confident first (opposite answers, then those either of you gave alike more than "
            "once). Enter opens one side by side."
        )

    def _to_disagreements(self, _index: QModelIndex) -> None:
        """Enter on a judge: its disagreements, the first selected."""
        self.tabs.setCurrentIndex(0)
        self.found_table.setFocus()

    def _open(self, index: QModelIndex) -> bool:
        if self.ledger is None or not index.isValid():
            return False
        d = self.found.rows[index.row()]
        if not self.pair.show_disagreement(self.ledger, self.family, d, self.found.judge):
            self.message.setText(f"The pair on case {d.case_id} is no longer in the ledger.")
            return False
        self.stack.setCurrentWidget(self.pair)
        self.pair.setFocus()
        return True

    def import_verdicts(self) -> bool:
        """Import a judge's verdicts into the family (the page then works it out again)."""
        if self.ledger is None:
            return False
        chosen = judge_import.ask_judge_import(self.window(), self.family)
        if chosen is None:
            return False
        ledger, family = self.ledger, self.family

        def done(report: judge_import.JudgeImportReport) -> None:
            self.note = f"{report.summary()}."

        return self.ops.run_long(
            ledger,
            f"Importing {chosen.judge}'s verdicts into {family}…",
            Changes(family=family, judges=True),
            lambda own, _progress: judge_import.import_verdicts(own, family, chosen),
            done,
        )

    def back(self) -> bool:
        """Close the pair opened, back to the lists (False when none was open)."""
        if self.stack.currentWidget() is not self.pair:
            return False
        self.stack.setCurrentWidget(self.lists)
        self.found_table.setFocus()
        return True

    def _ledger_changed(self, _changes: Changes) -> None:
        if self.ledger is not None and self.isVisible():
            self.reload()

    def status_text(self) -> str:
        if self.shown is None:
            return f"{self.family} · judges: working them out…"
        return f"{self.family} · {counted(len(self.shown.report['judges']), 'judge')}"

    def set_theme(self, theme: Theme) -> None:
        self.pair.set_theme(theme)
