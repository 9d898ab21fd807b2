"""The ledger's schema as named, ordered migrations.

Each migration runs in one transaction together with its record in
``_sqlite_migrations`` (sqlite-utils) and sets ``PRAGMA user_version`` to its
position, so the version read from the file header always matches the
migrations applied. Never edit a released migration: add a new one.
"""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from arena.errors import LedgerTooNew
from arena.ledger.guards import APPEND_ONLY, IMMUTABLE, IMMUTABLE_GRADED, guard_sql

migrations = Migrations("arena")


def _set_version(db: Database, version: int) -> None:
    db.execute(f"PRAGMA user_version = {int(version)}")


def _run(db: Database, script: str) -> None:
    """Run a script statement by statement inside the caller's transaction.

    ``sqlite3.executescript`` would COMMIT first and break the migration's
    one-transaction promise.
    """
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        raise ValueError(f"incomplete SQL statement in a migration: {statement!r}")


@migrations(name="0001_catalog")
def _catalog(db: Database) -> None:
    _run(
        db,
        """
        CREATE TABLE families (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('votes', 'tests', 'tests_then_votes', 'graded')),
            language TEXT NOT NULL,
            min_chars INTEGER NOT NULL,
            max_chars INTEGER NOT NULL,
            aspect TEXT NOT NULL DEFAULT '',
            reference TEXT REFERENCES systems(system_id),
            created_at TEXT NOT NULL
        );
        CREATE TABLE systems (
            system_id TEXT PRIMARY KEY,
            label TEXT NOT NULL,
            descriptor TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX systems_by_label ON systems(label);
        CREATE TABLE cases (
            family TEXT NOT NULL REFERENCES families(name),
            case_id TEXT NOT NULL,
            category TEXT NOT NULL,
            prompt TEXT NOT NULL,
            PRIMARY KEY (family, case_id)
        );
        CREATE TABLE outputs (
            output_id TEXT PRIMARY KEY,
            family TEXT NOT NULL,
            case_id TEXT NOT NULL,
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            sample INTEGER NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            is_diff INTEGER NOT NULL DEFAULT 0,
            finish_reason TEXT,
            latency_ms REAL,
            cost REAL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            test_result TEXT CHECK (test_result IN ('passed', 'failed', 'errored')),
            import_id TEXT NOT NULL,
            FOREIGN KEY (family, case_id) REFERENCES cases(family, case_id),
            UNIQUE (family, case_id, system_id, sample)
        );
        CREATE INDEX outputs_by_family ON outputs(family, case_id);
        CREATE TABLE gate_results (
            seq INTEGER PRIMARY KEY,
            output_id TEXT NOT NULL REFERENCES outputs(output_id),
            gate TEXT NOT NULL,
            passed INTEGER NOT NULL,
            reason TEXT NOT NULL,
            evaluated_at TEXT NOT NULL
        );
        CREATE INDEX gate_results_by_output ON gate_results(output_id, gate, seq);
        CREATE TABLE imports (
            import_id TEXT PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            path TEXT NOT NULL,
            format TEXT NOT NULL,
            file_sha256 TEXT NOT NULL,
            records INTEGER NOT NULL,
            added INTEGER NOT NULL,
            imported_at TEXT NOT NULL
        );
        """,
    )
    _set_version(db, 1)


@migrations(name="0002_voting")
def _voting(db: Database) -> None:
    _run(
        db,
        """
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            number INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            actor TEXT NOT NULL,
            started_at TEXT NOT NULL,
            UNIQUE (family, number)
        );
        CREATE TABLE presentations (
            seq INTEGER PRIMARY KEY,
            presentation_id TEXT NOT NULL UNIQUE,
            session_id TEXT NOT NULL REFERENCES sessions(session_id),
            family TEXT NOT NULL,
            case_id TEXT NOT NULL,
            left_output TEXT NOT NULL REFERENCES outputs(output_id),
            right_output TEXT NOT NULL REFERENCES outputs(output_id),
            repeat_of TEXT REFERENCES presentations(presentation_id),
            shown_at TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE TABLE votes (
            seq INTEGER PRIMARY KEY,
            vote_id TEXT NOT NULL UNIQUE,
            presentation_id TEXT NOT NULL REFERENCES presentations(presentation_id),
            session_id TEXT NOT NULL REFERENCES sessions(session_id),
            family TEXT NOT NULL,
            case_id TEXT NOT NULL,
            left_output TEXT NOT NULL REFERENCES outputs(output_id),
            right_output TEXT NOT NULL REFERENCES outputs(output_id),
            choice TEXT NOT NULL CHECK (choice IN ('left', 'right', 'tie', 'both_bad', 'skip')),
            shown_at TEXT NOT NULL,
            voted_at TEXT NOT NULL,
            active_ms INTEGER NOT NULL,
            actor TEXT NOT NULL,
            repeat_of TEXT REFERENCES votes(vote_id),
            comment TEXT NOT NULL DEFAULT '',
            identity_leak INTEGER NOT NULL DEFAULT 0,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX votes_by_family ON votes(family, seq);
        CREATE INDEX presentations_by_family ON presentations(family, seq);
        CREATE TABLE retractions (
            seq INTEGER PRIMARY KEY,
            retraction_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL,
            vote_id TEXT NOT NULL REFERENCES votes(vote_id),
            session_id TEXT REFERENCES sessions(session_id),
            retracted_at TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX retractions_by_family ON retractions(family, seq);
        """,
    )
    _set_version(db, 2)


@migrations(name="0003_events_and_rounds")
def _events_and_rounds(db: Database) -> None:
    _run(
        db,
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL REFERENCES families(name),
            kind TEXT NOT NULL CHECK (kind IN ('retire_case', 'remove_output', 'flag')),
            case_id TEXT,
            output_id TEXT REFERENCES outputs(output_id),
            presentation_id TEXT REFERENCES presentations(presentation_id),
            note TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX events_by_family ON events(family, seq);
        CREATE TABLE rounds (
            round_id TEXT PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            closed_at TEXT NOT NULL,
            settings TEXT NOT NULL,
            results TEXT NOT NULL
        );
        """,
    )
    _set_version(db, 3)


@migrations(name="0004_append_only_guards")
def _append_only_guards(db: Database) -> None:
    for table, key in APPEND_ONLY.items():
        _run(db, guard_sql(table, key, chained=True))
    for table, key in IMMUTABLE.items():
        _run(db, guard_sql(table, key, chained=False))
    _set_version(db, 4)


@migrations(name="0005_graded")
def _graded(db: Database) -> None:
    _run(
        db,
        """
        CREATE TABLE suites (
            suite_hash TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            version TEXT NOT NULL,
            manifest TEXT NOT NULL,
            format TEXT NOT NULL,
            stored_at TEXT NOT NULL
        );
        CREATE TABLE runs (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            suite_hash TEXT NOT NULL REFERENCES suites(suite_hash),
            tier TEXT NOT NULL CHECK (tier IN ('reference', 'community')),
            endpoint TEXT NOT NULL,
            started_at TEXT NOT NULL
        );
        CREATE TABLE attempts (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            case_id TEXT NOT NULL,
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            status TEXT NOT NULL,
            error TEXT NOT NULL,
            http_status INTEGER,
            latency_ms INTEGER,
            attempts INTEGER NOT NULL,
            output_id TEXT REFERENCES outputs(output_id),
            finished_at TEXT NOT NULL
        );
        CREATE INDEX attempts_by_system ON attempts(family, system_id, case_id);
        CREATE TABLE grades (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            case_id TEXT NOT NULL,
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            suite_hash TEXT NOT NULL REFERENCES suites(suite_hash),
            status TEXT NOT NULL,
            credit REAL NOT NULL,
            passed INTEGER NOT NULL,
            parsed_answer TEXT,
            detail TEXT NOT NULL,
            grader TEXT NOT NULL,
            graded_at TEXT NOT NULL
        );
        CREATE INDEX grades_by_system ON grades(family, system_id, case_id, seq);
    """,
    )
    for table, key in IMMUTABLE_GRADED.items():
        _run(db, guard_sql(table, key, chained=False))
    _set_version(db, 5)


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


@migrations(name="0006_decisions")
def _decisions(db: Database) -> None:
    """Events that set a case's language, overrule a gate, or retract an event; case languages.

    SQLite cannot change a CHECK constraint, so the events table is rebuilt with
    its rows copied unchanged (same seq, same hashes) and its guards re-created.
    """
    kinds = ", ".join(f"'{k}'" for k in EVENT_KINDS)
    _run(
        db,
        f"""
        CREATE TABLE events_0006 (
            seq INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL REFERENCES families(name),
            kind TEXT NOT NULL CHECK (kind IN ({kinds})),
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
        );
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
    _run(db, guard_sql("events", "event_id", chained=True))
    _set_version(db, 6)


@migrations(name="0007_round_items")
def _round_items(db: Database) -> None:
    """A round's comparisons and receipts, a row each, apart from its board.

    Showing a board then reads one small row, not every comparison; an export
    streams the rows. Rounds closed before keep theirs inside ``results``.
    """
    _run(
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
    _set_version(db, 7)


@migrations(name="0008_gate_fingerprints")
def _gate_fingerprints(db: Database) -> None:
    """What the gates read for a verdict (arena.gates.screening.Fingerprints): only outputs whose
    fingerprint changed are gated again; rows written before have none (gated once more)."""
    _run(db, "ALTER TABLE gate_results ADD COLUMN fingerprint TEXT;")
    _set_version(db, 8)


@migrations(name="0009_round_comparisons")
def _round_comparisons(db: Database) -> None:
    """A round's comparisons column by column (a JSON row each took longer to write than
    the rest of a million-vote round); what a round was worked out from, and the earlier
    round, closed on the same, whose comparisons it shares. Older rounds keep theirs in
    ``round_items``."""
    _run(
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
    _run(db, guard_sql("round_comparisons", "seq", chained=False))
    _set_version(db, 9)


@migrations(name="0010_one_vote_per_presentation")
def _one_vote_per_presentation(db: Database) -> None:
    """At most one vote in force per presentation, so a retry can never vote twice.

    A retracted vote (undo) no longer counts: the pair is shown again on the same
    presentation and may take a new vote. A row reusing a vote id or seq is left to
    the append-only guards, which refuse it in their own words.
    """
    _run(
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
    _set_version(db, 10)


SCHEMA_VERSION = 10


def migrate(db: Database, *, stop_before: str | None = None) -> None:
    """Bring ``db`` to the newest schema, refusing a ledger from a newer Arena."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise LedgerTooNew(
            f"this ledger has schema version {found}; this Arena knows up to "
            f"{SCHEMA_VERSION}. Open it with a newer Arena."
        )
    migrations.apply(db, stop_before=stop_before)


def migration_names() -> list[str]:
    """Every migration's name, in the order they apply."""
    return [m.name for m in migrations.pending(Database(memory=True))]
