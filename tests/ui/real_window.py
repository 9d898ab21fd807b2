"""Running a script of the real window on a real X server (Xvfb) at 1280×800, in a process
of its own, as the tests named ``test_*_xvfb.py`` do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

needs_xvfb = pytest.mark.skipif(
    shutil.which("xvfb-run") is None, reason="xvfb-run is not installed"
)


def artefacts(default: Path) -> Path:
    """Where screenshots go: ``$ARENA_TEST_ARTEFACTS`` (CI keeps them), else ``default``."""
    out = Path(os.environ.get("ARENA_TEST_ARTEFACTS", default))
    out.mkdir(parents=True, exist_ok=True)
    return out


def run_under_xvfb(module: str, *args: Path | str, timeout: int = 120) -> str:
    """``python -m module ARGS`` on a fresh 1280×800 X server; its standard output, once it
    exited 0 (the test fails with both outputs otherwise)."""
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m", module]
        + [str(a) for a in args],
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout
