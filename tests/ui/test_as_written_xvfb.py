"""The real window on a real X server (Xvfb) at 1280×800 shows outputs as written and
every turn's question (tests/ui/xvfb_written.py), and leaves its screenshots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.xvfb_written import SHOTS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed")
def test_the_real_window_shows_lines_raw_text_and_both_turns(tmp_path):
    out = Path(os.environ.get("ARENA_TEST_ARTEFACTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"]
        + [sys.executable, "-m", "tests.ui.xvfb_written", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in SHOTS.values():
        assert (out / name).stat().st_size > 10_000, name
