"""Migration 0027: presentation draws in a sealed table of their own, and the unsure-first
setting, added to a ledger whose earlier rows keep their seals."""

from __future__ import annotations

from arena.ledger import Ledger, family_changes, integrity, seal_spans
from tests.ledger.test_migrations import _old_ledger


def test_a_ledger_before_0027_opens_with_no_draws_and_sound(tmp_path):
    path = tmp_path / "v26.sqlite"
    db = _old_ledger(path, "0027_presentation_draws")
    assert not db["presentation_draws"].exists()
    db.conn.commit()
    db.close()
    with Ledger.open(path) as ledger:
        assert ledger.conn.execute("SELECT COUNT(*) FROM presentation_draws").fetchone() == (0,)
        assert seal_spans.verify(ledger.db) == []
        assert [p for p in integrity.check(ledger) if "head file" not in p] == []


def test_draws_only_grow_and_the_setting_is_recorded(ledger):
    from arena.intake.families import create_family, session_settings
    from arena.intake.family_settings import FamilySettings

    with ledger.atomic():
        create_family(ledger, "f", FamilySettings(kind="votes", language="en"))
    assert session_settings(ledger, "f")["unsure_first"] == "off"
    with ledger.atomic():
        family_changes.add_change(ledger, "f", "unsure_first", "on")
    assert family_changes.unsure_first(ledger, "f") == "on"
    guards = {
        r[0]
        for r in ledger.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
            ["presentation_draws"],
        )
    }
    assert len(guards) >= 2  # no update, no delete
    assert integrity.check(ledger) == []
