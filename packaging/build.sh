#!/usr/bin/env bash
# Build the one-folder bundle in dist/arena with PyInstaller and report its size.
#
#     packaging/build.sh
#
# Builds from a virtual environment of its own (build/venv) holding only Arena's
# runtime dependencies, so nothing a developer installed (test peers, JAX, pandas)
# ends up in the bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=build/venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
fi
"$VENV/bin/python" -m pip install -q . "pyinstaller>=6.10"
"$VENV/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/arena.spec
du -sh dist/arena | awk '{print "bundle size: " $1 " (dist/arena)"}'
