"""Seals across a schema change: a column a later migration adds leaves earlier seals valid."""

from __future__ import annotations

from arena.ledger import Ledger, catalog, events, heads, seals
from arena.ledger.integrity import check
from arena.records import Family
from tests.votes_helpers import cast


def test_a_column_added_later_keeps_the_seals_and_a_value_set_in_it_is_found(small_family):
    cast(small_family)
    small_family.db.execute("ALTER TABLE outputs ADD COLUMN settle_key TEXT")
    assert check(small_family) == []
    small_family.db.execute("DROP TRIGGER outputs_no_update")
    small_family.db.execute(
        "UPDATE outputs SET settle_key = 'x' WHERE rowid = (SELECT MIN(rowid) FROM outputs)"
    )
    assert any(p.startswith("outputs: rows") for p in check(small_family))


def test_every_write_transaction_is_one_commit_and_reads_are_none(small_family):
    before = seals.head(small_family.db)
    with small_family.atomic():
        small_family.db.execute("SELECT COUNT(*) FROM outputs").fetchone()
    assert seals.head(small_family.db) == before
    with small_family.atomic():
        events.add_event(small_family, "small", "flag", case_id="c1", note="one")
        events.add_event(small_family, "small", "flag", case_id="c2", note="two")
    after = seals.head(small_family.db)
    assert after is not None and before is not None and after.seq == before.seq + 1
    (tables,) = small_family.db.execute(
        "SELECT tables FROM commits WHERE seq = ?", [after.seq]
    ).fetchone()
    assert '"events":{"from"' in tables and '"rows":2' in tables


def test_a_new_ledger_starts_with_an_empty_genesis(tmp_path):
    with Ledger.open(tmp_path / "new.sqlite") as ledger:
        (kind, tables) = ledger.db.execute("SELECT kind, tables FROM commits").fetchone()
    assert (kind, tables) == ("genesis", "{}")


# The reading seals.marks replaced: every commit's JSON, grouped by table.
_EVERY_COMMIT = (
    "SELECT t.key, MAX(json_extract(t.value, '$.to')) FROM commits, json_each(commits.tables) "
    "t WHERE json_extract(t.value, '$.to') IS NOT NULL GROUP BY t.key"
)


def test_marks_read_from_the_index_are_what_every_commit_says(small_family):
    cast(small_family)
    with small_family.atomic():
        events.add_event(small_family, "small", "flag", case_id="c1", note="one")
    found = seals.marks(small_family.db)
    assert found == dict(small_family.db.execute(_EVERY_COMMIT).fetchall())
    assert {"outputs", "gate_results", "presentations", "votes", "events"} <= set(found)


def test_every_table_a_commit_seals_by_range_has_an_index_of_its_reach(ledger):
    """A migration that adds a table must add its index (migration 0016): without one,
    the first write of every process reads every commit."""
    for table in seals.sealed_tables(ledger.db):
        if table in seals.CHILDREN:
            continue
        reach = seals.reach(table)
        plan = ledger.db.execute(
            f"EXPLAIN QUERY PLAN SELECT MAX({reach}) FROM commits WHERE {reach} IS NOT NULL"
        ).fetchall()
        assert f"USING INDEX commits_reach_{table}" in plan[-1][-1], table


def test_newest_rowids_read_in_one_statement_are_each_tables_own(small_family):
    cast(small_family)
    found = seals.newest(small_family.conn)
    expected = {
        table: small_family.conn.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 0
        for table in seals.sealed_tables(small_family.conn)
        if table not in seals.CHILDREN
    }
    assert found == expected
    assert found["votes"] > 0 and 0 in found.values()  # a table with no rows reads 0


def test_only_the_first_head_file_waits_for_its_folder(tmp_path, monkeypatch):
    """A later rename lost to a power cut leaves the head file behind the ledger, which is
    allowed; the first one lost would read as a deleted head file."""
    synced = []
    monkeypatch.setattr(heads, "_sync_folder", synced.append)
    with Ledger.open(tmp_path / "new.sqlite") as ledger:
        assert synced == [tmp_path]
        with ledger.atomic():
            catalog.add_family(ledger, Family("f"))
        assert synced == [tmp_path]
        assert heads.read(ledger.path) == heads.current(ledger.conn)
