"""The pair on screen: the case prompt above, the two outputs side by side, blind.

A multi-turn case is laid out turn by turn: each turn's question above the two
answers to it, every question on screen at once (``TurnRow``).

Keyboard scrolling lives here because the panes never take focus (see
output_pane.Browser): Up/Down, Page Up/Down, Space, Home/End scroll the active
pane, Shift+←/→ scroll a diff sideways, Tab moves to the next pane (left, right,
prompt; turn by turn in a multi-turn case). With scroll sync on, the other side
follows proportionally.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QFrame,
    QLabel,
    QScrollBar,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from arena.rating.session import PairView as Pair
from arena.ui.rating.output_pane import Browser, OutputPane, make_browser, style_browser
from arena.ui.rating.render_cache import RenderCache, Space
from arena.ui.rating.turns import Turn, pair_turns
from arena.ui.scroll_keep import keep_scroll
from arena.ui.theme import Theme

Action = QAbstractSlider.SliderAction
SCROLL_KEYS = {
    Qt.Key.Key_Down: Action.SliderSingleStepAdd,
    Qt.Key.Key_Up: Action.SliderSingleStepSub,
    Qt.Key.Key_PageDown: Action.SliderPageStepAdd,
    Qt.Key.Key_PageUp: Action.SliderPageStepSub,
    Qt.Key.Key_Space: Action.SliderPageStepAdd,
    Qt.Key.Key_Home: Action.SliderToMinimum,
    Qt.Key.Key_End: Action.SliderToMaximum,
}


# The most of a turn's row its question takes before it scrolls: the answers keep the rest.
QUESTION_SHARE = 0.45


def _mark_active(widget: QWidget, active: bool) -> None:
    widget.setProperty("active", active)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def _above_the_outputs(
    top: QWidget, theme: Theme, point_size: float
) -> tuple[QSplitter, OutputPane, OutputPane]:
    """``top`` above the two outputs side by side, in splitters that collapse no part."""
    left = OutputPane("Left", theme, point_size)
    right = OutputPane("Right", theme, point_size)
    sides = QSplitter(Qt.Orientation.Horizontal)
    sides.addWidget(left)
    sides.addWidget(right)
    sides.setChildrenCollapsible(False)
    split = QSplitter(Qt.Orientation.Vertical)
    split.addWidget(top)
    split.addWidget(sides)
    split.setChildrenCollapsible(False)
    return split, left, right


class TurnRow(QWidget):
    """One turn of a multi-turn case: its question, as tall as it is up to
    ``QUESTION_SHARE`` of the row, above the two answers to it; the rater may drag
    the line between them to read a longer question whole."""

    def __init__(self, theme: Theme, point_size: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setObjectName("category")
        self.question = make_browser(theme, point_size)
        self.question.setMinimumHeight(24)  # a one-line question takes one line
        self.question_box = QFrame()
        self.question_box.setObjectName("pane")
        box = QVBoxLayout(self.question_box)
        box.setContentsMargins(4, 2, 4, 2)
        box.setSpacing(0)
        box.addWidget(self.label)
        box.addWidget(self.question)
        self.split, self.left, self.right = _above_the_outputs(self.question_box, theme, point_size)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)

    def fit_question(self) -> None:
        """The question box as tall as its text (at its width), within its share."""
        document = self.question.document()
        document.setTextWidth(self.question.viewport().width())
        text = math.ceil(document.size().height()) + 2 * self.question.frameWidth() + 2
        box = text + self.question_box.height() - self.question.height()
        total = self.split.height() - self.split.handleWidth()
        question = min(box, int(total * QUESTION_SHARE))
        if self.split.sizes() != [question, total - question]:
            self.split.setSizes([question, total - question])

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        # Once the splitter and the question have their new sizes too.
        QTimer.singleShot(0, self, self.fit_question)


class PairView(QWidget):
    def __init__(
        self,
        cache: RenderCache,
        theme: Theme,
        point_size: float,
        *,
        split: bool,
        sync: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.cache = cache
        self.theme = theme
        self.point_size = point_size
        self.split = split
        self.sync = sync
        self.raw = False
        self.pair: Pair | None = None
        self._syncing = False

        self.category = QLabel()
        self.category.setObjectName("category")
        self.prompt = make_browser(theme, point_size)
        prompt_box = QFrame()
        prompt_box.setObjectName("pane")
        prompt_layout = QVBoxLayout(prompt_box)
        prompt_layout.setContentsMargins(4, 4, 4, 4)
        prompt_layout.addWidget(self.category)
        prompt_layout.addWidget(self.prompt)
        self.prompt_box = prompt_box

        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.hide()

        self.splitter, self.left, self.right = _above_the_outputs(prompt_box, theme, point_size)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)

        # A multi-turn case: its category, then a row a turn (made as cases need them).
        self.turn_category = QLabel()
        self.turn_category.setObjectName("category")
        self.turn_rows: list[TurnRow] = []
        self.turn_splitter = QSplitter(Qt.Orientation.Vertical)
        self.turn_splitter.setChildrenCollapsible(False)
        self.turns_page = QWidget()
        turns_layout = QVBoxLayout(self.turns_page)
        turns_layout.setContentsMargins(0, 0, 0, 0)
        turns_layout.setSpacing(2)
        turns_layout.addWidget(self.turn_category)
        turns_layout.addWidget(self.turn_splitter, 1)
        self.turns: list[Turn] = []

        self.done = QLabel(
            "Nothing left to rate in this family.\n"
            "Press Ctrl+Z to undo the last vote, or Esc for the family list."
        )
        self.done.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.turns_page)
        self.stack.addWidget(self.done)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)

        self._active = 0
        self._link(self.left, self.right)
        self.left.set_active(True)
        cache.space_of = self.space_of

    def _link(self, left: OutputPane, right: OutputPane) -> None:
        """Scroll sync between the two answers of a row."""
        for pane, other in ((left, right), (right, left)):
            for bar in (pane.browser.verticalScrollBar(), pane.diff.verticalScrollBar()):
                bar.valueChanged.connect(lambda _v, b=bar, p=pane, o=other: self._follow(b, p, o))

    # -- the pair -------------------------------------------------------------

    def space_of(self, side: str) -> Space | None:
        """Where the browser of ``side`` shows a document: "left", "right", "prompt", or
        "left-turn", "right-turn", "prompt-turn" in a turn's row (None: no row made yet)."""
        if side.endswith("-turn"):
            if not self.turn_rows:
                return None
            row = self.turn_rows[0]
            browsers = {"left": row.left.browser, "right": row.right.browser}
            browser = browsers.get(side.removesuffix("-turn"), row.question)
        else:
            browser = {"left": self.left.browser, "right": self.right.browser}.get(
                side, self.prompt
            )
        room = browser.maximumViewportSize()
        return Space(room.width(), room.height(), browser.verticalScrollBar().sizeHint().width())

    def show_pair(self, pair: Pair | None) -> None:
        self.pair = pair
        if pair is None:
            self.stack.setCurrentWidget(self.done)
            self.banner.hide()
            self.turns = []
            return
        category = f"Category: {pair.case.category}" if pair.case.category else ""
        if self.raw:
            category += ("  ·  " if category else "") + "Raw text: the exact characters"
        turns = pair_turns(pair.case.prompt, pair.left, pair.right)
        if turns is None:
            if self.turns:  # from a multi-turn case: the prompt and left pane again
                self.turns = []
                self._set_active(0)
            self.stack.setCurrentWidget(self.splitter)
            self.category.setText(category)
            self.prompt.display(self.cache.prompt(pair.case.prompt))
            self.left.show_rendered(self.cache.output(pair.left), split=self.split)
            self.right.show_rendered(self.cache.output(pair.right), split=self.split)
        else:
            self._show_turns(pair, turns, category)
        if pair.identity_leak:
            self.banner.setText(
                f"⚠ Possible identity leak: {pair.identity_leak} "
                "You may still vote; the vote is marked."
            )
            self.banner.show()
        else:
            self.banner.hide()

    def _show_turns(self, pair: Pair, turns: list[Turn], category: str) -> None:
        first, count = not self.turns, len(self.turns)
        self.turns = turns
        while len(self.turn_rows) < len(turns):
            row = TurnRow(self.theme, self.point_size)
            self._link(row.left, row.right)
            self.turn_rows.append(row)
            self.turn_splitter.addWidget(row)
        self.turn_category.setText(category)
        self.turn_category.setVisible(bool(category))
        for number, row in enumerate(self.turn_rows):
            row.setVisible(number < len(turns))
            if number >= len(turns):
                continue
            turn = turns[number]
            row.label.setText(f"Turn {number + 1} of {len(turns)}")
            row.left.title.setText(f"{self.left.title.text()} · turn {number + 1}")
            row.right.title.setText(f"{self.right.title.text()} · turn {number + 1}")
            row.question.display(self.cache.prompt(turn.question))
            row.left.show_rendered(self.cache.turn(pair.left, number, turn.left), split=False)
            row.right.show_rendered(self.cache.turn(pair.right, number, turn.right), split=False)
        self.stack.setCurrentWidget(self.turns_page)
        if count != len(turns):  # rows of equal height; the rater may drag them after
            hidden = len(self.turn_rows) - len(turns)
            self.turn_splitter.setSizes([1] * len(turns) + [0] * hidden)
        for row in self.turn_rows[: len(turns)]:
            row.fit_question()
        if first or self._active >= len(self._stops()):  # fewer turns than the last case
            self._set_active(0)

    def redraw(self) -> None:
        """Render the pair again (after a theme change, whose colours are in the HTML)."""
        if self.pair is not None:
            self.show_pair(self.pair)

    # -- view settings --------------------------------------------------------

    def _browsers(self) -> list[Browser]:
        return [self.prompt] + [row.question for row in self.turn_rows]

    def _panes(self) -> list[OutputPane]:
        return [self.left, self.right] + [
            p for row in self.turn_rows for p in (row.left, row.right)
        ]

    def set_theme(self, theme: Theme, point_size: float) -> None:
        self.theme = theme
        restore = self._keep_scroll()
        for browser in self._browsers():
            style_browser(browser, theme, point_size)
        for pane in self._panes():
            pane.set_theme(theme)
        self.redraw()
        restore()

    def set_point_size(self, size: float) -> None:
        self.point_size = size
        restore = self._keep_scroll()
        self.cache.set_point_size(size)
        for browser in self._browsers():
            style_browser(browser, self.cache.theme, size)
        for pane in self._panes():
            pane.set_point_size(size)
        self.redraw()
        restore()

    def set_raw(self, raw: bool) -> None:
        """Show the exact characters (``raw``) or the rendered Markdown."""
        if raw == self.raw:
            return
        self.raw = raw
        self.cache.set_raw(raw)
        self.redraw()

    def _keep_scroll(self) -> Callable[[], None]:
        """Where the panes are scrolled to, kept across a redraw (each side goes back to
        its own place: scroll sync waits meanwhile)."""
        return keep_scroll(
            [pane.scroll_area() for pane in self._panes()] + list(self._browsers()),
            around=lambda restoring: setattr(self, "_syncing", restoring),
        )

    def set_split(self, split: bool) -> None:
        self.split = split
        for pane in (self.left, self.right):
            pane.set_split(split)

    def set_sync(self, sync: bool) -> None:
        self.sync = sync
        if sync:
            for left, right in self._rows():
                self._follow(left.scroll_area().verticalScrollBar(), left, right)

    # -- scrolling ------------------------------------------------------------

    def _rows(self) -> list[tuple[OutputPane, OutputPane]]:
        """The answers shown side by side: one row, or one a turn."""
        if self.turns:
            return [(row.left, row.right) for row in self.turn_rows[: len(self.turns)]]
        return [(self.left, self.right)]

    def _follow(self, bar: QScrollBar, source: OutputPane, target: OutputPane) -> None:
        """Proportional sync: the other side shows the same share of its length."""
        if not self.sync or self._syncing or bar is not source.scroll_area().verticalScrollBar():
            return
        other = target.scroll_area().verticalScrollBar()
        share = bar.value() / bar.maximum() if bar.maximum() else 0.0
        self._syncing = True
        try:
            other.setValue(round(share * other.maximum()))
        finally:
            self._syncing = False

    def _stops(self) -> list[OutputPane | TurnRow | QFrame]:
        """Where Tab goes, in order: left, right, prompt; turn by turn in a multi-turn case."""
        if self.turns:
            rows = self.turn_rows[: len(self.turns)]
            return [stop for row in rows for stop in (row.left, row.right, row)]
        return [self.left, self.right, self.prompt_box]

    def active_area(self) -> QAbstractScrollArea:
        stop = self._stops()[self._active]
        if isinstance(stop, OutputPane):
            return stop.scroll_area()
        return stop.question if isinstance(stop, TurnRow) else self.prompt

    def _set_active(self, index: int) -> None:
        self._active = index
        active = self._stops()[index]
        for pane in self._panes():
            pane.set_active(pane is active)
        _mark_active(self.prompt_box, active is self.prompt_box)
        for row in self.turn_rows:
            _mark_active(row.question_box, active is row)

    def next_pane(self) -> None:
        self._set_active((self._active + 1) % len(self._stops()))

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 (Qt override)
        return False  # Tab switches panes here instead of moving focus to a button

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        key = Qt.Key(event.key())
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if key == Qt.Key.Key_Tab:
            self.next_pane()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right) and shift:
            bar = self.active_area().horizontalScrollBar()
            bar.triggerAction(
                Action.SliderPageStepSub if key == Qt.Key.Key_Left else Action.SliderPageStepAdd
            )
        elif key in SCROLL_KEYS:
            action = SCROLL_KEYS[key]
            if key == Qt.Key.Key_Space and shift:
                action = Action.SliderPageStepSub
            self.active_area().verticalScrollBar().triggerAction(action)
        else:
            super().keyPressEvent(event)
