"""Migrations 0006–0011: decisions, round items, gate fingerprints, stored comparisons,
one vote in force per presentation, seals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger import seals
from arena.ledger.guards import guard_sql
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# Event kinds: the rater's corrections of automatic decisions (and flags), each undone
# by a later ``retract`` event naming it.
EVENT_KINDS: tuple[str, ...] = (
    "retire_case",
    "remove_output",
    "flag",
    "set_language",
    "overrule",
    "retract",
)
# Columns added to events by 0006: a row written before has them NULL, and the hash
# chain leaves NULL values of these out, so rows chained before keep their hashes.
EVENT_COLUMNS_0006: tuple[str, ...] = ("gate", "language", "target_event", "actor")


def events_table(name: str, kinds: tuple[str, ...]) -> str:
    """The events table's definition, its ``kind`` one of ``kinds``."""
    among = ", ".join(f"'{k}'" for k in kinds)
    return f"""
        CREATE TABLE {name} (
            seq INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL REFERENCES families(name),
            kind TEXT NOT NULL CHECK (kind IN ({among})),
            case_id TEXT,
            output_id TEXT REFERENCES outputs(output_id),
            presentation_id TEXT REFERENCES presentations(presentation_id),
            gate TEXT,
            language TEXT,
            target_event TEXT,
            actor TEXT,
            note TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );"""


@migrations(name="0006_decisions")
def _decisions(db: Database) -> None:
    """Events that set a case's language, overrule a gate, or retract an event; case languages.

    SQLite cannot change a CHECK constraint, so the events table is rebuilt with
    its rows copied unchanged (same seq, same hashes) and its guards re-created.
    """
    run_script(
        db,
        f"""
        {events_table("events_0006", EVENT_KINDS)}
        INSERT INTO events_0006 (seq, event_id, family, kind, case_id, output_id,
                                 presentation_id, note, at, prev_hash, hash)
            SELECT seq, event_id, family, kind, case_id, output_id, presentation_id, note, at,
                   prev_hash, hash FROM events ORDER BY seq;
        DROP TABLE events;
        ALTER TABLE events_0006 RENAME TO events;
        CREATE INDEX events_by_family ON events(family, seq);
        ALTER TABLE cases ADD COLUMN language TEXT;
        ALTER TABLE cases ADD COLUMN detected_language TEXT;
        ALTER TABLE cases ADD COLUMN language_evidence TEXT NOT NULL DEFAULT '';
    """,
    )
    run_script(db, guard_sql("events", "event_id", chained=True))
    set_version(db, 6)


@migrations(name="0007_round_items")
def _round_items(db: Database) -> None:
    """A round's comparisons and receipts, a row each, apart from its board.

    Showing a board then reads one small row, not every comparison; an export
    streams the rows. Rounds closed before keep theirs inside ``results``.
    """
    run_script(
        db,
        """
        CREATE TABLE round_items (
            round_id TEXT NOT NULL REFERENCES rounds(round_id),
            kind TEXT NOT NULL CHECK (kind IN ('comparison', 'receipt')),
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (round_id, kind, seq)
        ) WITHOUT ROWID;
        CREATE TRIGGER round_items_no_update BEFORE UPDATE ON round_items
        BEGIN SELECT RAISE(ABORT, 'round_items is append-only: rows cannot be changed'); END;
        CREATE TRIGGER round_items_no_delete BEFORE DELETE ON round_items
        BEGIN SELECT RAISE(ABORT, 'round_items is append-only: rows cannot be removed'); END;
        CREATE TRIGGER round_items_no_replace BEFORE INSERT ON round_items
        WHEN EXISTS (SELECT 1 FROM round_items WHERE round_id = NEW.round_id
                     AND kind = NEW.kind AND seq = NEW.seq)
        BEGIN SELECT RAISE(ABORT, 'round_items is append-only: item already recorded'); END;
    """,
    )
    set_version(db, 7)


@migrations(name="0008_gate_fingerprints")
def _gate_fingerprints(db: Database) -> None:
    """What the gates read for a verdict (arena.gates.screening.Fingerprints): only outputs whose
    fingerprint changed are gated again; rows written before have none (gated once more)."""
    run_script(db, "ALTER TABLE gate_results ADD COLUMN fingerprint TEXT;")
    set_version(db, 8)


@migrations(name="0009_round_comparisons")
def _round_comparisons(db: Database) -> None:
    """A round's comparisons column by column (a JSON row each took longer to write than
    the rest of a million-vote round); what a round was worked out from, and the earlier
    round, closed on the same, whose comparisons it shares. Older rounds keep theirs in
    ``round_items``."""
    run_script(
        db,
        """
        CREATE TABLE round_comparisons (
            seq INTEGER PRIMARY KEY,
            round_id TEXT NOT NULL REFERENCES rounds(round_id),
            block INTEGER NOT NULL,
            body BLOB NOT NULL,
            UNIQUE (round_id, block)
        );
        ALTER TABLE rounds ADD COLUMN inputs TEXT;
        ALTER TABLE rounds ADD COLUMN gate_inputs TEXT;
        ALTER TABLE rounds ADD COLUMN comparisons_of TEXT REFERENCES rounds(round_id);
        CREATE INDEX rounds_by_inputs ON rounds(family, inputs);
        CREATE INDEX rounds_by_gate_inputs ON rounds(family, gate_inputs);
    """,
    )
    run_script(db, guard_sql("round_comparisons", "seq", chained=False))
    set_version(db, 9)


@migrations(name="0010_one_vote_per_presentation")
def _one_vote_per_presentation(db: Database) -> None:
    """At most one vote in force per presentation, so a retry can never vote twice.

    A retracted vote (undo) no longer counts: the pair is shown again on the same
    presentation and may take a new vote. A row reusing a vote id or seq is left to
    the append-only guards, which refuse it in their own words.
    """
    run_script(
        db,
        """
        CREATE INDEX votes_by_presentation ON votes(presentation_id);
        CREATE INDEX retractions_by_vote ON retractions(vote_id);
        CREATE TRIGGER votes_one_in_force BEFORE INSERT ON votes
        WHEN NOT EXISTS (SELECT 1 FROM votes WHERE vote_id = NEW.vote_id OR seq = NEW.seq)
         AND EXISTS (SELECT 1 FROM votes v WHERE v.presentation_id = NEW.presentation_id
                     AND NOT EXISTS (SELECT 1 FROM retractions r WHERE r.vote_id = v.vote_id))
        BEGIN SELECT RAISE(ABORT, 'votes: this presentation already has a vote in force'); END;
        """,
    )
    set_version(db, 10)


@migrations(name="0011_seals")
def _seals(db: Database) -> None:
    """The seal chain (``seals.py``): every write transaction commits to the rows it added.

    The rows already in the ledger are sealed by a first ``genesis`` commit: seals prove
    nothing about what happened to them before this migration.
    """
    run_script(
        db,
        f"""
        CREATE TABLE {seals.TABLE} (
            seq INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('genesis', 'write', 'migration', 'accepted_loss')),
            note TEXT,
            tables TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL UNIQUE
        );
        """,
    )
    run_script(db, guard_sql(seals.TABLE, "seq", chained=False))
    seals.seal(db, {}, kind="genesis", note="the rows before seals (migration 0011)")
    set_version(db, 11)
