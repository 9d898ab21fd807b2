"""Migration 0025: which key brought which rater, in a table that only grows, added to a
ledger whose earlier rows keep their seals."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ledger import Ledger, integrity, seal_spans
from arena.ledger.rater_keys import RaterKey, add_rater_key, rater_keys
from tests.ledger.test_migrations import _old_ledger

DANA = RaterKey("dana", "ed25519:" + "d" * 32, "rater")


def test_a_ledger_before_0025_opens_with_no_colleague_and_sound(tmp_path):
    path = tmp_path / "v24.sqlite"
    db = _old_ledger(path, "0025_rater_keys")
    assert not db["rater_keys"].exists()
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert rater_keys(ledger) == []
        assert seal_spans.verify(ledger.db) == []
        assert [p for p in integrity.check(ledger) if "head file" not in p] == []


def test_a_name_goes_to_one_key_and_stays(ledger):
    with ledger.atomic():
        add_rater_key(ledger, DANA, "5" * 64)
    assert rater_keys(ledger) == [DANA]
    for taken in (
        RaterKey("dana", "ed25519:" + "e" * 32, "rater"),  # another key, the same name
        RaterKey("dee", DANA.signer, DANA.voter),  # the same key and voter, another name
        RaterKey("settler", "ed25519:" + "e" * 32, "rater"),
    ):
        with pytest.raises(sqlite3.IntegrityError), ledger.atomic():
            add_rater_key(ledger, taken, "6" * 64)
    for edit in ("UPDATE rater_keys SET rater = 'dee'", "DELETE FROM rater_keys"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            ledger.conn.execute(edit)
    assert rater_keys(ledger) == [DANA] and integrity.check(ledger) == []
