"""Entry point of the PyInstaller bundle: `arena` with no command opens the window."""

import multiprocessing
import sys

from arena.cli.main import main

if __name__ == "__main__":
    # In the frozen app a worker process that gates an import (arena.intake.gate_pool)
    # starts this same executable: this runs the worker's task instead of the app.
    multiprocessing.freeze_support()
    if len(sys.argv) == 1:
        from arena.ui.app import main as gui

        sys.exit(gui())
    sys.exit(main())
