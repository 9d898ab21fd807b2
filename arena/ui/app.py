"""Starting the window: `arena demo` and `arena vote` call `run`; `arena-gui` calls `main`."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from arena import cycle_gc
from arena.errors import BadInput, LedgerLocked
from arena.paths import APP_NAME, LEDGER_ENV, default_ledger_path, resource_path
from arena.rating import raters
from arena.ui.main_window import MainWindow
from arena.ui.operations import show_error
from arena.ui.settings import Settings

ORGANISATION = "Arena"
# No registered domain yet; Qt uses it only for macOS preference names.
ORGANISATION_DOMAIN = "arena.invalid"
DESKTOP_ID = "org.arenarater.Arena"


def application(argv: list[str]) -> QApplication:
    """The QApplication, named so QSettings finds one INI file on every platform."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    app = QApplication.instance() or QApplication(argv)
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(ORGANISATION)
    app.setOrganizationDomain(ORGANISATION_DOMAIN)
    # So the desktop shows Arena's name and icon, not "python3" (packaging/*.desktop).
    app.setDesktopFileName(DESKTOP_ID)
    app.setWindowIcon(QIcon(str(resource_path("icons", "arena.svg"))))
    return app


def open_window(
    ledger_path: Path,
    family: str | None = None,
    settings: Settings | None = None,
    rater: str | None = None,
) -> MainWindow:
    """The window on ``ledger_path`` (and ``family``); ``rater`` names who votes (else the
    one remembered at the ledger, or asked when rating starts: ``arena.rating.raters``)."""
    window = MainWindow(settings or Settings(), rater=rater)
    # The family list's counts read every family: a window opened on a family shows its
    # first pair without them, and one opened on the list paints the names first.
    if window.open_ledger(ledger_path, counts=False) and family is not None:
        window.open_family(family)
    return window


def _report_unexpected(window: MainWindow):
    def hook(kind, value, tb) -> None:
        traceback.print_exception(kind, value, tb)
        show_error(window, f"Unexpected error (a bug; please report it): {value!r}")

    return hook


def run(
    argv: list[str],
    *,
    ledger_path: Path,
    family: str | None = None,
    rater: str | None = None,
) -> int:
    """Open the window on ``ledger_path`` (and ``family``, if given) until it closes."""
    app = application(argv)
    settings = Settings()
    # The window and a session on its family make a few hundred thousand objects and no
    # garbage: the cycle collector waits while they are made.
    with cycle_gc.paused():
        window = open_window(ledger_path, family, settings, rater)
    # A bug in a slot must not pass silently while the rater keeps voting.
    sys.excepthook = _report_unexpected(window)
    window.show()
    window.raise_()
    window.activateWindow()
    code = app.exec()
    # Another process writes the ledger: this window could only read it, and says so.
    return LedgerLocked.exit_code if code == 0 and window.ops.read_only else code


def main() -> int:
    """``arena-gui [--ledger PATH] [--family F] [--rater NAME]``: the ledger named (else
    ``$ARENA_LEDGER``, else the last one opened, else the default one)."""
    parser = argparse.ArgumentParser(prog="arena-gui", description="The rater's window.")
    parser.add_argument("--ledger", type=Path, help="the ledger file to open")
    parser.add_argument("--family", help="open this family for rating")
    parser.add_argument("--rater", help="who is voting (default: the one remembered)")
    # Qt's own options (-platform, -style…) pass through to QApplication.
    args, rest = parser.parse_known_args(sys.argv[1:])
    if args.rater is not None:
        try:
            raters.checked(args.rater)
        except BadInput as refused:
            parser.error(str(refused))
    argv = sys.argv[:1] + rest
    application(argv)
    recent = [Path(p) for p in Settings().recent_ledgers if Path(p).exists()]
    if args.ledger or os.environ.get(LEDGER_ENV) or not recent:
        path = args.ledger or default_ledger_path()
    else:
        path = recent[0]
    return run(argv, ledger_path=path, family=args.family, rater=args.rater)


if __name__ == "__main__":
    sys.exit(main())
