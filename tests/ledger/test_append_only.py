"""Votes, presentations, retractions and events can never be changed, removed or replaced."""

import sqlite3

import pytest
from sqlite_utils import Database

from arena.ledger import events, voting
from tests.votes_helpers import cast

CHAINED = ("votes", "presentations", "retractions", "events")


@pytest.fixture
def full_ledger(small_family):
    vote = cast(small_family)
    cast(small_family, case_index=1)
    voting.retract(small_family, vote.vote_id)
    events.add_event(small_family, "small", "retire_case", case_id="c4", note="typo")
    # No round API yet: a closed round row as the rounds issue will write it.
    small_family.db["rounds"].insert(
        {
            "round_id": "r1",
            "family": "small",
            "closed_at": "2026-11-30T10:00:00.000+00:00",
            "settings": "{}",
            "results": "{}",
        }
    )
    return small_family


def _row(db, table):
    cur = db.execute(f"SELECT * FROM {table} ORDER BY seq LIMIT 1")
    return dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))


def _attempts(table, row):
    cols = [c for c in row if c != "seq"]
    names = ", ".join(cols)
    marks = ", ".join("?" for _ in cols)
    values = [row[c] for c in cols]
    key = cols[0]
    with_seq = ", ".join(row)
    seq_marks = ", ".join("?" for _ in row)
    return [
        (f"UPDATE {table} SET {key} = {key}", []),
        (f"UPDATE {table} SET hash = 'x'", []),
        (f"DELETE FROM {table}", []),
        (f"DELETE FROM {table} WHERE seq = ?", [row["seq"]]),
        (f"REPLACE INTO {table} ({names}) VALUES ({marks})", values),
        (f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({marks})", values),
        (f"INSERT OR REPLACE INTO {table} ({with_seq}) VALUES ({seq_marks})", list(row.values())),
        (f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})", values),
        (
            f"INSERT INTO {table} ({names}) VALUES ({marks}) "
            f"ON CONFLICT({key}) DO UPDATE SET hash = 'x'",
            values,
        ),
        (f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING", values),
    ]


@pytest.mark.parametrize("recursive_triggers", [True, False])
@pytest.mark.parametrize("table", CHAINED)
def test_no_sql_statement_changes_an_append_only_table(full_ledger, table, recursive_triggers):
    conn = sqlite3.connect(full_ledger.path)
    conn.execute(f"PRAGMA recursive_triggers = {'ON' if recursive_triggers else 'OFF'}")
    before = conn.execute(f"SELECT * FROM {table} ORDER BY seq").fetchall()
    row = _row(conn, table)
    for sql, params in _attempts(table, row):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql, params)
        conn.rollback()
    assert conn.execute(f"SELECT * FROM {table} ORDER BY seq").fetchall() == before
    conn.close()


@pytest.mark.parametrize("recursive_triggers", [True, False])
@pytest.mark.parametrize("table", CHAINED)
def test_no_sqlite_utils_call_changes_an_append_only_table(full_ledger, table, recursive_triggers):
    db = Database(sqlite3.connect(full_ledger.path), recursive_triggers=recursive_triggers)
    before = list(db[table].rows)
    row = _row(db, table)
    key = next(c for c in row if c not in ("seq",))
    t = db[table]
    attempts = [
        lambda: t.update(row["seq"], {"hash": "x"}),
        lambda: t.delete(row["seq"]),
        lambda: t.delete_where(),
        lambda: t.insert(row, replace=True),
        lambda: t.insert({k: v for k, v in row.items() if k != "seq"}, replace=True),
        lambda: t.upsert(row, pk="seq"),
        lambda: t.upsert({k: v for k, v in row.items() if k != "seq"}, pk=key),
        lambda: t.insert_all([row], replace=True),
        lambda: t.upsert_all([row], pk="seq"),
    ]
    for attempt in attempts:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            attempt()
        db.conn.rollback()
    assert list(db[table].rows) == before
    db.close()


def test_a_new_row_must_continue_the_chain(full_ledger):
    conn = sqlite3.connect(full_ledger.path)
    row = _row(conn, "events")
    row.update(seq=None, event_id="forged")
    cols = ", ".join(row)
    with pytest.raises(sqlite3.IntegrityError, match="chain"):
        conn.execute(
            f"INSERT INTO events ({cols}) VALUES ({', '.join('?' for _ in row)})",
            list(row.values()),
        )


@pytest.mark.parametrize("table", ["systems", "outputs", "rounds", "sessions", "gate_results"])
def test_catalog_rows_are_never_overwritten(full_ledger, table):
    conn = sqlite3.connect(full_ledger.path)
    conn.execute("PRAGMA recursive_triggers = OFF")
    cur = conn.execute(f"SELECT * FROM {table} LIMIT 1")
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    names, marks = ", ".join(row), ", ".join("?" for _ in row)
    for sql, params in [
        (f"UPDATE {table} SET rowid = rowid", []),
        (f"DELETE FROM {table}", []),
        (f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({marks})", list(row.values())),
    ]:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql, params)
        conn.rollback()
