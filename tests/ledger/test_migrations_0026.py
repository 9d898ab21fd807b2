"""Migration 0026: run judges' descriptors and replies, in tables that only grow, added to a
ledger whose earlier rows keep their seals."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ledger import Ledger, integrity, judge_runs, seal_spans
from tests.ledger.test_migrations import _old_ledger


def test_a_ledger_before_0026_opens_with_no_run_judge_and_sound(tmp_path):
    path = tmp_path / "v25.sqlite"
    db = _old_ledger(path, "0026_judge_runs")
    assert not db["judge_replies"].exists() and not db["judge_descriptors"].exists()
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert judge_runs.run_judges(ledger, "f") == []
        assert seal_spans.verify(ledger.db) == []
        assert [p for p in integrity.check(ledger) if "head file" not in p] == []


def test_a_name_goes_to_one_descriptor_and_replies_only_grow(ledger):
    from arena.intake.families import create_family
    from arena.intake.family_settings import FamilySettings

    with ledger.atomic():
        create_family(ledger, "f", FamilySettings(kind="votes", language="en"))
    judge = judge_runs.StoredJudge("gpt", "1" * 64, {"model": "m"}, "2" * 64)
    with ledger.atomic():
        judge_runs.add_judge(ledger, "f", judge, "2026-01-01")
    with pytest.raises(sqlite3.IntegrityError), ledger.atomic():
        judge_runs.add_judge(
            ledger, "f", judge_runs.StoredJudge("gpt", "3" * 64, {}, "2" * 64), "x"
        )
    for edit in ("UPDATE judge_descriptors SET judge = 'x'", "DELETE FROM judge_descriptors"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            ledger.conn.execute(edit)
    assert judge_runs.run_judges(ledger, "f") == [judge] and integrity.check(ledger) == []
