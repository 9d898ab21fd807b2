"""What the window's family pages (Board, Flags, Gates) share: a title and a muted line
under it, a row of controls, and the page's body, which takes the height the rest leave."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget


def page_titles() -> tuple[QLabel, QLabel]:
    """A page's title and the muted line under it (the theme styles both by name)."""
    title = QLabel()
    title.setObjectName("board-title")
    subtitle = QLabel()
    subtitle.setObjectName("muted")
    return title, subtitle


def two_panes(
    first: QWidget, second: QWidget, *, stretch: tuple[int, int], widths: tuple[int, int]
) -> QSplitter:
    """``first`` beside ``second``, sharing spare width as ``stretch`` says and opening at
    ``widths`` (a 1280-pixel window's)."""
    split = QSplitter()
    for i, pane in enumerate((first, second)):
        split.addWidget(pane)
        split.setStretchFactor(i, stretch[i])
    split.setSizes(list(widths))
    return split


def lay_out_page(
    page: QWidget,
    heading: Sequence[QWidget],
    controls: QHBoxLayout,
    body: QWidget,
    footer: QWidget | None = None,
) -> None:
    """``heading``, ``controls``, ``body`` and ``footer`` down ``page``, the body taking
    the spare height, so every page sits at the same margins."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(10, 8, 10, 8)
    for widget in heading:
        layout.addWidget(widget)
    layout.addLayout(controls)
    layout.addWidget(body, 1)
    if footer is not None:
        layout.addWidget(footer)
