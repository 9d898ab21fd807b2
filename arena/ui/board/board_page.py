"""One family's leaderboard: choose a round and a category, read the board and its summary.

The page reads stored rounds through the core (``family_rounds``, ``find_round``) and
never changes the ledger; closing a round is the window's operation, which then
opens this page on the new round.

While the rater votes, the page can show a preview instead (``PREVIEW_KEY``): the fit of
the votes so far (``arena.rounds.preview``), refitted off the window's thread
(``PreviewRefresh``), marked as a preview in the title, a banner, the status line and
the side panel, and never exported. It is what the page opens on when the family has
votes newer than its last round (or votes and no round).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arena.ledger import Ledger
from arena.records import VOTED_KINDS
from arena.rounds.board_vocabulary import (
    POINTS,
    RUN,
    SYSTEM,
)
from arena.rounds.closing import find_round
from arena.rounds.listing import family_rounds
from arena.rounds.model import Round
from arena.rounds.preview import Preview, fitted_heads, newer
from arena.ui.board.board_delegate import PointsDelegate
from arena.ui.board.board_model import BoardModel
from arena.ui.board.board_table import BoardTable
from arena.ui.board.board_texts import BoardTexts, when
from arena.ui.board.preview_refresh import PreviewRefresh
from arena.ui.board.settings_panel import SidePanels
from arena.ui.keys import NEXT_RATER_KEY, PREVIEW_KEY, page_action
from arena.ui.operations import Changes
from arena.ui.pages import lay_out_page, page_titles, two_panes
from arena.ui.tables import pick_rows
from arena.ui.theme import Theme

ALL = "All categories"
PAGE_BUTTONS = (
    ("close_round", "Close round…"),
    ("export_csv", "Export CSV…"),
    ("export_image", "Export image…"),
)
BUTTON_TIPS = {
    "close_round": "Re-runs the gates, fits the votes and stores a round: the board "
    "anyone can export and verify (a preview is never stored).",
    "export_csv": "Export the round shown (a preview is not exported: close a round).",
    "export_image": "Export the round shown (a preview is not exported: close a round).",
}


class BoardPage(BoardTexts, QWidget):
    # What the page shows changed (the preview or a round): the status line and the
    # exports follow.
    shown_changed = Signal()

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ledger: Ledger | None = None
        self.family = ""
        self.kind = "votes"
        self.found: Round | None = None
        # The preview of the votes so far, and whether it is what the page shows.
        self.preview: Preview | None = None
        self.previewing = False
        self.preview_problem = ""
        self.refresh = PreviewRefresh(self)
        self.refresh.ready.connect(self._preview_ready)
        self.refresh.failed.connect(self._preview_failed)
        self.model = BoardModel()
        self.delegate = PointsDelegate(self.model, theme)

        self.title, self.subtitle = page_titles()
        self.round_box = QComboBox()
        self.round_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.category_box = QComboBox()
        self.category_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        round_label = QLabel("R&ound:")
        round_label.setBuddy(self.round_box)
        category_label = QLabel("Ca&tegory:")
        category_label.setBuddy(self.category_box)
        self.button_row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        self.side = SidePanels(theme)
        self.summary = self.side.summary
        controls = QHBoxLayout()
        # The preview or the last round, one key away (while this page has the focus).
        self.preview_button = QPushButton()
        self.preview_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.preview_button.setCheckable(True)
        preview_action = page_action(
            self,
            "Preview of the votes so far, or the last round",
            (PREVIEW_KEY,),
            self.toggle_preview,
            owner=self,
        )
        self.preview_button.clicked.connect(preview_action.trigger)
        # A round of several raters: the next one's own figures in the summary.
        page_action(
            self, "Next rater's figures", (NEXT_RATER_KEY,), self.summary.next_rater, owner=self
        )
        controls.addWidget(self.preview_button)
        for widget in (round_label, self.round_box, category_label, self.category_box):
            controls.addWidget(widget)
        # The round settings, one key away from the summary (and back).
        controls.addWidget(self.side.toggle_button(self))
        controls.addStretch(1)
        controls.addLayout(self.button_row)

        self.table = BoardTable()
        self.table.setModel(self.model)
        pick_rows(self.table)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        # A long label (``20241029_OpenHands-CodeAct-2.1-sonnet-20241022``) is elided in
        # the middle, where such labels differ least; its tooltip gives it whole.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(30)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.hide()
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.unranked = QLabel()
        self.unranked.setWordWrap(True)
        self.notes = QLabel()
        self.notes.setObjectName("muted")
        self.notes.setWordWrap(True)
        board = QWidget()
        board_layout = QVBoxLayout(board)
        board_layout.setContentsMargins(0, 0, 0, 0)
        for part in (self.banner, self.hint, self.table, self.unranked, self.notes):
            board_layout.addWidget(part)
        board_layout.addStretch(1)

        split = two_panes(board, self.side, stretch=(3, 1), widths=(900, 330))

        lay_out_page(self, (self.title, self.subtitle), controls, split)
        self.setFocusProxy(self.table)
        self.set_theme(theme)
        self.round_box.currentIndexChanged.connect(self._round_chosen)
        self.category_box.currentIndexChanged.connect(self._category_chosen)

    def bind(self, actions: dict[str, QAction]) -> None:
        """Buttons for the window's round actions (close, export); they never take focus."""
        for name, label in PAGE_BUTTONS:
            button = QPushButton(label)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(actions[name].trigger)
            actions[name].enabledChanged.connect(button.setEnabled)
            button.setEnabled(actions[name].isEnabled())
            button.setToolTip(BUTTON_TIPS[name])
            self.buttons[name] = button
            self.button_row.addWidget(button)

    # -- what is shown ----------------------------------------------------------

    def load(self, ledger: Ledger, family: str, round_id: str | None = None) -> None:
        """Show ``family``'s rounds, on ``round_id`` or the newest."""
        self.ledger, self.family = ledger, family
        listed = family_rounds(ledger, family)
        self.kind = listed.kind
        self.round_box.blockSignals(True)
        self.round_box.clear()
        for i, entry in enumerate(listed.rounds):
            newest = "  (newest)" if i == 0 else ""
            pooled = " · pooled with judges" if entry.pooled else ""
            self.round_box.addItem(
                f"{when(entry.closed_at)} · {entry.round_id[:8]}{pooled}{newest}",
                entry.round_id,
            )
        self.round_box.setCurrentIndex(max(0, self.round_box.findData(round_id)))
        self.round_box.blockSignals(False)
        if self.offers_preview:
            self.refresh.watch(ledger.path, family)
        else:
            self.refresh.stop()
        if self.preview is not None and self.preview.family != family:
            self.preview = None
        self.previewing = False
        self._round_chosen()
        # A round asked for is shown; else the preview, when votes came after the last round.
        if round_id is None and self.offers_preview:
            heads = fitted_heads(ledger, family)
            if newer(heads, self.found):
                self._show_preview(heads)

    @property
    def offers_preview(self) -> bool:
        """Whether the family shown has a preview: a voted family of a ledger file (a
        worker reads it on a connection of its own)."""
        ledger = self.ledger
        return ledger is not None and self.kind in VOTED_KINDS and ledger.path != ":memory:"

    @property
    def round_shown(self) -> Round | None:
        """The stored round the board shows (None on the preview): what may be exported."""
        return None if self.previewing else self.found

    def clear(self) -> None:
        self.ledger, self.found = None, None
        self.refresh.close()
        self.preview, self.previewing, self.preview_problem = None, False, ""
        self.round_box.clear()
        self.model.load(None, self.kind)

    def ledger_changed(self, changes: Changes) -> None:
        """A write to a family (a vote, a correction…): its preview is refitted soon after,
        off the window's thread. Nothing is read here: a vote goes on to the next pair."""
        if changes.family == self.family:
            self.refresh.poke()

    def toggle_preview(self) -> None:
        """Show the preview of the votes so far, or the round chosen, in turn."""
        if self.ledger is None or not self.offers_preview:
            return
        if self.previewing:
            self.previewing = False
            self._round_chosen()
        else:
            self._show_preview(fitted_heads(self.ledger, self.family))

    def _show_preview(self, heads: dict) -> None:
        self.previewing = True
        if self.preview is None or newer(heads, self.preview):
            self.refresh.now()
        self._fill_categories()

    def _preview_ready(self, preview: Preview) -> None:
        self.preview, self.preview_problem = preview, ""
        # Hidden (the rater votes), the page is drawn when shown: nothing more to do now.
        if not self.isVisible():
            return
        if self.previewing:
            self._fill_categories()
        else:
            self._show_controls()

    def _preview_failed(self, why: str) -> None:
        self.preview_problem = why
        if self.previewing:
            self._fill_categories()

    @property
    def category(self) -> str | None:
        data = self.category_box.currentData()
        return data if isinstance(data, str) else None

    def choose_round(self, round_id: str) -> None:
        self.round_box.setCurrentIndex(self.round_box.findData(round_id))

    def choose_category(self, category: str | None) -> None:
        self.category_box.setCurrentIndex(max(0, self.category_box.findData(category)))

    def _round_chosen(self) -> None:
        round_id = self.round_box.currentData()
        self.found = (
            find_round(self.ledger, round_id) if self.ledger is not None and round_id else None
        )
        self.previewing = False
        self._fill_categories()

    def _fill_categories(self) -> None:
        kept, shown = self.category, self.shown
        self.category_box.blockSignals(True)
        self.category_box.clear()
        self.category_box.addItem(ALL, None)
        for name in sorted(shown.categories) if shown else []:
            self.category_box.addItem(name, name)
        self.category_box.setCurrentIndex(max(0, self.category_box.findData(kept)))
        self.category_box.blockSignals(False)
        self._category_chosen()

    def _category_chosen(self) -> None:
        category = self.category
        self.model.load(self.shown, self.kind, category)
        header = self.table.horizontalHeader()
        for column in range(self.model.columnCount()):
            is_points = self.model.columns[column] is POINTS
            delegate = self.delegate if is_points else None
            # None (nullptr) is Qt's documented way to remove a column's delegate;
            # PySide6's stubs leave None out of this parameter.
            self.table.setItemDelegateForColumn(column, delegate)  # type: ignore[arg-type]
            header.setSectionResizeMode(
                column,
                QHeaderView.ResizeMode.Interactive
                if is_points
                else QHeaderView.ResizeMode.ResizeToContents,
            )
        for elided in (SYSTEM, RUN):
            if elided in self.model.columns:
                # Sized by fit_points: a long label gives way to the other columns.
                header.setSectionResizeMode(
                    self.model.columns.index(elided), QHeaderView.ResizeMode.Interactive
                )
        self.table.resizeColumnsToContents()
        self.table.fit_points()
        # The table is as tall as its rows (up to the room there is), so the systems
        # without points read as the list right below it.
        rows = self.table.verticalHeader().length()
        scroll = self.table.horizontalScrollBar().sizeHint().height()
        self.table.setMaximumHeight(
            header.sizeHint().height() + rows + scroll + 2 * self.table.frameWidth()
        )
        text = self.board_text()
        self.title.setText(text.title)
        self.subtitle.setText(text.subtitle)
        self.hint.setVisible(self.shown is None)
        self.hint.setText(
            (self.preview_problem or "Fitting the votes so far…")
            if self.previewing
            else f"No round of {self.family} has been closed yet. Board ▸ Close "
            "round… fits the points and stores the board here."
        )
        self.unranked.setText(self._unranked_text())
        self.unranked.setVisible(bool(self.model.unranked))
        self.notes.setText("\n".join(self._notes()))
        if self.previewing:
            self.side.show_preview(self.preview, self.kind)
        else:
            self.side.show_round(
                self.found, self.kind, category=category, keyboard=self.keyboard_rater()
            )
        self._show_controls()
        if self.model.rows:
            self.table.selectRow(0)

    def keyboard_rater(self) -> str | None:
        """The person at the keyboard, as the window knows them (else as the ledger does)."""
        rater = getattr(self.window(), "rater", None)
        if isinstance(rater, str):
            return rater
        if self.ledger is None:
            return None
        from arena.rating.raters import DEFAULT_RATER, at_keyboard

        return at_keyboard(self.ledger) or DEFAULT_RATER

    def _show_controls(self) -> None:
        """The banner, the preview button and the exports, as what is shown allows."""
        self.banner.setVisible(self.previewing)
        self.banner.setText(self._banner_text())
        self.round_box.setEnabled(not self.previewing)
        self.preview_button.setVisible(self.offers_preview)
        self.preview_button.setChecked(self.previewing)
        newer_votes = not self.previewing and self.preview is not None
        self.preview_button.setText(
            f"Preview{' (newer votes)' if newer_votes else ''}  [{PREVIEW_KEY}]"
        )
        self.preview_button.setToolTip(
            "Show the last round" if self.previewing else "Show the fit of the votes so far"
        )
        self.shown_changed.emit()

    def set_theme(self, theme: Theme) -> None:
        # A quiet selection: the accent colour is the bars'.
        palette = self.table.palette()
        palette.setColor(QPalette.ColorRole.Highlight, QColor(theme.hunk_bg))
        palette.setColor(QPalette.ColorRole.HighlightedText, QColor(theme.text))
        self.table.setPalette(palette)
        self.delegate.set_theme(theme)
        self.summary.set_theme(theme)
        self.table.viewport().update()
