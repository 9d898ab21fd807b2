"""The cycle collector is paused while a big structure is built, and always restored."""

from __future__ import annotations

import gc
import sys

import pytest

from arena import cycle_gc, family_state
from arena.rating.session import RatingSession


def test_paused_restores_the_collector_as_it_was_even_on_an_error():
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        with cycle_gc.paused():
            assert not gc.isenabled()
            _ = 1 / 0
    assert gc.isenabled()
    gc.disable()
    try:
        with cycle_gc.paused():
            pass
        assert not gc.isenabled()  # paused by someone else: left so
    finally:
        gc.enable()


def test_a_session_reads_its_family_with_the_collector_paused(small_family, monkeypatch):
    seen = []
    read = family_state.for_rating

    def reading(*args, **kwargs):
        seen.append(gc.isenabled())
        return read(*args, **kwargs)

    monkeypatch.setattr(family_state, "for_rating", reading)
    session = RatingSession(small_family, "small", seed=1)
    session.refresh()
    assert seen == [False, False] and gc.isenabled()


def test_the_window_opens_with_the_collector_paused(small_family, monkeypatch):
    from arena.ui import app

    seen = []
    monkeypatch.setattr(
        app, "open_window", lambda *a, **k: seen.append(gc.isenabled()) or _Window()
    )
    monkeypatch.setattr(app, "application", lambda argv: _App())
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # ``run`` sets its own
    assert app.run(["arena"], ledger_path=small_family.path, family="small") == 0
    assert seen == [False] and gc.isenabled()


class _Window:
    """What ``app.run`` does with a window, and nothing more."""

    class ops:  # noqa: N801 (as the window's attribute)
        read_only = ""

    def show(self) -> None: ...
    def raise_(self) -> None: ...
    def activateWindow(self) -> None: ...  # noqa: N802 (Qt's name)


class _App:
    def exec(self) -> int:
        return 0
