"""Judges ▸ Run a judge… in the real window on a real X server (Xvfb), at 1280×800: a run
against the scripted server ends whole, and the screenshots of the dialog and of a
disagreement with its replies are kept (docs/images/judge-run.png and judge-replies.png)."""

from __future__ import annotations

from tests.ui.real_window import artefacts, needs_xvfb, run_under_xvfb


@needs_xvfb
def test_a_judge_runs_from_the_window_under_xvfb(tmp_path):
    out = artefacts(tmp_path)
    run, replies = out / "judge-run.png", out / "judge-replies.png"
    run_under_xvfb("tests.ui.xvfb_judge_run", run, replies, timeout=180)
    assert 5_000 < run.stat().st_size < 200_000
    assert 10_000 < replies.stat().st_size < 300_000
