"""One side of the pair: a rendered Markdown page or a diff view, in a framed pane."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QFont, QTextDocument
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QFrame,
    QLabel,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from arena.ui.rating.diff_view import DiffView
from arena.ui.rating.render_cache import Rendered
from arena.ui.theme import Theme, document_css


class Browser(QTextBrowser):
    """A QTextBrowser that never follows a link or loads an image an output names.

    Outputs are untrusted: a link must not navigate the pane away from the answer,
    and ``![x](/some/local/file)`` must not read the rater's files.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        # The window handles every key (votes, scrolling); a focused browser would
        # swallow arrows and digits.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.shown: QTextDocument | None = None

    def loadResource(self, kind: int, url: QUrl | str) -> object:  # noqa: N802 (Qt override)
        return None

    def display(self, rendered: Rendered) -> None:
        """Show a document the render cache made; held here while shown, since the
        cache may drop it meanwhile."""
        assert rendered.document is not None
        self.shown = rendered.document
        self.setDocument(rendered.document)


def make_browser(theme: Theme, point_size: float, parent: QWidget | None = None) -> Browser:
    browser = Browser(parent)
    style_browser(browser, theme, point_size)
    return browser


def style_browser(browser: QTextBrowser, theme: Theme, point_size: float) -> None:
    font = QFont(browser.font())
    font.setPointSizeF(point_size)
    browser.setFont(font)
    browser.document().setDefaultFont(font)
    browser.document().setDefaultStyleSheet(document_css(theme))


class OutputPane(QFrame):
    """Shows one output; the title says only which side it is, never whose."""

    def __init__(
        self, title: str, theme: Theme, point_size: float, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("pane")
        self.title = QLabel(title)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bold = QFont(self.title.font())
        bold.setBold(True)
        self.title.setFont(bold)
        self.browser = make_browser(theme, point_size)
        self.diff = DiffView()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.browser)
        self.stack.addWidget(self.diff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.stack, 1)
        self._theme = theme
        self._point_size = point_size
        self.set_theme(theme)

    def show_rendered(self, rendered: Rendered, *, split: bool) -> None:
        if rendered.diff is not None:
            self.diff.set_diff(rendered.diff, split=split)
            self.stack.setCurrentWidget(self.diff)
        else:
            self.browser.display(rendered)
            self.stack.setCurrentWidget(self.browser)

    def scroll_area(self) -> QAbstractScrollArea:
        widget = self.stack.currentWidget()
        assert isinstance(widget, QAbstractScrollArea)
        return widget

    def showing_diff(self) -> bool:
        return self.stack.currentWidget() is self.diff

    def set_split(self, split: bool) -> None:
        self.diff.set_split(split)

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        style_browser(self.browser, theme, self._point_size)
        self.diff.set_theme(theme)

    def set_point_size(self, size: float) -> None:
        """The size of the diff view; prose comes in documents of the new size from the
        render cache (``PairView.set_point_size``)."""
        self._point_size = size
        style_browser(self.browser, self._theme, size)
        self.diff.set_point_size(size)

    def set_active(self, active: bool) -> None:
        """Mark the pane the scroll keys move (when scroll sync is off)."""
        self.setProperty("active", active)
        self.style().unpolish(self)
        self.style().polish(self)
