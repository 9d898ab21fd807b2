"""The real window driven by keys alone (xdotool) under Xvfb: File ▸ Import, the file typed
into the file chooser, a new family named and given language ``ja`` in the import dialog,
Alt+I. Run by test_import_xvfb.py in a subprocess:

    python -m tests.ui.xvfb_import WORK_DIR OUT_DIR

WORK_DIR gets the Japanese bench (``jmt-mini/``) and the window's ledger (``window.sqlite``);
OUT_DIR the screenshots. Exits 0 once the ledger holds the family with its 12 outputs.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from arena.ledger import Ledger, catalog
from arena.ui.app import application
from arena.ui.main_window import MainWindow
from arena.ui.settings import Settings
from tests.japanese_answers import write_japanese_bench

FAMILY = "jmt-ja"
TIMEOUT_S = 120


def _xdo(*args: str, timeout: float = 30) -> str:
    done = subprocess.run(
        ["xdotool", *args], check=True, capture_output=True, text=True, timeout=timeout
    )
    return done.stdout


def _visible(name: str) -> list[str]:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", name], capture_output=True, text=True
    )
    return found.stdout.split()


def _wait_for(name: str, timeout: float = 30) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = _visible(name)
        if found:
            return found[0]
        time.sleep(0.1)
    raise TimeoutError(f"no visible window named {name!r}")


def _key(*keys: str) -> None:
    _xdo("key", "--clearmodifiers", *keys)
    time.sleep(0.15)


def _imported(ledger_path: Path) -> bool:
    with Ledger.open(ledger_path, readonly=True) as ledger:
        family = catalog.get_family(ledger, FAMILY)
        return family is not None and catalog.count_outputs(ledger, FAMILY) == 12


def drive(answers: Path, ledger_path: Path, result: dict) -> None:
    """What a rater does with the keyboard, from outside the process (real X key events)."""
    try:
        window = _wait_for("Arena$")
        _xdo("windowfocus", "--sync", window)
        time.sleep(0.5)
        _key("alt+f")
        _key("i")  # &Import outputs…
        chooser = _wait_for("Choose outputs to import")
        _xdo("windowfocus", "--sync", chooser)
        _xdo("type", "--delay", "15", str(answers))
        for _ in range(3):  # a completion popup may take the first Return
            _key("Return")
            time.sleep(0.5)
            if _visible("^Import outputs$"):
                break
        dialog = _wait_for("^Import outputs$")
        _xdo("windowfocus", "--sync", dialog)
        time.sleep(0.5)
        _key("ctrl+a")
        _xdo("type", "--delay", "15", FAMILY)  # the family: a new one
        _key("Tab")  # kind: votes
        _key("Tab")  # language
        _key("ctrl+a")
        _xdo("type", "--delay", "15", "ja")
        time.sleep(0.5)
        result["dialog"] = True  # the main thread takes its picture now
        time.sleep(1.0)
        _key("alt+i")  # &Import
        end = time.monotonic() + 60
        while not _imported(ledger_path):
            if time.monotonic() > end:
                raise TimeoutError("the family never reached the ledger")
            time.sleep(0.3)
        result["ok"] = True
    except Exception:  # reported by the main thread
        result["error"] = traceback.format_exc()


def main(work: Path, out: Path) -> int:
    app = application(sys.argv[:1])
    # Qt's own file dialog, the same on every machine (no desktop portal under Xvfb).
    app.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs)
    answers = write_japanese_bench(work / "jmt-mini")
    ledger_path = work / "window.sqlite"
    Ledger.open(ledger_path).close()
    settings = Settings(QSettings(str(work / "Arena.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings)
    window.resize(1280, 800)
    window.open_ledger(ledger_path)
    window.show()
    result: dict = {}
    threading.Thread(target=drive, args=(answers, ledger_path, result), daemon=True).start()
    started = time.monotonic()

    def watch() -> None:
        modal = QApplication.activeModalWidget()
        if result.pop("dialog", False) and modal is not None:
            modal.grab().save(str(out / "import-dialog.png"))
        if "ok" in result or "error" in result or time.monotonic() - started > TIMEOUT_S:
            window.grab().save(str(out / "imported.png"))
            window.close()
            app.quit()

    timer = QTimer()
    timer.timeout.connect(watch)
    timer.start(100)
    app.exec()
    if "ok" not in result:
        print(result.get("error", "timed out"), file=sys.stderr)
        return 1
    print(window.statusBar().currentMessage())
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
