"""The Board menu: show a family's board or its gates, close a round, export the board shown.

Closing a round is a ledger write, so it goes through ``LedgerOps`` like a vote: a
failure is shown the one way and nothing is stored. It runs off the window's thread
(``LedgerOps.run_long``), the progress dialog counting the outputs the gates re-read;
Cancel stores nothing. Exports only write files the rater chose; a failure there is
shown the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QStackedWidget, QStatusBar, QWidget

from arena.ledger import Ledger
from arena.ui import dialogs
from arena.ui.keys import BOARD_KEY, CLOSE_ROUND_KEY, FLAGS_KEY, GATES_KEY, JUDGES_KEY
from arena.ui.operations import Changes, LedgerOps, show_error

# The board, the rounds and the exports load when first used: the menu is built at
# every start, and a window opened to rate needs none of them.
if TYPE_CHECKING:
    from arena.ui.board.board_page import BoardPage
    from arena.ui.family_list import FamilyList
    from arena.ui.rating.rating_page import RatingPage

ActionFactory = Callable[..., QAction]


class BoardHost(Protocol):
    """What the Board menu needs of the main window (which builds the menu and imports this)."""

    pages: QStackedWidget
    families: FamilyList
    rating: RatingPage
    made_board: BoardPage | None  # the Board page, once made
    ledger: Ledger | None
    ops: LedgerOps

    @property
    def board(self) -> BoardPage: ...  # made when first asked for

    def current_family(self) -> str | None: ...
    def show_board(self, name: str | None = None, round_id: str | None = None) -> bool: ...
    def show_gates(self, name: str | None = None) -> bool: ...
    def show_flags(self, name: str | None = None) -> bool: ...
    def show_judges(self, name: str | None = None) -> bool: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 (Qt's name)
    def window(self) -> QWidget: ...  # the top-level widget: the parent of dialogs


class RoundActions:
    def __init__(self, host: BoardHost, menu: QMenu, make: ActionFactory) -> None:
        self.host = host
        self.actions: dict[str, QAction] = {
            "board": make("Show &board", host.show_board, [BOARD_KEY]),
            "gates": make("&Gates…", host.show_gates, [GATES_KEY]),
            "flags": make("&Flags…", host.show_flags, [FLAGS_KEY]),
            "judges": make("&Judges…", host.show_judges, [JUDGES_KEY]),
            "close_round": make("&Close round…", self.close_round, [CLOSE_ROUND_KEY]),
            "export_csv": make("Export board as &CSV…", self.export_csv),
            "export_image": make("Export board as &image (PNG, SVG)…", self.export_image),
        }
        menu.addAction(self.actions["board"])
        menu.addAction(self.actions["gates"])
        menu.addAction(self.actions["flags"])
        menu.addAction(self.actions["judges"])
        menu.addAction(self.actions["close_round"])
        menu.addSeparator()
        menu.addAction(self.actions["export_csv"])
        menu.addAction(self.actions["export_image"])

    def update(self) -> None:
        """Enable what makes sense on the page shown."""
        window = self.host
        page, board = window.pages.currentWidget(), window.made_board
        # B is the family list's key only: on the rating page it must not end a session.
        self.actions["board"].setEnabled(page is window.families)
        # G leaves rating on purpose (the rater asked to see why pairs were settled).
        self.actions["gates"].setEnabled(
            window.ledger is not None
            and page is not None
            and page in (window.families, window.rating, board)
        )
        # Shift+F too: from rating (to act on a flag just raised), the list or the board.
        self.actions["flags"].setEnabled(self.actions["gates"].isEnabled())
        # J not from rating: the page names the systems, which voting never shows.
        self.actions["judges"].setEnabled(
            window.ledger is not None and page is not None and page in (window.families, board)
        )
        self.actions["close_round"].setEnabled(window.ledger is not None)
        # A round shown, never the preview: it is not a round and is not exported.
        shown = board is not None and page is board and board.round_shown is not None
        self.actions["export_csv"].setEnabled(shown)
        self.actions["export_image"].setEnabled(shown)

    def close_round(self) -> bool:
        from arena.judges.comparison import family_judges
        from arena.rounds import closing
        from arena.ui.board import close_round_dialog

        window = self.host
        ledger, family = window.ledger, window.current_family()
        if ledger is None or family is None:
            show_error(window.window(), "Choose a family in the list before closing a round.")
            return False
        # The same settings, judges included, as `arena round close --with-judges` builds.
        settings = close_round_dialog.ask_round_settings(
            window.window(),
            family,
            family_judges(ledger, family),
            closing.family_raters(ledger, family),
        )
        if settings is None:
            return False
        row = next((r for r in window.families.model.rows if r["name"] == family), {})
        total, untested = row.get("outputs", 0), row.get("untested_outputs", 0)
        if untested and not dialogs.confirm(
            window.window(),
            "Outputs without test results",
            f"{untested} outputs of {family} have no test result (run `arena tests run "
            f"--family {family}` to record their trials). Close the round counting them "
            "as failed?",
            "Count as failed and close",
        ):
            return False
        return window.ops.run_long(
            ledger,
            f"Closing a round of {family}: re-running the gates…",
            Changes(family=family, gates=True, rounds=True),
            lambda own, advance: closing.close_round(
                own, family, settings, progress=advance, allow_missing=bool(untested)
            ),
            lambda found: window.show_board(family, found.round_id),
            total=total,
        )

    def _suggestion(self, suffix: str) -> Path:
        board = self.host.board
        found = board.round_shown
        assert found is not None  # the export actions are enabled only then
        parts = [board.family, found.round_id[:8], board.category or ""]
        folder = Path(self.host.ledger.path).parent if self.host.ledger else Path.home()
        return folder / ("-".join(p for p in parts if p) + suffix)

    def export_csv(self) -> bool:
        path = dialogs.ask_save_path(
            self.host.window(), "Export board as CSV", self._suggestion(".csv"), "CSV (*.csv)"
        )
        from arena.ui.board.board_export import write_csv

        model = self.host.board.model
        return path is not None and self._write(path, lambda: write_csv(path, model))

    def export_image(self) -> bool:
        path = dialogs.ask_save_path(
            self.host.window(),
            "Export board as image",
            self._suggestion(".png"),
            "PNG image (*.png);;SVG image (*.svg)",
        )
        from arena.ui.board.board_export import write_image

        board = self.host.board
        return path is not None and self._write(
            path, lambda: write_image(path, board.model, board.board_text(for_image=True))
        )

    def _write(self, path: Path, write: Callable[[], None]) -> bool:
        try:
            write()
        except OSError as exc:
            show_error(self.host.window(), f"The board was not exported: {exc}")
            return False
        self.host.statusBar().showMessage(f"Board written to {path}", 10_000)
        return True
