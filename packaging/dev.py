#!/usr/bin/env python3
"""Set up a virtual environment in .venv and run Arena from the checkout.

    python3 packaging/dev.py demo      # open the rater window on the bundled demo
    python3 packaging/dev.py test      # run the whole test suite (extra args go to pytest)
    python3 packaging/dev.py arena ... # any arena command

Needs only python3 >= 3.11. The environment is (re)installed when
pyproject.toml changes; everything else is left alone. On Debian/Ubuntu, run as root,
it installs the system packages it needs with apt-get (python3-venv; for `test`, also
the sandbox's tools, Xvfb and Qt's libraries); as another user it prints the apt-get line.
"""

from __future__ import annotations

import ctypes.util
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".arena-installed"


def _say(message: str) -> None:
    print(f"[dev] {message}", file=sys.stderr, flush=True)


def _run(*cmd: str | Path, **kwargs) -> None:
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)


# What the tests need of the system, by how to tell it is there (a command, or a shared
# library as ``lib:NAME``), and the Debian package that provides it. Without a command the
# tests that run it are skipped: bwrap, git and patch for the hidden tests run in the sandbox
# (tests/trials), xvfb-run, xauth and xdotool for the real window (tests/ui/*_xvfb.py).
# Without a library Qt cannot start: offscreen (EGL to dbus-1) or under Xvfb (the rest).
TEST_NEEDS = {
    "bwrap": "bubblewrap",
    "git": "git",
    "patch": "patch",
    "xvfb-run": "xvfb",
    "xauth": "xauth",
    "xdotool": "xdotool",
    "lib:EGL": "libegl1",
    "lib:GL": "libgl1",
    "lib:fontconfig": "libfontconfig1",
    "lib:xkbcommon": "libxkbcommon0",
    "lib:glib-2.0": "libglib2.0-0",
    "lib:dbus-1": "libdbus-1-3",
    "lib:xkbcommon-x11": "libxkbcommon-x11-0",
    "lib:xcb-cursor": "libxcb-cursor0",
    "lib:xcb-icccm": "libxcb-icccm4",
    "lib:xcb-keysyms": "libxcb-keysyms1",
    "lib:xcb-image": "libxcb-image0",
    "lib:xcb-render-util": "libxcb-render-util0",
    "lib:xcb-shape": "libxcb-shape0",
    "lib:xcb-xkb": "libxcb-xkb1",
    "lib:X11-xcb": "libx11-xcb1",
    "lib:xcb-randr": "libxcb-randr0",
}


def _present(need: str) -> bool:
    if need.startswith("lib:"):
        return ctypes.util.find_library(need.removeprefix("lib:")) is not None
    return shutil.which(need) is not None


def _has_venv() -> bool:
    try:
        import ensurepip  # noqa: F401  (Debian ships it separately, in python3-venv)
    except ImportError:
        return False
    return True


def missing_packages(command: str) -> list[str]:
    """The Debian packages ``command`` needs that this machine lacks (the test needs are
    Linux's: elsewhere only what makes a venv is looked for)."""
    missing = [] if PYTHON.exists() or _has_venv() else ["python3-venv"]
    if command == "test" and sys.platform == "linux":
        missing += [package for need, package in TEST_NEEDS.items() if not _present(need)]
    return missing


def _install_system(packages: list[str]) -> None:
    """Install ``packages`` with apt-get as root; otherwise say how, and stop only when
    no virtual environment can be made without them."""
    if not packages:
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        _say(f"installing {' '.join(packages)} with apt-get (for the venv and the tests)")
        quiet = {"stdout": subprocess.DEVNULL}  # dpkg's progress; errors still reach stderr
        _run("apt-get", "update", "-qq", **quiet)
        _run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages, **quiet)
        return
    how = ("sudo apt-get install " if shutil.which("apt-get") else "install ") + " ".join(packages)
    if "python3-venv" in packages:
        sys.exit(f"[dev] python3 cannot make virtual environments here: run `{how}` and try again")
    _say(
        f"missing {', '.join(packages)}, which tests need (without them the sandbox's and the "
        f"window's are skipped); to install: {how}"
    )


def _make_venv() -> None:
    if PYTHON.exists():
        return
    _say(f"creating {VENV}")
    _run(sys.executable, "-m", "venv", VENV)


def _install() -> None:
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == want:
        return
    _say("installing Arena and its test tools into .venv (first run takes a minute)")
    _run(PYTHON, "-m", "pip", "install", "-q", "--upgrade", "pip")
    _run(PYTHON, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test]")
    STAMP.write_text(want)


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 (this script runs on any python3)
        sys.exit("[dev] Arena needs Python 3.11 or newer")
    if not argv or argv[0] not in ("demo", "test", "arena"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    _install_system(missing_packages(command))
    _make_venv()
    _install()
    if command == "test":
        cmd = [PYTHON, "-m", "pytest", *rest]
    elif command == "demo":
        cmd = [PYTHON, "-m", "arena", "demo", *rest]
    else:
        cmd = [PYTHON, "-m", "arena", *rest]
    return subprocess.run([str(c) for c in cmd], cwd=ROOT).returncode


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as exc:
        sys.exit(f"[dev] set-up failed: {' '.join(map(str, exc.cmd))} exited {exc.returncode}")
