"""Migration 0024: a family's mixed-harness setting, recorded like its other settings, in a
ledger whose earlier changes keep their rows and seals."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ledger import Ledger, family_changes, seal_spans, seals
from tests.ledger.test_migrations import _old_ledger


def test_family_changes_before_0024_keep_their_rows_and_seals(tmp_path):
    path = tmp_path / "v23.sqlite"
    db = _old_ledger(path, "0024_mixed_harness")
    db["family_changes"].insert(
        {"change_id": "c1", "family": "f", "setting": "language", "value": '"ja"',
         "actor": "rater", "reason": "", "at": "2026-01-02T00:00:00.000+00:00"}
    )  # fmt: skip
    seals.seal(db, seals.marks(db))
    with pytest.raises(sqlite3.IntegrityError):  # the old CHECK knew no such setting
        db["family_changes"].insert(
            {"change_id": "c2", "family": "f", "setting": "mixed_harness",
             "value": '"allow"', "actor": "rater", "reason": "", "at": "2026"}
        )  # fmt: skip
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert family_changes.changes(ledger, "f")[0].change_id == "c1"
        assert seal_spans.verify(ledger.db) == []
        assert family_changes.mixed_harness(ledger, "f") == "report"  # the default
        ledger.db.execute(  # the CHECK takes the setting now
            "INSERT INTO family_changes (change_id, family, setting, value, actor, at) "
            """VALUES ('c2', 'f', 'mixed_harness', '"allow"', 'rater', '2026')"""
        )
        assert family_changes.mixed_harness(ledger, "f") == "allow"
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            ledger.db.execute("DELETE FROM family_changes")
