"""A rater's key writes the ledger once: one durable commit before the next pair shows,
one head-file write once it is painted, and nothing else on disk (issue 49)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from PySide6.QtCore import Qt

from arena.ledger import heads, integrity, voting

# Files a key may change beside the ledger: its WAL (and index), and the head file.
LEDGER_FILES = ("", "-wal", "-shm", heads.SUFFIX)


class Writes:
    """The window's ledger writes, in order: each outermost COMMIT (traced on its
    connection), each head-file write, and each new connection (a second writer)."""

    def __init__(self, window, monkeypatch) -> None:
        self.log: list[str] = []
        window.ledger.conn.set_trace_callback(self._statement)
        write, connect = heads.write, sqlite3.connect

        def head_write(*args, **kwargs):
            self.log.append("heads")
            return write(*args, **kwargs)

        def new_connection(*args, **kwargs):
            self.log.append("connect")
            return connect(*args, **kwargs)

        monkeypatch.setattr(heads, "write", head_write)
        monkeypatch.setattr(sqlite3, "connect", new_connection)

    def _statement(self, sql: str) -> None:
        word = sql.split(None, 1)[0].upper() if sql.strip() else ""
        if word in ("BEGIN", "COMMIT", "ROLLBACK"):
            self.log.append(word.lower())

    def take(self) -> list[str]:
        taken, self.log[:] = list(self.log), []
        return taken


def files_beside(ledger: Path) -> dict[str, tuple[int, int]]:
    return {
        entry.name: (entry.stat().st_mtime_ns, entry.stat().st_size)
        for entry in os.scandir(ledger.parent)
        if entry.is_file()
    }


def changed(before: dict, after: dict) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


NONE, CTRL = Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier
KEYS = (
    ("left", Qt.Key.Key_1, NONE),
    ("right", Qt.Key.Key_2, NONE),
    ("tie", Qt.Key.Key_3, NONE),
    ("both_bad", Qt.Key.Key_4, NONE),
    ("skip", Qt.Key.Key_S, NONE),
    ("undo", Qt.Key.Key_Z, CTRL),
    ("left again", Qt.Key.Key_Left, NONE),
    ("undo", Qt.Key.Key_Z, CTRL),
    ("undo", Qt.Key.Key_Z, CTRL),
    ("right again", Qt.Key.Key_Right, NONE),
)


def test_a_key_is_one_commit_then_one_head_write_after_the_paint(
    qtbot, open_window, big_ledger, answers, monkeypatch
):
    window = open_window(big_ledger, "big")
    rating = window.rating
    qtbot.waitUntil(lambda: not rating.after_paint.pending())
    writes = Writes(window, monkeypatch)
    seen: list[tuple[str, list[str], list[str]]] = []
    for name, key, modifier in KEYS:
        if name == "skip":
            answers.append("")
        before = files_beside(big_ledger)
        shown = rating.current_pair()
        # What the key wrote by the time the next pair is painted.
        painted: list[str] = []
        show_pair = rating.pair_view.show_pair

        def note(pair, show_pair=show_pair, painted=painted):
            painted[:] = writes.log
            show_pair(pair)

        monkeypatch.setattr(rating.pair_view, "show_pair", note)
        qtbot.keyClick(window, key, modifier)
        rating.pair_view.repaint()
        qtbot.waitUntil(lambda: not rating.after_paint.pending())
        monkeypatch.setattr(rating.pair_view, "show_pair", show_pair)
        assert window.ops.last_error == "", name
        assert rating.current_pair() is not None
        assert rating.current_pair() != shown or name.startswith("undo"), name
        seen.append((name, painted, writes.take()))
        # Nothing else on disk: no status cache, settings or side file of any kind.
        assert changed(before, files_beside(big_ledger)) <= {
            big_ledger.name + suffix for suffix in LEDGER_FILES
        }, name
    for name, painted, written in seen:
        # Before the pair shows: one transaction, committed, and no head file yet.
        assert painted == ["begin", "commit"], (name, painted)
        # Once it is painted: the head file, once, after that commit.
        assert written == ["begin", "commit", "heads"], (name, written)
    rows = voting.votes_in_force(window.ledger, "big", include_skips=True)
    assert [r.choice for r in rows] == ["left", "right", "tie", "right"]
    # The head file follows the ledger to its newest commit.
    recorded = heads.read(window.ledger.path)
    assert recorded is not None
    assert recorded[heads.COMMITS][heads.LEDGER]["seq"] == window.ledger.head_digest().seq
    assert integrity.check(window.ledger) == []
