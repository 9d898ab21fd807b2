"""The View menu and Settings ▸ Keys and preferences: theme, text size, scroll sync, diff
layout and the key map, each remembered in the settings and passed on to the pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QStatusBar, QWidget

from arena.ui.keys import KeyMap
from arena.ui.rating.rating_page import RatingPage
from arena.ui.rating.render_cache import RenderCache
from arena.ui.settings import Settings
from arena.ui.settings_dialog import SettingsDialog
from arena.ui.theme import THEMES, Theme, apply_theme, button_css

if TYPE_CHECKING:
    from arena.ui.judges.judges_page import JudgesPage


class Themed(Protocol):
    def set_theme(self, theme: Theme) -> None: ...


class ViewHost(Protocol):
    """What the view needs of the main window (which builds it and imports this)."""

    settings: Settings
    theme: Theme
    cache: RenderCache
    rating: RatingPage
    key_actions: dict[str, QAction]
    dark_action: QAction
    made_judges: JudgesPage | None  # its pair is drawn at the rating page's size

    def made_pages(self) -> Sequence[Themed]: ...  # the board, gates and flags pages made so far
    def apply_key_map(self, key_map: KeyMap) -> None: ...
    def setStyleSheet(self, sheet: str) -> None: ...  # noqa: N802 (Qt's name)
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 (Qt's name)
    def window(self) -> QWidget: ...  # the top-level widget: the parent of dialogs


class WindowView:
    def __init__(self, host: ViewHost) -> None:
        self.host = host

    def apply_theme(self) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)  # a window only exists inside one
        apply_theme(app, self.host.theme)
        self.host.setStyleSheet(button_css(self.host.theme))

    def toggle_theme(self) -> None:
        host = self.host
        host.theme = THEMES["light" if host.theme.name == "dark" else "dark"]
        host.settings.theme = host.theme.name
        host.dark_action.setChecked(host.theme.name == "dark")
        self.apply_theme()
        host.cache.set_theme(host.theme)
        host.rating.pair_view.set_theme(host.theme, host.settings.font_size)
        for made in host.made_pages():
            made.set_theme(host.theme)

    def change_font(self, step: int) -> None:
        settings = self.host.settings
        settings.font_size = settings.font_size + step
        self.host.rating.pair_view.set_point_size(settings.font_size)
        if self.host.made_judges is not None:
            self.host.made_judges.pair.set_point_size(settings.font_size)

    def toggle_sync(self) -> None:
        settings = self.host.settings
        settings.scroll_sync = not settings.scroll_sync
        self.host.key_actions["sync"].setChecked(settings.scroll_sync)
        self.host.rating.pair_view.set_sync(settings.scroll_sync)
        self.host.statusBar().showMessage(
            f"Scroll sync {'on' if settings.scroll_sync else 'off'}", 3000
        )

    def toggle_diff_layout(self) -> None:
        settings = self.host.settings
        settings.diff_split = not settings.diff_split
        self.host.key_actions["diff_layout"].setChecked(settings.diff_split)
        self.host.rating.pair_view.set_split(settings.diff_split)

    def edit_settings(self) -> None:
        settings = self.host.settings
        dialog = SettingsDialog(settings.key_map, settings.break_minutes, self.host.window())
        if dialog.exec():
            settings.key_map = dialog.key_map()
            settings.break_minutes = dialog.break_minutes.value()
            self.host.rating.break_minutes = settings.break_minutes
            self.host.apply_key_map(settings.key_map)
