"""Background work: its result comes back on the window's thread; a newer start drops the
older result; an error is handed to ``failed``."""

from __future__ import annotations

import threading

from arena.ui.background import Background


def test_the_newest_work_alone_is_handed_back(qtbot):
    worker = Background()
    gates = {"older": threading.Event(), "newer": threading.Event()}
    done: list[tuple[str, bool]] = []

    def work(name: str) -> str:
        gates[name].wait(10)
        return name

    def record(value: str) -> None:
        done.append((value, threading.current_thread() is threading.main_thread()))

    worker.start(lambda: work("older"), record, lambda e: None)
    worker.start(lambda: work("newer"), record, lambda e: None)
    gates["older"].set()  # the older work ends first: its result is dropped
    qtbot.wait(300)
    assert worker.busy and done == []
    gates["newer"].set()
    qtbot.waitUntil(lambda: not worker.busy, timeout=5_000)
    assert done == [("newer", True)]


def test_an_error_goes_to_failed(qtbot):
    worker = Background()
    failed: list[BaseException] = []

    def broken() -> None:
        raise ValueError("no such family")

    worker.start(broken, lambda _: None, failed.append)
    qtbot.waitUntil(lambda: not worker.busy, timeout=5_000)
    assert [str(e) for e in failed] == ["no such family"]


def test_cancel_drops_the_result(qtbot):
    worker = Background()
    done: list[str] = []
    worker.start(lambda: "late", done.append, lambda e: None)
    worker.cancel()
    qtbot.wait(200)
    assert not worker.busy and done == []
