"""One family's automatic decisions: every failing gate verdict, and the rater's corrections.

The page reads the family through ``GatesData`` and writes only through the
window's ``LedgerOps`` (each correction is one event, made by the core), so a
refused correction is shown the one way and every view hears of a change. It
redraws itself after every write, keeping the verdict in hand selected.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from arena.gates.screening import FailureCounts, GateFailure
from arena.ledger import Ledger
from arena.pairs.case_doubt import Doubt
from arena.texts import counted
from arena.ui.gates.gates_corrections import CorrectionActions
from arena.ui.gates.gates_data import GatesData, ReadingCache
from arena.ui.gates.gates_detail import VerdictDetail
from arena.ui.gates.gates_tree import GROUPINGS, FailureTree, Key, key_of
from arena.ui.operations import Changes, LedgerOps
from arena.ui.pages import lay_out_page, page_titles, two_panes
from arena.ui.scroll_keep import areas_in, keep_scroll
from arena.ui.theme import Theme

# More than this many cases in doubt would push the verdicts off the page; the rest
# are in the Language group anyway, marked "in doubt".
DOUBTS_SHOWN = 4


def _excerpt(text: str, size: int = 90) -> str:
    line = " ".join(text.split())
    return line if len(line) <= size else line[: size - 1] + "…"


class GatesPage(QWidget):
    def __init__(self, ops: LedgerOps, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ops = ops
        self.ledger: Ledger | None = None
        self.family = ""
        self.data: GatesData | None = None
        self._cache: ReadingCache = {}
        self.grouping = GROUPINGS[0][0]

        self.title, self.subtitle = page_titles()
        self.doubts = QFrame()
        self.doubts.setObjectName("doubts")
        self.doubt_rows = QGridLayout(self.doubts)
        # Per case in doubt: its "case expects L" and "keep the language" buttons.
        self.doubt_buttons: dict[str, tuple[QPushButton, QPushButton]] = {}
        self.group_box = QComboBox()
        for name, label in GROUPINGS:
            self.group_box.addItem(label, name)
        group_label = QLabel("&Group by:")
        group_label.setBuddy(self.group_box)
        self.buttons: dict[str, QPushButton] = {}
        controls = QHBoxLayout()
        controls.addWidget(group_label)
        controls.addWidget(self.group_box)
        controls.addStretch(1)

        self.model = FailureTree()
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.corrections = QListWidget()
        self.corrections.setObjectName("corrections")
        self.corrections.setWordWrap(True)
        self.corrections.setMaximumHeight(150)
        self.corrections_title = QLabel()
        self.corrections_title.setObjectName("summary-title")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.tree, 3)
        left_layout.addWidget(self.corrections_title)
        left_layout.addWidget(self.corrections, 1)
        self.detail = VerdictDetail(theme)
        split = two_panes(left, self.detail, stretch=(1, 1), widths=(560, 640))
        self.message = QLabel()
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)

        heading = (self.title, self.subtitle, self.doubts)
        lay_out_page(self, heading, controls, split, self.message)
        self.setFocusProxy(self.tree)

        self.correct = CorrectionActions(self, controls)
        self.correction_actions = self.correct.actions
        self.set_theme(theme)
        self.group_box.currentIndexChanged.connect(self._regroup)
        self.tree.selectionModel().currentChanged.connect(self._selected)
        ops.changed.connect(self._ledger_changed)

    # -- what is shown ------------------------------------------------------------

    def load(self, ledger: Ledger, family: str) -> None:
        if (ledger, family) != (self.ledger, self.family):
            self._cache = {}
            self.message.clear()
        self.ledger, self.family = ledger, family
        self.reload(keep_selection=False)

    def clear(self) -> None:
        self.ledger, self.data, self.family = None, None, ""
        self._cache = {}
        self.model.load([], self.grouping)

    def reload(self, *, keep_selection: bool = True) -> None:
        """Read the family again, keeping the verdict selected or, when it is gone (its
        output removed), selecting the one now where it was."""
        if self.ledger is None:
            return
        selected = self.selected_key() if keep_selection else None
        position = self.model.keys.index(selected) if selected in self.model.keys else 0
        self.data = GatesData(self.ledger, self.family, self._cache)
        self._show_header()
        self._show_doubts()
        self._show_corrections()
        self._fill_tree(selected, position)

    def _fill_tree(self, selected: Key | None, position: int) -> None:
        assert self.data is not None
        self.model.load(self.data.failures, self.grouping)
        self.tree.expandAll()
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        keys = self.model.keys
        if selected not in keys and keys:
            selected = keys[min(position, len(keys) - 1)]
        index = self.model.find(selected) if selected in keys else QModelIndex()
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        else:
            self.detail.show_note(
                f"No output of {self.family} fails a gate." if not keys else "Select a verdict."
            )

    def _show_header(self) -> None:
        assert self.data is not None
        status = self.data.status
        doubts = len(self.data.doubts())
        self.title.setText(f"{self.family} — gates")
        self.subtitle.setText(
            f"{FailureCounts.of(self.data.failures).text(doubts)} · "
            f"{status['gate_failures']} of {status['outputs']} outputs fail a gate · "
            f"{counted(status['settled_pairs'], 'pair')} settled without a vote · "
            f"{counted(status['pending_pairs'], 'pair')} left for you"
        )

    def _show_doubts(self) -> None:
        assert self.data is not None
        while self.doubt_rows.count():
            taken = self.doubt_rows.takeAt(0)
            assert taken is not None  # count() > 0
            child = taken.widget()
            if child is not None:
                child.deleteLater()
        self.doubt_buttons = {}
        found = self.data.doubts()
        self.doubts.setVisible(bool(found))
        heading = QLabel(
            "<b>Does the prompt ask for another language?</b> Most answers to these cases "
            "are in the same other language, so their Language verdicts settle nothing "
            "until you decide: L sets the case's language, K keeps the one it has."
        )
        heading.setWordWrap(True)
        self.doubt_rows.addWidget(heading, 0, 0, 1, 3)
        for row, doubt in enumerate(found[:DOUBTS_SHOWN], start=1):
            self._doubt_row(row, doubt)
        if len(found) > DOUBTS_SHOWN:
            more = QLabel(
                f"and {counted(len(found) - DOUBTS_SHOWN, 'more case', 'more cases')} in doubt, "
                "in the Language group below."
            )
            self.doubt_rows.addWidget(more, DOUBTS_SHOWN + 1, 0, 1, 3)
        self.doubt_rows.setColumnStretch(0, 1)

    def _doubt_row(self, row: int, doubt: Doubt) -> None:
        assert self.data is not None
        case_id, language = doubt.case_id, doubt.language
        prompt = _excerpt(self.data.case(case_id).prompt)
        label = QLabel(
            f"Case {case_id}: {doubt.outputs} of {doubt.of} answers are in {language} — “{prompt}”"
        )
        label.setTextFormat(Qt.TextFormat.PlainText)
        expects = QPushButton(f"Case expects {language}…")
        expects.clicked.connect(lambda _checked=False: self.correct.set_language(case_id, language))
        keep = QPushButton(f"Keep {self.data.kept_language(case_id)}…")
        keep.clicked.connect(lambda _checked=False: self.correct.confirm_language(case_id))
        for column, widget in enumerate((label, expects, keep)):
            if isinstance(widget, QPushButton):
                widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.doubt_rows.addWidget(widget, row, column)
        self.doubt_buttons[case_id] = (expects, keep)

    def _show_corrections(self) -> None:
        assert self.data is not None
        self.corrections.clear()
        events = self.data.corrections()
        # An empty list would only take room from the verdicts.
        self.corrections.setVisible(bool(events))
        self.corrections_title.setText(
            f"Corrections in force ({len(events)}), newest first — select one and press U "
            "to undo it"
            if events
            else "No corrections in force: O, L, R and Del make one."
        )
        for event in events:
            item = QListWidgetItem(
                f"{self.data.describe(event)} — “{event.note}” "
                f"({event.actor}, {event.at[:16].replace('T', ' ')})"
            )
            item.setData(Qt.ItemDataRole.UserRole, event.event_id)
            self.corrections.addItem(item)

    def _regroup(self) -> None:
        self.grouping = self.group_box.currentData()
        if self.data is not None:
            selected = self.selected_key()
            self._fill_tree(selected, 0)

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        failure = self.failure_at(current)
        if failure is not None and self.data is not None:
            self.detail.show_verdict(self.data, failure)
        elif current.isValid():
            self.detail.show_note(
                f"{current.siblingAtColumn(0).data()}: "
                f"{current.siblingAtColumn(1).data()}. Open the group "
                "(→) and choose a verdict."
            )

    def _ledger_changed(self, _changes: Changes) -> None:
        if self.ledger is not None and self.isVisible():
            self.reload()

    def failure_at(self, index: QModelIndex) -> GateFailure | None:
        key = key_of(index)
        return self.data.find(*key) if key is not None and self.data is not None else None

    def selected_key(self) -> Key | None:
        return key_of(self.tree.currentIndex())

    def selected(self) -> GateFailure | None:
        return self.failure_at(self.tree.currentIndex())

    def status_text(self) -> str:
        if self.data is None:
            return ""
        failing = counted(FailureCounts.of(self.data.failures).failing, "failing verdict")
        doubts = len(self.data.doubts())
        in_doubt = f", {counted(doubts, 'case in doubt', 'cases in doubt')}" if doubts else ""
        return f"{self.family} · gates: {failing}{in_doubt}"

    def say(self, text: str) -> None:
        self.message.setText(text)

    def set_theme(self, theme: Theme) -> None:
        restore = keep_scroll(areas_in(self))  # the page is drawn again: stay where you were
        self.model.muted = QColor(theme.muted)
        self.detail.set_theme(theme)
        if self.data is not None:
            self.reload()
        restore()
