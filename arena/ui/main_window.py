"""The rater window: a ledger's families, then one family's pairs, board or gates.

The window owns the ledger connection, the key actions (built from the key map
in the settings) and the one ``LedgerOps`` every write goes through. Views listen
to ``LedgerOps.changed`` and read in its ``Changes`` what to redraw.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

from arena import __version__
from arena.ledger import Ledger
from arena.rating import raters
from arena.ui.board.round_actions import RoundActions
from arena.ui.family_list import FamilyList
from arena.ui.help_overlay import HelpOverlay
from arena.ui.keys import ACTIONS, RATER_KEY, KeyMap, make_action
from arena.ui.operations import Changes, LedgerOps, show_error
from arena.ui.rating.rating_page import RatingPage
from arena.ui.rating.render_cache import RenderCache
from arena.ui.settings import Settings
from arena.ui.settings_dialog import SettingsDialog
from arena.ui.theme import THEMES, button_css
from arena.ui.theme import apply_theme as apply_app_theme

if TYPE_CHECKING:
    from arena.ui.board.board_page import BoardPage
    from arena.ui.gates.gates_page import GatesPage
    from arena.ui.judges.judges_page import JudgesPage
    from arena.ui.rating.flags_page import FlagsPage
Page = TypeVar("Page", bound=QWidget)
INPUT_EVENTS = (QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.Wheel)
LEDGER_FILES = "Arena ledgers (*.sqlite *.db);;All files (*)"
VOTE_ACTIONS = ("left", "right", "tie", "both_bad", "skip", "flag", "undo")


def _app() -> QApplication:
    """The running application: a window only exists inside a QApplication."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


def ledger_title(path: Path, *, read_only: bool) -> str:
    """The title naming the ledger open: its file and folder (many are ``arena.sqlite``)."""
    folder, home = path.resolve().parent, Path.home()
    shown = str(folder)
    if folder == home:
        shown = "~"
    elif folder.is_relative_to(home):
        shown = f"~/{folder.relative_to(home)}"
    return f"{path.name} ({shown}){' (read-only)' if read_only else ''} — Arena"


class MainWindow(QMainWindow):
    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.monotonic,
        rater: str | None = None,
    ) -> None:
        """``rater``: who is voting, named on the command line (``--rater``): it stands
        for every ledger opened, and is not remembered."""
        super().__init__()
        self.settings = settings
        self.given_rater = None if rater is None else raters.checked(rater)
        # Who votes at the open ledger: None until known (``rater``).
        self.keyboard_rater: str | None = None
        self.theme = THEMES[settings.theme]
        self.ledger: Ledger | None = None
        self.ops = LedgerOps(self)
        self.cache = RenderCache(self.theme, settings.font_size, self)
        self.families = FamilyList()
        self.rating = RatingPage(
            self.ops,
            self.cache,
            self.theme,
            settings.font_size,
            split=settings.diff_split,
            sync=settings.scroll_sync,
            break_minutes=settings.break_minutes,
            clock=clock,
        )
        # The Board and Gates pages, made when first shown (``board``, ``gates``).
        self.made_board: BoardPage | None = None
        self.made_gates: GatesPage | None = None
        self.made_flags: FlagsPage | None = None
        self.made_judges: JudgesPage | None = None
        # The page the Gates (or Flags) page was opened from, where Esc goes back to.
        self.gates_from: QWidget = self.families
        self.pages = QStackedWidget()
        for page in (self.families, self.rating):
            self.pages.addWidget(page)
        self.setCentralWidget(self.pages)
        self.overlay = HelpOverlay(self.pages)
        self.status = QLabel()
        self.statusBar().addPermanentWidget(self.status)

        self.key_actions = self._key_actions()
        self.rating.bind(self.key_actions)
        self._build_menus()
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.rating.offer_next(self.round_actions.close_round, self.show_board, self.show_families)
        self.apply_key_map(settings.key_map)
        self._set_rating_actions(False)
        self.pages.currentChanged.connect(lambda _index: self.round_actions.update())
        self.round_actions.update()

        self.families.chosen.connect(self.open_family)
        self.ops.changed.connect(self._ledger_changed)
        self.rating.status_changed.connect(self._update_status)
        self.setAcceptDrops(True)
        self.setWindowTitle("Arena")
        self.apply_theme()
        if settings.geometry is not None:
            self.restoreGeometry(settings.geometry)
        else:
            self.resize(1280, 800)
        _app().installEventFilter(self)
        if settings.problem:
            QTimer.singleShot(0, lambda: show_error(self, settings.problem))

    # -- actions and menus ----------------------------------------------------

    def _action(
        self, text: str, slot: Callable[[], object], keys: list | None = None, **how: bool
    ) -> QAction:
        action = make_action(self, text, slot, keys, **how)
        self.addAction(action)
        return action

    def _key_actions(self) -> dict[str, QAction]:
        slots: dict[str, Callable[[], object]] = {
            "left": lambda: self.rating.vote("left"),
            "right": lambda: self.rating.vote("right"),
            "tie": lambda: self.rating.vote("tie"),
            "both_bad": lambda: self.rating.vote("both_bad"),
            "skip": self.rating.skip,
            "flag": self.rating.flag,
            "undo": self.rating.undo,
            "help": self.overlay.toggle,
            "sync": self.toggle_sync,
            "diff_layout": self.toggle_diff_layout,
            "raw": self.toggle_raw,
        }
        actions = {a.name: self._action(a.label, slots[a.name]) for a in ACTIONS}
        for name in ("sync", "diff_layout"):
            actions[name].setCheckable(True)
        actions["sync"].setChecked(self.settings.scroll_sync)
        actions["diff_layout"].setChecked(self.settings.diff_split)
        return actions

    def _build_menus(self) -> None:
        """File, Vote, Board, Judges, View, Settings and Help, their actions made by ``_action``."""
        make, bar = self._action, self.menuBar()
        file = bar.addMenu("&File")
        file.addAction(
            make(
                "&Open ledger…",
                self.choose_ledger,
                QKeySequence.keyBindings(QKeySequence.StandardKey.Open),
            )
        )
        self.recent_menu = file.addMenu("Open &recent")  # filled as it opens
        file.addAction(make("&Import outputs…", self.choose_import))
        file.addAction(make("&Collect outputs…", self.choose_collect))
        file.addSeparator()
        file.addAction(
            make("&Quit", self.close, QKeySequence.keyBindings(QKeySequence.StandardKey.Quit))
        )
        vote = bar.addMenu("&Vote")
        for name in VOTE_ACTIONS:
            vote.addAction(self.key_actions[name])
        self.back_action = make("Back to the family list", self.escape, ["Esc"])
        vote.addSeparator()
        self.rater_action = make("Switch &rater…", self.switch_rater, [RATER_KEY])
        vote.addAction(self.rater_action)
        vote.addAction(self.back_action)
        self.round_actions = RoundActions(self, bar.addMenu("&Board"), make)
        judges = bar.addMenu("J&udges")
        judges.addAction(make("&Run a judge…", self.choose_run_judge))
        view = bar.addMenu("V&iew")
        self.dark_action = make(
            "&Dark theme", self.toggle_theme, checkable=True, checked=self.theme.name == "dark"
        )
        view.addAction(self.dark_action)
        zoom_in = QKeySequence.keyBindings(QKeySequence.StandardKey.ZoomIn)
        view.addAction(
            make("&Bigger text", lambda: self.change_font(1), [*zoom_in, QKeySequence("Ctrl+=")])
        )
        view.addAction(
            make(
                "&Smaller text",
                lambda: self.change_font(-1),
                QKeySequence.keyBindings(QKeySequence.StandardKey.ZoomOut),
            )
        )
        view.addSeparator()
        view.addAction(self.key_actions["sync"])
        view.addAction(self.key_actions["diff_layout"])
        view.addAction(self.key_actions["raw"])
        settings = bar.addMenu("&Settings")
        settings.addAction(make("&Keys and preferences…", self.edit_settings))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.key_actions["help"])
        help_menu.addAction(make("&About Arena", lambda: show_about(self)))

    def apply_key_map(self, key_map: KeyMap) -> None:
        for name, action in self.key_actions.items():
            action.setShortcuts([QKeySequence(k) for k in key_map[name]])
        self.rating.label_buttons(self.key_actions)
        self.overlay.set_keys(key_map)

    def _set_rating_actions(self, enabled: bool) -> None:
        for name in VOTE_ACTIONS:
            self.key_actions[name].setEnabled(enabled)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_ledgers:
            self.recent_menu.addAction(path, partial(self.open_ledger, Path(path)))

    # -- View and Settings: each choice remembered in the settings, passed on to the pages --

    def apply_theme(self) -> None:
        apply_app_theme(_app(), self.theme)
        self.setStyleSheet(button_css(self.theme))

    def toggle_theme(self) -> None:
        self.theme = THEMES["light" if self.theme.name == "dark" else "dark"]
        self.settings.theme = self.theme.name
        self.dark_action.setChecked(self.theme.name == "dark")
        self.apply_theme()
        self.cache.set_theme(self.theme)
        self.rating.pair_view.set_theme(self.theme, self.settings.font_size)
        for made in self.made_pages():
            made.set_theme(self.theme)

    def change_font(self, step: int) -> None:
        self.settings.font_size = self.settings.font_size + step
        self.rating.pair_view.set_point_size(self.settings.font_size)
        if self.made_judges is not None:  # its pair is drawn at the rating page's size
            self.made_judges.pair.set_point_size(self.settings.font_size)

    def toggle_sync(self) -> None:
        settings = self.settings
        settings.scroll_sync = not settings.scroll_sync
        self.key_actions["sync"].setChecked(settings.scroll_sync)
        self.rating.pair_view.set_sync(settings.scroll_sync)
        self.statusBar().showMessage(f"Scroll sync {'on' if settings.scroll_sync else 'off'}", 3000)

    def toggle_diff_layout(self) -> None:
        self.settings.diff_split = not self.settings.diff_split
        self.key_actions["diff_layout"].setChecked(self.settings.diff_split)
        self.rating.pair_view.set_split(self.settings.diff_split)

    def toggle_raw(self) -> None:
        """The pair as raw text or as Markdown; the family keeps the choice."""
        if self.pages.currentWidget() is not self.rating:
            return
        raw = not self.rating.pair_view.raw
        self.settings.set_raw_view(self.rating.family, raw)
        self.rating.pair_view.set_raw(raw)
        self.statusBar().showMessage("Raw text: the exact characters" if raw else "Markdown", 3000)

    def edit_settings(self) -> None:
        settings = self.settings
        dialog = SettingsDialog(settings.key_map, settings.break_minutes, self)
        if dialog.exec():
            settings.key_map = dialog.key_map()
            settings.break_minutes = dialog.break_minutes.value()
            self.rating.break_minutes = settings.break_minutes
            self.apply_key_map(settings.key_map)

    # -- ledger and families --------------------------------------------------

    def open_ledger(self, path: Path, *, counts: bool = True) -> bool:
        """Open ``path`` on the family list (its counts later, without ``counts``)."""
        self.close_ledger()

        def opened(ledger: Ledger) -> None:
            self.ledger = ledger
            self.keyboard_rater = raters.at_keyboard(ledger, self.given_rater)
            self.settings.remember_ledger(str(Path(ledger.path).resolve()))
            self.setWindowTitle(ledger_title(Path(ledger.path), read_only=ledger.readonly))

        ok = self.ops.run(Changes(), lambda: self.ops.open_ledger(path), opened)
        if ok and self.ops.read_only:  # another process writes it
            show_error(self, self.ops.read_only)
        self.show_families(counts=counts)
        return ok

    def close_ledger(self) -> None:
        self.rating.stop()
        for made in self.made_pages():
            made.clear()
        if self.ledger is not None:
            self.families.reload(None)
            self.ledger.close()
            self.ledger = None
        self.keyboard_rater = None
        self.setWindowTitle("Arena")

    def choose_ledger(self) -> None:
        start = self.settings.recent_ledgers[0] if self.settings.recent_ledgers else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open ledger", start, LEDGER_FILES)
        if path:
            self.open_ledger(Path(path))

    def show_families(self, *, counts: bool = True) -> None:
        self.rating.stop()
        self._set_rating_actions(False)
        self.families.reload(self.ledger, counts=counts)
        self.pages.setCurrentWidget(self.families)
        self.round_actions.update()
        self.families.setFocus()
        self._update_status()

    def open_family(self, name: str) -> bool:
        if self.ledger is not None and self.ledger.readonly:
            return self.show_board(name)  # nothing can be voted: the board instead
        if self.ledger is None or (self.rater is None and not self.switch_rater()):
            return False
        assert self.rater is not None
        self.rating.pair_view.set_raw(self.settings.raw_view(name))
        if not self.rating.start(self.ledger, name, self.rater):
            return False
        self.pages.setCurrentWidget(self.rating)
        self._set_rating_actions(True)
        self.rating.setFocus()
        return True

    @property
    def rater(self) -> str | None:
        """Who is voting at the open ledger (None: no ledger, or not asked yet)."""
        return self.keyboard_rater

    def switch_rater(self) -> bool:
        """Ask who is voting (the ledger's raters to pick from, or a new name) and remember
        the answer for this ledger; a session being rated goes on under the new name.
        Cancelled: nothing changes, and rating waits for a name."""
        from arena.ui.rater_dialog import ask_rater

        ledger = self.ledger
        if ledger is None:
            return False
        name = ask_rater(self, raters.known(ledger), self.keyboard_rater)
        if name is None:
            if self.keyboard_rater is None:
                self.statusBar().showMessage(
                    f"Rating needs your name: Vote ▸ Switch rater… [{RATER_KEY}]", 8000
                )
            return False
        try:
            raters.remember(ledger.path, name)
        except OSError as failed:  # a read-only configuration folder: asked again next time
            self.statusBar().showMessage(f"Could not remember the name: {failed}", 8000)
        self.keyboard_rater = name
        # A session ended while idle starts again under the new name at the next key.
        self.rating.rater = name
        if self.pages.currentWidget() is self.rating and self.rating.session is not None:
            self.rating.start(ledger, self.rating.family, name)
        self._update_status()
        return True

    def current_family(self) -> str | None:
        """The family the rater is on: rated, on the board, or selected in the list."""
        page = self.pages.currentWidget()
        if page is self.rating:
            return self.rating.family
        for made in self.made_pages():
            if page is made:
                return made.family
        return self.families.selected_name()

    @property
    def board(self) -> BoardPage:
        if self.made_board is None:  # its modules load here: a pair does not need them
            from arena.ui.board.board_page import BoardPage

            self.made_board = BoardPage(self.theme)
            self.made_board.bind(self.round_actions.actions)
            # Votes refit its preview off this thread; what it shows sets status and exports.
            self.ops.changed.connect(self.made_board.ledger_changed)
            self.made_board.shown_changed.connect(self._update_status)
            self.made_board.shown_changed.connect(self.round_actions.update)
            self.pages.addWidget(self.made_board)
        return self.made_board

    @property
    def gates(self) -> GatesPage:
        if self.made_gates is None:
            from arena.ui.gates.gates_page import GatesPage

            self.made_gates = self._added(GatesPage(self.ops, self.theme))
        return self.made_gates

    @property
    def flags(self) -> FlagsPage:
        if self.made_flags is None:
            from arena.ui.rating.flags_page import FlagsPage

            self.made_flags = self._added(FlagsPage(self.ops, self.theme))
        return self.made_flags

    @property
    def judges(self) -> JudgesPage:
        if self.made_judges is None:
            from arena.ui.judges.judges_page import JudgesPage

            self.made_judges = self._added(
                JudgesPage(self.ops, self.theme, self.settings.font_size, rater=lambda: self.rater)
            )
            self.made_judges.studied.connect(self._update_status)
        return self.made_judges

    def _added(self, page: Page) -> Page:
        """``page`` on the stack, heard of a change before the window (to show its counts)."""
        self.pages.addWidget(page)
        self.ops.changed.disconnect(self._ledger_changed)
        self.ops.changed.connect(self._ledger_changed)
        return page

    def show_board(self, name: str | None = None, round_id: str | None = None) -> bool:
        """The board of ``name`` (default: the current family), on ``round_id`` or the newest."""
        name = name or self.current_family()
        if self.ledger is None or name is None:
            return False
        self.rating.stop()
        self._set_rating_actions(False)
        self.board.load(self.ledger, name, round_id)
        self.pages.setCurrentWidget(self.board)
        self.round_actions.update()
        self.board.setFocus()
        self._update_status()
        return True

    def show_gates(self, name: str | None = None) -> bool:
        """The Gates page of ``name`` (default: the current family); Esc comes back here."""
        return self._show_aside(lambda: self.gates, name)

    def show_flags(self, name: str | None = None) -> bool:
        """The Flags page of ``name`` (default: the current family); Esc comes back here."""
        return self._show_aside(lambda: self.flags, name)

    def show_judges(self, name: str | None = None) -> bool:
        """The Judges page of ``name`` (default: the current family); Esc comes back here."""
        return self._show_aside(lambda: self.judges, name)

    def _asides(self) -> tuple[QWidget | None, ...]:
        """The pages Esc leaves for the page they were opened from."""
        return (self.made_gates, self.made_flags, self.made_judges)

    def _show_aside(
        self, make: Callable[[], GatesPage | FlagsPage | JudgesPage], name: str | None
    ) -> bool:
        name = name or self.current_family()
        if self.ledger is None or name is None:
            return False
        page, aside = self.pages.currentWidget(), make()
        assert page is not None  # the stack always holds its pages
        if page not in self._asides():
            self.gates_from = page
        self.rating.stop()
        self._set_rating_actions(False)
        aside.load(self.ledger, name)
        self.pages.setCurrentWidget(aside)
        self.round_actions.update()
        aside.setFocus()
        self._update_status()
        return True

    def escape(self) -> None:
        if self.overlay.isVisible():
            self.overlay.hide()
            return
        page, name = self.pages.currentWidget(), self.current_family()
        if page is not None and page is self.made_judges and self.made_judges.back():
            return  # from a pair opened there back to its list
        on_gates = page is not None and page in self._asides()
        if on_gates and name and self.gates_from is self.rating:
            # Back to rating: a new session on a family its corrections may have changed.
            if self.open_family(name):
                return
        if on_gates and name and self.gates_from is self.made_board:
            self.show_board(name)
        elif page in (self.rating, self.made_board, *self._asides()):
            self.show_families()
            if name:
                self.families.select(name)

    def _ledger_changed(self, changes: Changes) -> None:
        if (changes.outputs or changes.families) and self.pages.currentWidget() is self.families:
            self.families.reload(self.ledger)
        if changes.corrections:
            # The Gates page has redrawn itself (it heard first); its counts changed.
            self._update_status()

    # -- importing ------------------------------------------------------------

    def choose_import(self) -> None:
        from arena.ui import import_flow  # the dialog and its readers load on first use

        if (path := import_flow.ask_import_path(self)) is not None:
            self.import_path(path)

    def choose_collect(self) -> None:
        # The collecting machinery (httpx, the gates) loads on first use, not with the window.
        from arena.ui import collect_dialog

        self.collecting = collect_dialog.open_collect(
            self, self.ops, self.ledger, self.current_family()
        )

    def choose_run_judge(self) -> None:
        # The judge's client (httpx, the templates) loads on first use, as collect's does.
        from arena.ui.judges import judge_run_dialog

        self.running_judge = judge_run_dialog.open_run_judge(
            self, self.ops, self.ledger, self.current_family()
        )

    def import_path(self, path: Path) -> bool:
        from arena.ui import import_flow

        return import_flow.import_outputs(self, self.ops, self.ledger, path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt override)
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt override)
        files = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        event.acceptProposedAction()
        for path in files:
            self.import_path(path)

    # -- pages and status -----------------------------------------------------

    def made_pages(self) -> list[BoardPage | GatesPage | FlagsPage | JudgesPage]:
        made = (self.made_board, self.made_gates, self.made_flags, self.made_judges)
        return [p for p in made if p is not None]

    def _update_status(self) -> None:
        page = self.pages.currentWidget()
        texts: dict[QWidget, Callable[[], str]] = {self.rating: self.rating.status_text}
        for made in self.made_pages():
            texts[made] = made.status_text
        self.status.setText(texts[page]() if page in texts else "")
        # The status bar does not lay out a permanent widget that grows before its first
        # paint (the first pair's line stayed 6 px wide, one letter): lay it out now.
        if (bar_layout := self.statusBar().layout()) is not None:
            bar_layout.activate()

    # -- lifetime -------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in INPUT_EVENTS:
            self.rating.touch()
        return False

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        _app().removeEventFilter(self)
        self.settings.geometry = self.saveGeometry()
        self.close_ledger()
        self.settings.sync()
        super().closeEvent(event)


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
