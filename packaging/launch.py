"""Entry point of the PyInstaller bundle: `arena` with no command opens the window."""

import multiprocessing
import sys

if __name__ == "__main__":
    # A worker process that gates a large import (arena.intake.gate_pool) starts this same
    # executable: freeze_support() runs the worker's task instead of the app, before the
    # app's modules are loaded.
    multiprocessing.freeze_support()
    from arena.cli.main import main

    if len(sys.argv) == 1:
        from arena.ui.app import main as gui

        sys.exit(gui())
    sys.exit(main())
