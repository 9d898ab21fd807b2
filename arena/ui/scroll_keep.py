"""Scroll positions kept across a redraw (a theme or a text size change).

A redraw sets a pane's text again, which scrolls it back to the top; the rater
should stay where they were. Positions are kept as a share of each bar's range,
since a new text size changes the length of what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from functools import partial

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractScrollArea, QScrollBar, QWidget

# How long after a redraw the panes follow their text's final length.
SETTLE_MS = 300


def areas_in(root: QWidget) -> list[QAbstractScrollArea]:
    """Every scrolled area inside ``root`` (lists, tables, text boxes)."""
    return root.findChildren(QAbstractScrollArea)


def keep_scroll(
    areas: Iterable[QAbstractScrollArea], around: Callable[[bool], None] | None = None
) -> Callable[[], None]:
    """Note where ``areas`` are scrolled to; the function returned puts them back there,
    at once and again each time a bar's range changes while Qt lays the new content out
    (for ``SETTLE_MS``). ``around(True)`` and ``around(False)`` bracket each restore."""
    bars: list[QScrollBar] = []
    for area in areas:
        bars += [area.verticalScrollBar(), area.horizontalScrollBar()]
    shares = [(bar, bar.value() / bar.maximum() if bar.maximum() else 0.0) for bar in bars]

    def put(bar: QScrollBar, share: float, *_range: int) -> None:
        if around is not None:
            around(True)
        try:
            bar.setValue(round(share * bar.maximum()))
        finally:
            if around is not None:
                around(False)

    def restore() -> None:
        followers = []
        for bar, share in shares:
            put(bar, share)
            follow = partial(put, bar, share)
            bar.rangeChanged.connect(follow)
            followers.append((bar, follow))

        def settled() -> None:
            for bar, follow in followers:
                with suppress(RuntimeError):  # its window may be closed by now
                    bar.rangeChanged.disconnect(follow)

        if followers:  # the timer goes with the bars' window
            QTimer.singleShot(SETTLE_MS, followers[0][0], settled)

    return restore
