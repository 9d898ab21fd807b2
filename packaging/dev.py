#!/usr/bin/env python3
"""Set up a virtual environment in .venv and run Arena from the checkout.

    python3 packaging/dev.py demo      # open the rater window on the bundled demo
    python3 packaging/dev.py test      # run the whole test suite (extra args go to pytest)
    python3 packaging/dev.py arena ... # any arena command

Needs only python3 >= 3.11. The environment is (re)installed when
pyproject.toml changes; everything else is left alone.
"""

from __future__ import annotations

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


def _make_venv() -> None:
    if PYTHON.exists():
        return
    try:
        import ensurepip  # noqa: F401  (Debian ships it separately, in python3-venv)
    except ImportError:
        if os.geteuid() == 0 and shutil.which("apt-get"):
            _say("installing python3-venv (Debian splits venv out of python3)")
            _run("apt-get", "update", "-qq")
            _run("apt-get", "install", "-y", "-qq", "python3-venv")
        else:
            sys.exit(
                "[dev] python3 cannot make virtual environments here: "
                "run `sudo apt-get install python3-venv` and try again"
            )
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
    _make_venv()
    _install()
    command, rest = argv[0], argv[1:]
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
