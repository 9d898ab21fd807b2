"""The real window on a real X server (Xvfb): it opens, and screenshots are kept."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed")
def test_the_window_runs_under_xvfb_and_leaves_screenshots(tmp_path):
    out = Path(os.environ.get("ARENA_TEST_ARTEFACTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            sys.executable,
            "-m",
            "tests.ui.xvfb_shots",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in (
        "families.png",
        "prose-pair.png",
        "diff-pair.png",
        "diff-pair-side-by-side.png",
        "board.png",
        "board-dark-category.png",
        "gates.png",
        "gates-keys.png",
    ):
        assert (out / name).stat().st_size > 10_000, name
