"""Work asked for when a pair is shown runs once the pair has painted, not before it."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QWidget  # noqa: E402

from arena.ui.rating.after_paint import FALLBACK_MS, AfterPaint  # noqa: E402


class Painted(QWidget):
    def __init__(self, seen: list[str]) -> None:
        super().__init__()
        self.seen = seen

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.seen.append("paint")


def test_the_work_runs_after_the_next_paint_once_per_request(qtbot):
    seen: list[str] = []
    widget = Painted(seen)
    qtbot.addWidget(widget)
    after = AfterPaint(widget, lambda: seen.append("work"))
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: "paint" in seen)
    seen.clear()
    after.request()
    widget.update()
    qtbot.waitUntil(lambda: "work" in seen)
    assert seen[0] == "paint" and seen.count("work") == 1
    widget.update()  # a paint with nothing asked for runs nothing
    qtbot.waitUntil(lambda: seen.count("paint") >= 2)
    qtbot.wait(FALLBACK_MS + 50)
    assert seen.count("work") == 1


def test_a_widget_not_on_screen_runs_the_work_after_the_fallback(qtbot):
    seen: list[str] = []
    widget = Painted(seen)  # never shown: no paint comes
    qtbot.addWidget(widget)
    after = AfterPaint(widget, lambda: seen.append("work"))
    asked = time.monotonic()
    after.request()
    qtbot.waitUntil(lambda: seen == ["work"], timeout=5 * FALLBACK_MS)
    assert time.monotonic() - asked >= FALLBACK_MS / 1000 * 0.9
