"""Entry point of the PyInstaller bundle: `arena` with no command opens the window."""

import sys

from arena.cli.main import main

if __name__ == "__main__":
    if len(sys.argv) == 1:
        from arena.ui.app import main as gui

        sys.exit(gui())
    sys.exit(main())
