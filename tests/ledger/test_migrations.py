"""Every earlier schema version migrates to the newest one, keeping its rows."""

import sqlite3

import pytest
from sqlite_utils import Database

from arena.ledger import Ledger
from arena.ledger.schema import SCHEMA_VERSION, migrate, migration_names


def _old_ledger(path, stop_before: str) -> Database:
    """A ledger migrated up to ``stop_before``, holding one family."""
    db = Database(sqlite3.connect(path))
    migrate(db, stop_before=stop_before)
    db["families"].insert(
        {
            "name": "f",
            "kind": "votes",
            "language": "en",
            "min_chars": 1,
            "max_chars": 10,
            "aspect": "",
            "reference": None,
            "created_at": "2026-01-01T00:00:00.000+00:00",
        }
    )
    return db


def _version(db: Database) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def test_migrations_are_named_and_ordered_and_set_the_version():
    names = migration_names()
    assert names == sorted(names)
    assert len(names) == SCHEMA_VERSION
    db = Database(memory=True)
    for position, name in enumerate(names):
        migrate(db, stop_before=name)
        assert _version(db) == position
    migrate(db)
    assert _version(db) == SCHEMA_VERSION


@pytest.mark.parametrize("stop_before", migration_names()[1:])
def test_a_ledger_at_each_earlier_version_upgrades_with_its_rows(tmp_path, stop_before):
    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, stop_before)
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert ledger.pragma("user_version") == SCHEMA_VERSION
        assert [r["name"] for r in ledger.db["families"].rows] == ["f"]
        applied = [r["name"] for r in ledger.db["_sqlite_migrations"].rows]
        assert applied == migration_names()


def test_a_failing_migration_leaves_no_trace(tmp_path):
    from sqlite_utils.migrations import Migrations

    trial = Migrations("trial")

    @trial(name="0001_half")
    def _half(db):
        db.execute("CREATE TABLE a (x)")
        db.execute("PRAGMA user_version = 7")
        raise RuntimeError("boom")

    db = Database(sqlite3.connect(tmp_path / "t.sqlite"))
    with pytest.raises(RuntimeError):
        trial.apply(db)
    assert not db["a"].exists()
    assert _version(db) == 0


def test_a_round_closed_before_round_items_keeps_its_comparisons(tmp_path):
    import json

    from arena.ledger import round_store as stored_rounds

    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, "0007_round_items")
    results = {
        "anchor": None,
        "systems": [],
        "categories": {},
        "summary": {},
        "fit": None,
        "chain_heads": {},
        "comparisons": [{"source": "vote", "y": 1.0}],
        "receipts": [],
    }
    db["rounds"].insert(
        {
            "round_id": "r1",
            "family": "f",
            "closed_at": "2026-01-02",
            "settings": json.dumps({"weighting": "unit"}),
            "results": json.dumps(results),
        }
    )
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        found = stored_rounds.find_round(ledger, "r1")
        assert "comparisons" not in found and "receipts" not in found
        assert list(stored_rounds.items(ledger, "r1", "comparison")) == [
            {"source": "vote", "y": 1.0}
        ]
        assert list(stored_rounds.items(ledger, "r1", "receipt")) == []


def test_a_round_stored_as_round_items_rows_keeps_its_comparisons(tmp_path):
    import json

    from arena.ledger import round_store as stored_rounds

    path = tmp_path / "old.sqlite"
    db = _old_ledger(path, "0009_round_comparisons")
    db["rounds"].insert(
        {
            "round_id": "r1",
            "family": "f",
            "closed_at": "2026-01-02",
            "settings": json.dumps({"weighting": "unit"}),
            "results": json.dumps({"systems": [], "chain_heads": {}}),
        }
    )
    rows = [{"source": "vote", "y": 1.0, "vote_id": "v1"}, {"source": "settled", "y": 0.5}]
    for seq, row in enumerate(rows):
        db["round_items"].insert(
            {"round_id": "r1", "kind": "comparison", "seq": seq, "body": json.dumps(row)}
        )
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert list(stored_rounds.items(ledger, "r1", "comparison")) == rows
        assert stored_rounds.find_round(ledger, "r1")["round"] == "r1"
        assert not stored_rounds.gated_on(ledger, "f", "anything")
