"""A key's head-file write held until its pair is painted, and the read of every table a
key no longer makes: neither weakens what the head file and the seals catch."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from arena.errors import UnsealedRows
from arena.ledger import heads
from arena.rating.session import RatingSession
from tests.reliability.helpers import slip_a_presentation


def newest_commit(path) -> int:
    recorded = heads.read(str(path))
    assert recorded is not None
    return recorded[heads.COMMITS][heads.LEDGER]["seq"]


def test_a_held_head_file_lags_one_commit_and_is_written_first_by_the_next(
    small_family, ledger_path
):
    ledger = small_family
    session = RatingSession(ledger, "small", seed=1)
    session.current()
    with ledger.heads_held():
        session.vote("left")
    # Held: one commit behind the ledger, never ahead of it, and nothing is wrong.
    assert newest_commit(ledger_path) == ledger.head_digest().seq - 1
    assert ledger.behind() == []
    with ledger.heads_held():
        session.vote("right")  # the head file of the key before is written first
    assert newest_commit(ledger_path) == ledger.head_digest().seq - 1
    ledger.write_heads()
    assert newest_commit(ledger_path) == ledger.head_digest().seq
    with ledger.heads_held():
        session.skip()
    newest = ledger.head_digest().seq
    ledger.close()  # closing writes the one still due
    assert newest_commit(ledger_path) == newest


def test_without_holding_the_head_file_follows_each_commit(small_family, ledger_path):
    session = RatingSession(small_family, "small", seed=1)
    session.current()
    session.vote("tie")
    assert newest_commit(ledger_path) == small_family.head_digest().seq


def test_a_row_slipped_in_by_another_connection_between_keys_is_refused(small_family, ledger_path):
    session = RatingSession(small_family, "small", seed=1)
    session.current()
    session.vote("left")  # this connection has written: its next write may skip the read
    other = sqlite3.connect(ledger_path, isolation_level=None)
    slip_a_presentation(other)
    other.close()
    with pytest.raises(UnsealedRows, match="presentations"):
        session.vote("right")


def test_a_row_slipped_in_on_the_writers_own_connection_is_refused(small_family):
    session = RatingSession(small_family, "small", seed=1)
    session.current()
    session.vote("left")
    slip_a_presentation(small_family.conn)  # outside any transaction of Arena's
    with pytest.raises(UnsealedRows, match="presentations"):
        session.vote("right")


def test_a_long_operation_on_its_own_thread_writes_a_held_head_file_first(
    small_family, ledger_path
):
    """``LedgerOps.run_long`` opens ``beside`` on a thread of its own: the held head file is
    written before the other connection writes, and nothing is read on the wrong thread."""
    import threading

    session = RatingSession(small_family, "small", seed=1)
    session.current()
    with small_family.heads_held():
        session.vote("left")
    newest = small_family.head_digest().seq
    seen: list[object] = []

    def long_operation() -> None:
        try:
            with small_family.beside():
                seen.append(newest_commit(ledger_path))
        except BaseException as exc:
            seen.append(exc)

    worker = threading.Thread(target=long_operation)
    worker.start()
    worker.join()
    assert seen == [newest]


def test_two_threads_write_the_head_file_at_once(tmp_path):
    """The window's connection (after a paint) and a long operation's (``beside``) write the
    head file from two threads: neither may find the other's temporary file gone."""
    path = str(tmp_path / "l.sqlite")
    failures: list[BaseException] = []

    def writing(n: int) -> None:
        try:
            for i in range(150):
                heads.write(path, {"commits": {"ledger": {"seq": n * 1000 + i, "hash": "h"}}})
        except BaseException as exc:  # reported below, from the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=writing, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert json.loads(heads.path_for(path).read_text())["commits"]["ledger"]["hash"] == "h"
