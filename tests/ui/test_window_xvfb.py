"""The real window on a real X server (Xvfb): it opens, and screenshots are kept."""

from __future__ import annotations

from tests.ui.real_window import artefacts, needs_xvfb, run_under_xvfb


@needs_xvfb
def test_the_window_runs_under_xvfb_and_leaves_screenshots(tmp_path):
    out = artefacts(tmp_path)
    run_under_xvfb("tests.ui.xvfb_shots", out)
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
