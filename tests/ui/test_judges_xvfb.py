"""The Judges page in the real window on a real X server (Xvfb), at 1280×800: no table
scrolls sideways, and its screenshot is kept (docs/images/judges-page.png is one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed")
def test_the_judges_page_fits_1280_pixels_under_xvfb(tmp_path):
    out = Path(os.environ.get("ARENA_TEST_ARTEFACTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT)}
    shot = out / "judges-page.png"
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-m",
         "tests.ui.xvfb_judges", str(shot)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert 10_000 < shot.stat().st_size < 200_000
