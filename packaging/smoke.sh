#!/usr/bin/env bash
# Smoke test of the PyInstaller bundle: build it, start it on the demo under Xvfb, cast a
# vote with a real key press, check the ledger, report the bundle size. Takes about a minute
# or two. Needs xvfb-run and xdotool (Debian: xvfb xauth xdotool).
#
#     packaging/smoke.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--no-build" ] || packaging/build.sh
APP=dist/arena/arena
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LEDGER="$WORK/demo.sqlite"

# The bundle names the version the source does (arena/__init__.py, the one place it is set).
VERSION=$("$APP" --version)
echo "$VERSION"
[ "$VERSION" = "arena $(PYTHONPATH=. python3 -c 'import arena; print(arena.__version__)')" ]
"$APP" demo --no-gui --out "$LEDGER"
export LEDGER APP WORK HOME="$WORK"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
    set -euo pipefail
    QT_QPA_PLATFORM=xcb "$APP" --ledger "$LEDGER" vote --family prose-en \
        >"$WORK/app.log" 2>&1 &
    pid=$!
    window=$(xdotool search --sync --onlyvisible --name "Arena" | head -n 1)
    sleep 2
    xdotool windowfocus --sync "$window"
    xdotool key --window "$window" 1
    for _ in $(seq 50); do
        votes=$("$APP" --ledger "$LEDGER" status --family prose-en --json |
                python3 -c "import json,sys; print(json.load(sys.stdin)[\"families\"][0][\"votes\"])")
        [ "$votes" = 1 ] && break
        sleep 0.2
    done
    kill "$pid"; wait "$pid" || true
    echo "votes after one key press: $votes"
    [ "$votes" = 1 ] || { cat "$WORK/app.log"; exit 1; }
'
"$APP" --ledger "$LEDGER" check
du -sh dist/arena | awk '{print "bundle size: " $1}'
echo "smoke test passed"
