"""The real window on a real X server (Xvfb) at 1280×800 shows outputs as written and
every turn's question (tests/ui/xvfb_written.py), and leaves its screenshots."""

from __future__ import annotations

from tests.ui.real_window import artefacts, needs_xvfb, run_under_xvfb
from tests.ui.xvfb_written import SHOTS


@needs_xvfb
def test_the_real_window_shows_lines_raw_text_and_both_turns(tmp_path):
    out = artefacts(tmp_path)
    run_under_xvfb("tests.ui.xvfb_written", out)
    for name in SHOTS.values():
        assert (out / name).stat().st_size > 10_000, name
