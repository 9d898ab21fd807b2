"""Tampering: what tests/ledger/test_append_only.py and test_chain.py do not already cover.

Those two test every UPDATE / DELETE / REPLACE / INSERT OR REPLACE / upsert statement
and sqlite-utils call on each chained table (recursive_triggers on and off), a new row
that does not continue the chain, an edit after DROP TRIGGER, a removed vote and a
byte edited in the file. Here: the remaining SQL forms, removals from every chained
table, the real `arena check` command and its exit code, edits still in the WAL, the
newest rows removed (the head file), lost guard triggers, and a damaged head file.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database

from arena.cli.main import main as arena_main
from arena.ledger import Ledger, events, heads
from arena.ledger.integrity import check
from arena.rating.session import RatingSession
from tests.conftest import copy_ledger

CHAINED = ("presentations", "votes", "retractions", "events")


@pytest.fixture
def busy(tmp_path, template_ledger) -> Path:
    """A ledger with rows in every chained table: 6 votes, 2 undos, a flag, a retired case."""
    path = copy_ledger(template_ledger, tmp_path / "ledger.sqlite")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "rel", seed=3)
        for choice in ("left", "right", "tie", "both_bad", "left", "right"):
            session.vote(choice)
        session.undo()
        session.undo()
        session.flag("looks odd")
        events.add_event(ledger, "rel", "retire_case", case_id="c39", note="typo")
    return path


def _row(conn, table: str, where: str = "ORDER BY seq LIMIT 1") -> dict:
    cur = conn.execute(f"SELECT * FROM {table} {where}")
    return dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))


def _more_attempts(table: str, row: dict) -> list[tuple[str, list]]:
    key = next(c for c in row if c != "seq")
    cols = [c for c in row if c != "seq"]
    names, marks = ", ".join(cols), ", ".join("?" for _ in cols)
    fresh = [f"forged-{row[key]}" if c == key else row[c] for c in cols]
    all_names, all_marks = ", ".join(row), ", ".join("?" for _ in row)
    return [
        (f"UPDATE OR REPLACE {table} SET hash = hash", []),
        (f"UPDATE OR IGNORE {table} SET family = family", []),
        (
            f"UPDATE {table} SET hash = o.hash FROM (SELECT seq, hash FROM {table}) AS o "
            f"WHERE o.seq = {table}.seq",
            [],
        ),
        (f"DELETE FROM {table} WHERE seq = ? RETURNING *", [row["seq"]]),
        # A new id on an existing seq: a replace by rowid.
        (f"REPLACE INTO {table} (seq, {names}) VALUES (?, {marks})", [row["seq"], *fresh]),
        (
            f"INSERT INTO {table} ({all_names}) VALUES ({all_marks}) "
            f"ON CONFLICT(seq) DO UPDATE SET hash = excluded.hash",
            list(row.values()),
        ),
        (
            f"INSERT INTO {table} ({all_names}) VALUES ({all_marks}) "
            f"ON CONFLICT DO UPDATE SET family = excluded.family",
            list(row.values()),
        ),
        (f"INSERT OR REPLACE INTO {table} SELECT * FROM {table}", []),
    ]


@pytest.mark.parametrize("recursive_triggers", ["ON", "OFF"])
@pytest.mark.parametrize("table", CHAINED)
def test_the_other_sql_forms_are_refused_too(busy, table, recursive_triggers):
    conn = sqlite3.connect(busy)
    conn.execute(f"PRAGMA recursive_triggers = {recursive_triggers}")
    before = conn.execute(f"SELECT * FROM {table} ORDER BY seq").fetchall()
    for sql, params in _more_attempts(table, _row(conn, table)):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql, params).fetchall()
        conn.rollback()
    assert conn.execute(f"SELECT * FROM {table} ORDER BY seq").fetchall() == before
    conn.close()


@pytest.mark.parametrize("recursive_triggers", [True, False])
def test_sqlite_utils_bulk_calls_are_refused(busy, recursive_triggers):
    db = Database(sqlite3.connect(busy), recursive_triggers=recursive_triggers)
    for table in CHAINED:
        t = db[table]
        before = list(t.rows)
        row = before[0]
        key = next(c for c in row if c != "seq")
        bare = {k: v for k, v in row.items() if k != "seq"}
        attempts = [
            (t.delete_where, ("seq >= ?", [row["seq"]]), {}),
            (t.update, (row["seq"], {key: row[key]}), {}),
            (t.upsert_all, ([bare],), {"pk": key}),
            (t.insert_all, ([row],), {"replace": True, "batch_size": 1}),
        ]
        for call, args, kwargs in attempts:
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                call(*args, **kwargs)
            db.conn.rollback()
        assert list(t.rows) == before
    db.close()


def _tamper(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def _triggers(conn, table: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", [table]
        )
    ]


@pytest.mark.parametrize("table", CHAINED)
def test_a_row_removed_from_the_middle_of_any_chain_is_found(busy, table):
    conn = sqlite3.connect(busy)
    seqs = [r[0] for r in conn.execute(f"SELECT seq FROM {table} ORDER BY seq")]
    drops = [f"DROP TRIGGER {name}" for name in _triggers(conn, table)]
    conn.close()
    assert len(seqs) >= 2
    _tamper(busy, "PRAGMA foreign_keys = OFF", *drops, f"DELETE FROM {table} WHERE seq = {seqs[0]}")
    with Ledger.open(busy, readonly=True) as reader:
        problems = check(reader)
    assert any(p.startswith(f"{table} seq {seqs[1]}") and "removed" in p for p in problems) or any(
        p.startswith("foreign key") for p in problems
    ), problems


@pytest.mark.parametrize("table", CHAINED)
def test_an_edit_with_the_guards_dropped_is_found_in_any_chain(busy, table):
    conn = sqlite3.connect(busy)
    drops = [f"DROP TRIGGER {name}" for name in _triggers(conn, table)]
    conn.close()
    column = {
        "presentations": "shown_at",
        "votes": "voted_at",
        "retractions": "retracted_at",
        "events": "at",
    }[table]
    _tamper(
        busy,
        *drops,
        f"UPDATE {table} SET {column} = '2020-01-01T00:00:00.000+00:00' "
        f"WHERE seq = (SELECT MIN(seq) FROM {table})",
    )
    with Ledger.open(busy, readonly=True) as reader:
        problems = check(reader)
    assert any(p.startswith(f"{table} seq") and "edited" in p for p in problems), problems


def test_arena_check_command_finds_edits_still_in_the_wal(busy, capsys):
    """Run the real CLI (a subprocess) while a writer holds the ledger open, with one
    edit per chained table committed to the WAL and not yet checkpointed."""
    assert arena_main(["--ledger", str(busy), "check"]) == 0
    assert "ok" in capsys.readouterr().out
    writer = Ledger.open(busy)  # the window stays open: nothing is checkpointed
    try:
        conn = sqlite3.connect(busy)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        for table in CHAINED:
            for name in _triggers(conn, table):
                conn.execute(f"DROP TRIGGER {name}")
            conn.execute(
                f"UPDATE {table} SET family = 'forged' WHERE seq = (SELECT MIN(seq) FROM {table})"
            )
        conn.commit()
        conn.close()
        wal = Path(str(busy) + "-wal")
        assert wal.stat().st_size > 0
        done = subprocess.run(
            [sys.executable, "-m", "arena", "--ledger", str(busy), "check", "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        writer.close()
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False
    for table in CHAINED:
        assert any(p.startswith(f"{table} seq") for p in report["problems"]), table
    assert re.search(r"\d+ problems? found", done.stderr)


# ---------------------------------------------------------------------------------------
# The newest rows: anchored by the head file (arena/ledger/heads.py)


def test_removing_the_newest_vote_is_found(busy):
    with Ledger.open(busy) as ledger:  # the chain's newest row: a vote nobody refers to
        newest = RatingSession(ledger, "rel", seed=4).vote("left").vote_id
    _tamper(busy, "DROP TRIGGER votes_no_delete", f"DELETE FROM votes WHERE vote_id = '{newest}'")
    with Ledger.open(busy, readonly=True) as reader:
        problems = check(reader)
    assert any("newest rows are gone" in p for p in problems), problems


def test_a_byte_edited_in_the_wal_after_a_crash_is_found(busy, tmp_path):
    """SQLite drops a WAL frame whose checksum fails, and every frame after it: the
    newest votes vanish from a valid, shorter chain. The head file notices."""
    writer = Ledger.open(busy)
    session = RatingSession(writer, "rel", seed=5)
    for _ in range(3):
        session.vote("tie")
    # What a crash leaves: the database file, its WAL and the head file; the writer gone.
    crashed = tmp_path / "crashed.sqlite"
    for suffix in ("", "-wal", heads.SUFFIX):
        shutil.copyfile(str(busy) + suffix, str(crashed) + suffix)
    writer.close()
    wal = Path(str(crashed) + "-wal")
    data = bytearray(wal.read_bytes())
    at = data.rfind(b"tie2026")
    assert at > 0
    data[at + 1] = ord("I")
    wal.write_bytes(bytes(data))
    with Ledger.open(crashed, readonly=True) as reader:
        problems = check(reader)
    assert any("newest rows are gone" in p for p in problems), problems


def test_lost_guard_triggers_are_reported(busy):
    db = Database(busy)
    db["votes"].transform()  # rebuilds the table: same rows, no triggers
    assert _triggers(db.conn, "votes") == []
    db.close()
    with Ledger.open(busy, readonly=True) as reader:
        problems = check(reader)
    assert any("votes: the append-only guard" in p for p in problems), problems


@pytest.mark.parametrize("content", ["", "{", "[]", '{"votes": 3}'])
def test_a_damaged_head_file_is_reported_not_a_crash(busy, content):
    Path(str(busy) + heads.SUFFIX).write_text(content, encoding="utf-8")
    with Ledger.open(busy, readonly=True) as reader:
        problems = check(reader)
    assert any("head file" in p for p in problems), problems


@pytest.mark.parametrize(
    "content",
    [
        '{"votes": {"rel": {"seq": 99999999999999999999999, "hash": "00"}}}',
        "[" * 100_000 + "]" * 100_000,
        '{"votes": {"rel": {"seq": -1, "hash": "00"}}}',
    ],
)
def test_a_forged_head_file_is_reported_not_a_crash(tmp_path, content):
    from arena.ledger import Ledger, heads
    from arena.ledger.integrity import check

    path = tmp_path / "l.sqlite"
    Ledger.open(path).close()
    heads.path_for(str(path)).write_text(content, "utf-8")
    with Ledger.open(path, readonly=True) as ledger:
        problems = check(ledger)
    assert any("head file" in p and "unreadable" in p for p in problems), problems
