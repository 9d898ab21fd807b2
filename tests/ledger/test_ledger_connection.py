import sqlite3
import subprocess
import sys
import textwrap

import pytest

from arena.errors import LedgerError, LedgerLocked, LedgerTooNew
from arena.ledger import Ledger, integrity
from arena.ledger.schema import SCHEMA_VERSION
from arena.ledger.transaction import transaction


def test_every_connection_is_wal_with_full_sync_and_foreign_keys(ledger):
    assert ledger.pragma("journal_mode") == "wal"
    assert ledger.pragma("synchronous") == 2  # FULL
    assert ledger.pragma("foreign_keys") == 1
    assert ledger.pragma("user_version") == SCHEMA_VERSION


def test_read_only_connections_read_back_the_same_pragmas(ledger_path):
    Ledger.open(ledger_path).close()
    with Ledger.open(ledger_path, readonly=True) as reader:
        assert reader.pragma("journal_mode") == "wal"
        assert reader.pragma("synchronous") == 2
        assert reader.pragma("foreign_keys") == 1


@pytest.mark.skipif(sys.platform != "darwin", reason="fullfsync matters on macOS only")
def test_macos_connections_use_fullfsync(ledger):
    assert ledger.pragma("fullfsync") == 1


def test_a_second_writer_in_this_process_is_refused(ledger, ledger_path):
    with pytest.raises(LedgerLocked, match="open for writing"):
        Ledger.open(ledger_path)


def test_a_second_writer_process_is_refused_while_readers_are_allowed(ledger, ledger_path):
    code = textwrap.dedent(f"""
        from arena.ledger import Ledger
        from arena.errors import LedgerLocked
        try:
            Ledger.open({str(ledger_path)!r})
        except LedgerLocked as exc:
            print("refused:", exc)
        with Ledger.open({str(ledger_path)!r}, readonly=True) as r:
            print("read", r.pragma("user_version"))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "refused:" in out and "close it there first" in out
    assert f"read {SCHEMA_VERSION}" in out


def test_the_lock_is_released_on_close(ledger_path):
    Ledger.open(ledger_path).close()
    Ledger.open(ledger_path).close()


def test_a_ledger_from_a_newer_arena_is_refused(ledger_path):
    Ledger.open(ledger_path).close()
    import sqlite3

    conn = sqlite3.connect(ledger_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(LedgerTooNew, match="newer Arena"):
        Ledger.open(ledger_path)
    with pytest.raises(LedgerTooNew):
        Ledger.open(ledger_path, readonly=True)


def test_a_file_that_is_not_a_database_is_refused_clearly(ledger_path):
    ledger_path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LedgerError, match="not a usable Arena ledger"):
        Ledger.open(ledger_path)


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX; Windows locks by path")
@pytest.mark.parametrize("link", ["hard", "symbolic"])
def test_a_second_writer_through_a_link_is_refused(ledger, ledger_path, tmp_path, link):
    import os

    other = tmp_path / "elsewhere" / "alias.sqlite"
    other.parent.mkdir()
    (os.link if link == "hard" else os.symlink)(ledger_path, other)
    code = textwrap.dedent(f"""
        from arena.ledger import Ledger
        from arena.errors import LedgerLocked
        try:
            Ledger.open({str(other)!r})
        except LedgerLocked as exc:
            print("refused:", exc)
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "refused:" in out and "a link to the same file" in out
    # In this process too, and the ledger still writes afterwards.
    with pytest.raises(LedgerLocked):
        Ledger.open(other)
    assert ledger.pragma("user_version") == SCHEMA_VERSION  # the first writer is unharmed


def test_another_applications_database_is_never_turned_into_a_ledger(ledger_path):
    import sqlite3

    conn = sqlite3.connect(ledger_path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()
    before = ledger_path.read_bytes()
    with pytest.raises(LedgerError, match="another application"):
        Ledger.open(ledger_path)
    assert ledger_path.read_bytes() == before
    Ledger.open(ledger_path.with_name("fresh.sqlite")).close()  # a new file is fine


def test_rating_writes_without_loading_sqlite_utils(small_family):
    """Opening a ledger for writing at the newest schema, and a rating session's votes,
    skips, undo and flags, go through the bare connection: the window never pays for
    importing sqlite-utils. What they write is sealed and chained as ever."""
    path = small_family.path
    small_family.close()
    code = textwrap.dedent(f"""
        import sys
        from arena.ledger import Ledger
        from arena.rating.session import RatingSession
        with Ledger.open({path!r}) as ledger:
            session = RatingSession(ledger, "small", seed=3)
            for choice in ("left", "right", "tie"):
                session.current()
                session.peek_next()
                session.vote(choice)
            session.undo()
            session.current()
            session.skip()
            session.current()
            session.flag("a broken prompt")
        print("sqlite_utils" in sys.modules)
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False"]
    with Ledger.open(path, readonly=True) as reader:
        assert integrity.check(reader) == []
        kinds = reader.conn.execute("SELECT choice FROM votes ORDER BY seq").fetchall()
        assert [k for (k,) in kinds] == ["left", "right", "tie", "skip"]
        assert reader.conn.execute("SELECT COUNT(*) FROM retractions").fetchone() == (1,)


def test_a_failure_inside_undoes_only_its_own_transaction_or_savepoint():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (x)")

    def stored() -> list[int]:
        return [x for (x,) in conn.execute("SELECT x FROM t ORDER BY x")]

    with transaction(conn):
        conn.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(ZeroDivisionError), transaction(conn):
            conn.execute("INSERT INTO t VALUES (2)")
            _ = 1 / 0
        conn.execute("INSERT INTO t VALUES (3)")
    assert stored() == [1, 3] and not conn.in_transaction
    with pytest.raises(ZeroDivisionError), transaction(conn):
        conn.execute("INSERT INTO t VALUES (4)")
        _ = 1 / 0
    assert stored() == [1, 3] and not conn.in_transaction


def test_a_statement_outside_a_transaction_leaves_none_open(ledger):
    """A writer's connection has no implicit BEGIN, which would turn the next
    ``Ledger.atomic`` into a savepoint of a transaction nothing commits."""
    ledger.conn.execute("CREATE TEMP TABLE scratch (x)")
    ledger.conn.execute("INSERT INTO scratch VALUES (1)")
    assert not ledger.conn.in_transaction
