"""The pair on screen: the case prompt above, the two outputs side by side, blind.

Keyboard scrolling lives here because the panes never take focus (see
output_pane.Browser): Up/Down, Page Up/Down, Space, Home/End scroll the active
pane, Shift+←/→ scroll a diff sideways, Tab moves to the next pane (left, right,
prompt). With scroll sync on, the other side follows proportionally.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
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
from arena.ui.rating.output_pane import OutputPane, make_browser, style_browser
from arena.ui.rating.render_cache import RenderCache, Space
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
        self.split = split
        self.sync = sync
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

        self.left = OutputPane("Left", theme, point_size)
        self.right = OutputPane("Right", theme, point_size)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.left)
        sides.addWidget(self.right)
        sides.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(prompt_box)
        self.splitter.addWidget(sides)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)

        self.done = QLabel(
            "Nothing left to rate in this family.\n"
            "Press Ctrl+Z to undo the last vote, or Esc for the family list."
        )
        self.done.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.done)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        layout.addWidget(self.stack, 1)

        self._areas = [self.left, self.right]
        self._active = 0
        for pane, other in ((self.left, self.right), (self.right, self.left)):
            for bar in (pane.browser.verticalScrollBar(), pane.diff.verticalScrollBar()):
                bar.valueChanged.connect(lambda _v, b=bar, p=pane, o=other: self._follow(b, p, o))
        self.left.set_active(True)
        cache.space_of = self.space_of

    # -- the pair -------------------------------------------------------------

    def space_of(self, side: str) -> Space:
        """Where the browser of ``side`` ("left", "right", "prompt") shows a document."""
        browser = {"left": self.left.browser, "right": self.right.browser}.get(side, self.prompt)
        room = browser.maximumViewportSize()
        return Space(room.width(), room.height(), browser.verticalScrollBar().sizeHint().width())

    def show_pair(self, pair: Pair | None) -> None:
        self.pair = pair
        if pair is None:
            self.stack.setCurrentWidget(self.done)
            self.banner.hide()
            return
        self.stack.setCurrentWidget(self.splitter)
        self.category.setText(f"Category: {pair.case.category}" if pair.case.category else "")
        self.prompt.display(self.cache.prompt(pair.case.prompt))
        self.left.show_rendered(self.cache.output(pair.left), split=self.split)
        self.right.show_rendered(self.cache.output(pair.right), split=self.split)
        if pair.identity_leak:
            self.banner.setText(
                f"⚠ Possible identity leak: {pair.identity_leak} "
                "You may still vote; the vote is marked."
            )
            self.banner.show()
        else:
            self.banner.hide()

    def redraw(self) -> None:
        """Render the pair again (after a theme change, whose colours are in the HTML)."""
        if self.pair is not None:
            self.show_pair(self.pair)

    # -- view settings --------------------------------------------------------

    def set_theme(self, theme: Theme, point_size: float) -> None:
        restore = self._keep_scroll()
        style_browser(self.prompt, theme, point_size)
        for pane in (self.left, self.right):
            pane.set_theme(theme)
        self.redraw()
        restore()

    def set_point_size(self, size: float) -> None:
        restore = self._keep_scroll()
        self.cache.set_point_size(size)
        style_browser(self.prompt, self.cache.theme, size)
        for pane in (self.left, self.right):
            pane.set_point_size(size)
        self.redraw()
        restore()

    def _keep_scroll(self) -> Callable[[], None]:
        """Where the panes are scrolled to, kept across a redraw (each side goes back to
        its own place: scroll sync waits meanwhile)."""
        return keep_scroll(
            (self.left.scroll_area(), self.right.scroll_area(), self.prompt),
            around=lambda restoring: setattr(self, "_syncing", restoring),
        )

    def set_split(self, split: bool) -> None:
        self.split = split
        for pane in (self.left, self.right):
            pane.set_split(split)

    def set_sync(self, sync: bool) -> None:
        self.sync = sync
        if sync:
            self._follow(self.left.scroll_area().verticalScrollBar(), self.left, self.right)

    # -- scrolling ------------------------------------------------------------

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

    def active_area(self):
        if self._active == 2:
            return self.prompt
        return self._areas[self._active].scroll_area()

    def next_pane(self) -> None:
        self._active = (self._active + 1) % 3
        self.left.set_active(self._active == 0)
        self.right.set_active(self._active == 1)
        self.prompt_box.setProperty("active", self._active == 2)
        self.prompt_box.style().unpolish(self.prompt_box)
        self.prompt_box.style().polish(self.prompt_box)

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
