"""Migration 0019: ``confirm_language`` events, by which the rater confirms that a case in
doubt expects the language it had (``arena.gates.case_doubt``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import guard_sql
from arena.ledger.migrations_0006_0011 import EVENT_KINDS as EVENT_KINDS_0006
from arena.ledger.migrations_0006_0011 import events_table
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

EVENT_KINDS: tuple[str, ...] = (*EVENT_KINDS_0006, "confirm_language")


@migrations(name="0019_confirm_language")
def _confirm_language(db: Database) -> None:
    """SQLite cannot change a CHECK constraint, so ``events`` is rebuilt with its rows
    copied unchanged (same seq, same values, same hashes: chains and seals still match)
    and its index and guards re-created."""
    run_script(
        db,
        f"""
        {events_table("events_0019", EVENT_KINDS)}
        INSERT INTO events_0019 (seq, event_id, family, kind, case_id, output_id,
                                 presentation_id, gate, language, target_event, actor, note,
                                 at, prev_hash, hash)
            SELECT seq, event_id, family, kind, case_id, output_id, presentation_id, gate,
                   language, target_event, actor, note, at, prev_hash, hash
            FROM events ORDER BY seq;
        DROP TABLE events;
        ALTER TABLE events_0019 RENAME TO events;
        CREATE INDEX events_by_family ON events(family, seq);
        """,
    )
    run_script(db, guard_sql("events", "event_id", chained=True))
    set_version(db, 19)
