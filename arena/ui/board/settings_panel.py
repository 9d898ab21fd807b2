"""Beside the board: the round summary, or one key away (``SETTINGS_KEY``) the round's
settings, one named line each, as `arena round show` prints them under "Round settings"."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from arena.rounds.model import Round
from arena.rounds.preview import NOT_A_ROUND, Preview
from arena.rounds.settings_text import settings_lines
from arena.ui.board.summary_panel import SummaryPanel
from arena.ui.keys import SETTINGS_KEY, page_action
from arena.ui.theme import Theme


class SettingsPanel(QFrame):
    """The round's settings record: point method, anchor, weighting, threshold, coverage,
    pair design, seeds, case set, agents, family settings, corrections and software."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summary")
        heading = QLabel("Round settings")
        heading.setObjectName("summary-heading")
        self.items = QLabel()
        self.items.setTextFormat(Qt.TextFormat.RichText)
        self.items.setWordWrap(True)
        self.items.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.items)
        layout.addStretch(1)

    def show_round(self, found: Round | None, kind: str) -> None:
        if found is None:
            self.items.setText("No round closed yet.")
            return
        self.items.setText(
            "<br><br>".join(
                f"<span style='font-weight:600'>{html.escape(name[0].upper() + name[1:])}"
                f"</span><br>{html.escape(text)}"
                for name, text in settings_lines(kind, found)
            )
        )


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return area


class SidePanels(QStackedWidget):
    """The round summary and the round settings, one shown at a time (``toggle``)."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = SummaryPanel(theme)
        self.settings = SettingsPanel()
        self.addWidget(_scrolled(self.summary))
        self.addWidget(_scrolled(self.settings))

        self.button = QPushButton()
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._label()

    def toggle_button(self, page: QWidget) -> QPushButton:
        """The button that toggles the panels, its key (``SETTINGS_KEY``) acting while
        ``page`` has the focus, like the Gates page's keys: elsewhere it is the rater's."""
        action = page_action(page, "Round settings", (SETTINGS_KEY,), self.toggle, owner=page)
        self.button.clicked.connect(action.trigger)
        return self.button

    @property
    def showing_settings(self) -> bool:
        return self.currentIndex() == 1

    def toggle(self) -> None:
        """Show the round's settings instead of its summary, or the summary again."""
        self.setCurrentIndex(1 - self.currentIndex())
        self._label()

    def _label(self) -> None:
        shown = "Round summary" if self.showing_settings else "Round settings"
        self.button.setText(f"{shown}  [{SETTINGS_KEY}]")

    def show_round(
        self, found: Round | None, kind: str, *, category: str | None, keyboard: str | None = None
    ) -> None:
        self.summary.show_round(found, kind, category=category, keyboard=keyboard)
        self.settings.show_round(found, kind)

    def show_preview(self, preview: Preview | None, kind: str) -> None:
        """Beside a preview: what it fits with, and that the summary comes with a round."""
        self.summary.show_round(None, kind, category=None)
        self.summary.heading.setText("Round summary: at close")
        self.summary.limits_title.setText(NOT_A_ROUND[0].upper() + NOT_A_ROUND[1:])
        self.summary.limits.setText(
            "The preview fits the votes alone: rater agreement, split-half τ, side "
            "preference, length bias and the votes left out come with a round."
        )
        self.summary.limits_title.show()
        self.summary.limits.show()
        if preview is None:
            self.settings.items.setText(f"{NOT_A_ROUND[0].upper()}{NOT_A_ROUND[1:]}.")
            return
        settings = preview.settings
        lines = (
            ("Preview", f"{NOT_A_ROUND}: stored nowhere, never exported"),
            (
                "Settings",
                f"the defaults a round closes with: {settings.weighting} weighting, penalty "
                f"λ {settings.penalty:g}, threshold {settings.threshold:g}, base "
                f"{settings.base:g}, the rater's votes alone",
            ),
            ("Gates", "the verdicts as last read (closing a round runs the gates again)"),
            ("Intervals", "at close (the preview skips the bootstrap)"),
        )
        self.settings.items.setText(
            "<br><br>".join(
                f"<span style='font-weight:600'>{html.escape(name)}</span><br>{html.escape(text)}"
                for name, text in lines
            )
        )
