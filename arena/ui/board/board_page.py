"""One family's leaderboard: choose a round and a category, read the board and its summary.

The page reads stored rounds through the core (``family_rounds``, ``find_round``) and
never changes the ledger; closing a round is the window's operation, which then
opens this page on the new round.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from arena.graded.board_rows import RANK_RULE, shared_rank_lines
from arena.ledger import Ledger
from arena.rounds.anchor_words import anchor_why, unranked_entry, why_unranked
from arena.rounds.board_vocabulary import (
    FAR_BEHIND,
    POINTS,
    RUN,
    SYSTEM,
    WIDE_MARK,
    preliminary_rule,
)
from arena.rounds.closing import TESTED, find_round
from arena.rounds.listing import family_rounds
from arena.rounds.model import Round
from arena.ui.board.board_delegate import PointsDelegate
from arena.ui.board.board_export import BoardText
from arena.ui.board.board_model import BoardModel
from arena.ui.board.settings_panel import SidePanels
from arena.ui.pages import lay_out_page, page_titles
from arena.ui.tables import pick_rows
from arena.ui.theme import Theme

ALL = "All categories"
# The System column's widest, in average characters: longer labels are elided.
SYSTEM_CHARS = 26
# The Run column's widest (a tests family's agent and turn budget), likewise.
RUN_CHARS = 12
PAGE_BUTTONS = (
    ("close_round", "Close round…"),
    ("export_csv", "Export CSV…"),
    ("export_image", "Export image…"),
)


class BoardTable(QTableView):
    """A table whose Points column takes the room the others leave, so the bars
    grow with the window, but never less than the delegate asks for. The System
    column is as wide as its longest label when there is room, else as wide as
    there is room for (at least ``SYSTEM_CHARS`` characters), its labels elided."""

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.fit_points()

    def fit_points(self) -> None:
        model = self.model()
        if not isinstance(model, BoardModel) or POINTS not in model.columns:
            return
        points = model.columns.index(POINTS)
        header = self.horizontalHeader()
        wanted = self.sizeHintForColumn(points)
        if RUN in model.columns:
            run = model.columns.index(RUN)
            full = max(self.sizeHintForColumn(run), header.sectionSizeHint(run))
            header.resizeSection(run, min(full, RUN_CHARS * self.fontMetrics().averageCharWidth()))
        if SYSTEM in model.columns:
            system = model.columns.index(SYSTEM)
            sizes = [header.sectionSize(c) for c in range(model.columnCount())]
            rest = sum(size for c, size in enumerate(sizes) if c not in (points, system))
            full = max(self.sizeHintForColumn(system), header.sectionSizeHint(system))
            floor = SYSTEM_CHARS * self.fontMetrics().averageCharWidth()
            room = self.viewport().width() - rest - wanted
            header.resizeSection(system, min(full, max(floor, room)))
        others = sum(header.sectionSize(c) for c in range(model.columnCount()) if c != points)
        header.resizeSection(points, max(wanted, self.viewport().width() - others))


def when(closed_at: str) -> str:
    """``2026-11-01T10:00:00.000+00:00`` as ``2026-11-01 10:00 UTC`` (rounds close in UTC)."""
    return closed_at[:16].replace("T", " ") + " UTC"


class BoardPage(QWidget):
    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ledger: Ledger | None = None
        self.family = ""
        self.kind = "votes"
        self.found: Round | None = None
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
        for part in (self.hint, self.table, self.unranked, self.notes):
            board_layout.addWidget(part)
        board_layout.addStretch(1)

        split = QSplitter()
        split.addWidget(board)
        split.addWidget(self.side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 330])

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
        self._round_chosen()

    def clear(self) -> None:
        self.ledger, self.found = None, None
        self.round_box.clear()
        self.model.load(None, self.kind)

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
        kept = self.category
        self.category_box.blockSignals(True)
        self.category_box.clear()
        self.category_box.addItem(ALL, None)
        for name in sorted(self.found.categories) if self.found else []:
            self.category_box.addItem(name, name)
        self.category_box.setCurrentIndex(max(0, self.category_box.findData(kept)))
        self.category_box.blockSignals(False)
        self._category_chosen()

    def _category_chosen(self) -> None:
        category = self.category
        self.model.load(self.found, self.kind, category)
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
        self.hint.setVisible(self.found is None)
        self.hint.setText(
            f"No round of {self.family} has been closed yet. Board ▸ Close "
            "round… fits the points and stores the board here."
        )
        self.unranked.setText(self._unranked_text())
        self.unranked.setVisible(bool(self.model.unranked))
        self.notes.setText("\n".join(self._notes()))
        self.side.show_round(self.found, self.kind, category=category)
        if self.model.rows:
            self.table.selectRow(0)

    # -- text around the table --------------------------------------------------

    def _unranked_text(self) -> str:
        lines = [f"{r.label} — {why_unranked(r.status)}" for r in self.model.unranked]
        return "Not ranked this round:\n" + "\n".join(lines)

    def _notes(self) -> list[str]:
        rows = self.model.rows
        notes = []
        anchor = self.model.anchor
        if anchor is not None and anchor.label and self.found is not None:
            why = anchor_why(anchor.reason, anchor.fallback)
            notes.append(
                f"Points are relative to {anchor.label} = "
                f"{self.found.settings.base:g} ({why}); 400 points apart ≈ "
                "10 : 1 odds of winning."
            )
        if any(self.model.preliminary(r) for r in rows):
            notes.append(f"Preliminary: {preliminary_rule(self.model.threshold)}.")
        if (sure := self.model.uncertainty) is not None and self.model.kind != "graded":
            notes.append(
                "Whiskers: 95% intervals (a bootstrap of the cases, checked in simulation "
                "for boards like this one)."
                if sure.available
                else f"Uncertainty unavailable: {sure.reason}."
            )
        if any(r.far_behind for r in rows):
            notes.append(f"Far behind: {FAR_BEHIND}, left of the axis.")
        if self.model.category is not None:
            notes.append(
                f"{WIDE_MARK}: a family-wide value, the same in every category view (not refitted)."
            )
            if self.model.kind != "tests":
                notes.append(
                    "Votes and Both bad without the mark: this category's own votes, which "
                    "its points and preliminary marks rest on (a dash: not recorded in "
                    "rounds closed before they were)."
                )
        if self.model.kind == "graded" and any(r.ci_method for r in rows):
            notes.append(RANK_RULE[0].upper() + RANK_RULE[1:] + ".")
            notes += shared_rank_lines([r.to_json() for r in rows])
        return notes + self._tested_notes()

    def _tested_notes(self) -> list[str]:
        """A tested board: which time is which, and systems that do not share one agent."""
        if self.found is None or self.kind not in TESTED:
            return []
        notes = [
            "Agent p50 and Cost / solution: the agent's whole run on a task, as imported "
            "with each solution; Test run p50: Arena's run of the hidden tests."
        ]
        record = self.found.settings_record
        if record is not None and record.agents is not None and record.agents.reported:
            notes.append(record.agents.warning(self.family) + ".")
        return notes

    def board_text(self, *, for_image: bool = False) -> BoardText:
        """Title, subtitle and notes of the board shown (an image adds the unranked list)."""
        title = f"{self.family} — leaderboard"
        if self.found is None:
            return BoardText(title, "No round closed yet", [])
        settings = self.found.settings
        weighting: str = settings.weighting
        if settings.cap is not None and weighting == "ledger":
            weighting += f" (cap {settings.cap:g})"
        subtitle = f"Round {self.found.round_id[:12]}, closed {when(self.found.closed_at)}"
        if self.model.kind == "graded":
            subtitle += f" · graded · bootstrap seed {settings.seed}"
        else:
            subtitle += (
                f" · {weighting} weighting, penalty λ {settings.penalty:g}, "
                f"threshold {settings.threshold:g}"
            )
        if self.model.category is not None:
            title += f" · category {self.model.category}"
            subtitle += " · refitted on this category's comparisons"
        if self.found.pooled:
            title += " · pooled with judges " + ", ".join(self.found.pooled)
            subtitle += " · the rater's votes fitted with these judges' verdicts"
        notes = self._notes()
        if for_image and self.model.unranked:
            notes.append(
                "Not ranked: "
                + "; ".join(unranked_entry(r.label, r.status) for r in self.model.unranked)
            )
        return BoardText(title, subtitle, notes)

    def status_text(self) -> str:
        if self.found is None:
            return f"{self.family}: no round yet"
        return (
            f"{self.family} · round {self.found.round_id[:12]} · "
            f"{len(self.model.rows)} ranked, {len(self.model.unranked)} not ranked"
        )

    def set_theme(self, theme: Theme) -> None:
        # A quiet selection: the accent colour is the bars'.
        palette = self.table.palette()
        palette.setColor(QPalette.ColorRole.Highlight, QColor(theme.hunk_bg))
        palette.setColor(QPalette.ColorRole.HighlightedText, QColor(theme.text))
        self.table.setPalette(palette)
        self.delegate.set_theme(theme)
        self.summary.set_theme(theme)
        self.table.viewport().update()
