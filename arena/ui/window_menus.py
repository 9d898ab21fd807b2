"""The window's menu bar: File, Vote, Board, View, Settings and Help."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QMessageBox, QWidget

from arena import __version__
from arena.ui.board.round_actions import ActionFactory, BoardHost, RoundActions
from arena.ui.theme import Theme
from arena.ui.window_view import WindowView

VOTE_ACTIONS = ("left", "right", "tie", "both_bad", "skip", "flag", "undo")


class MenuHost(BoardHost, Protocol):
    """What the menus need of the main window (which builds them and imports this)."""

    key_actions: dict[str, QAction]
    theme: Theme
    view: WindowView  # theme, text size and the settings dialog

    def menuBar(self) -> QMenuBar: ...  # noqa: N802 (Qt's name)
    def window(self) -> QWidget: ...
    def choose_ledger(self) -> None: ...
    def choose_import(self) -> None: ...
    def choose_collect(self) -> None: ...
    def close(self) -> bool: ...
    def escape(self) -> None: ...


@dataclass(frozen=True)
class Menus:
    """What the window keeps of its menus."""

    recent: QMenu
    back: QAction
    round_actions: RoundActions
    dark: QAction


def build_menus(window: MenuHost, make: ActionFactory) -> Menus:
    """The menus, their actions made by ``make`` (the window's, which adds each to it)."""
    bar = window.menuBar()
    file = bar.addMenu("&File")
    file.addAction(
        make(
            "&Open ledger…",
            window.choose_ledger,
            QKeySequence.keyBindings(QKeySequence.StandardKey.Open),
        )
    )
    recent = file.addMenu("Open &recent")  # the window fills it when it opens
    file.addAction(make("&Import outputs…", window.choose_import))
    file.addAction(make("&Collect outputs…", window.choose_collect))
    file.addSeparator()
    file.addAction(
        make("&Quit", window.close, QKeySequence.keyBindings(QKeySequence.StandardKey.Quit))
    )
    vote = bar.addMenu("&Vote")
    for name in VOTE_ACTIONS:
        vote.addAction(window.key_actions[name])
    back = make("Back to the family list", window.escape, ["Esc"])
    vote.addSeparator()
    vote.addAction(back)
    round_actions = RoundActions(window, bar.addMenu("&Board"), make)
    view = bar.addMenu("V&iew")
    dark = make(
        "&Dark theme", window.view.toggle_theme, checkable=True, checked=window.theme.name == "dark"
    )
    view.addAction(dark)
    zoom_in = QKeySequence.keyBindings(QKeySequence.StandardKey.ZoomIn)
    view.addAction(
        make("&Bigger text", lambda: window.view.change_font(1), [*zoom_in, QKeySequence("Ctrl+=")])
    )
    view.addAction(
        make(
            "&Smaller text",
            lambda: window.view.change_font(-1),
            QKeySequence.keyBindings(QKeySequence.StandardKey.ZoomOut),
        )
    )
    view.addSeparator()
    view.addAction(window.key_actions["sync"])
    view.addAction(window.key_actions["diff_layout"])
    settings = bar.addMenu("&Settings")
    settings.addAction(make("&Keys and preferences…", window.view.edit_settings))
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(window.key_actions["help"])
    help_menu.addAction(make("&About Arena", lambda: show_about(window.window())))
    return Menus(recent, back, round_actions, dark)


def show_about(parent: QWidget) -> QMessageBox:
    """Help ▸ About Arena: the version, the one ``arena --version`` prints."""
    box = QMessageBox(
        QMessageBox.Icon.Information,
        "About Arena",
        f"Arena {__version__}",
        QMessageBox.StandardButton.Ok,
        parent,
    )
    box.setInformativeText(
        "Judge AI outputs side by side, offline, and publish a leaderboard others can verify."
    )
    box.setObjectName("arena-about")
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
