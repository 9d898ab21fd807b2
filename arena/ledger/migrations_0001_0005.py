"""Migrations 0001–0005: the first wave's tables (catalog, votes, events, rounds, graded)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import APPEND_ONLY, IMMUTABLE, IMMUTABLE_GRADED, guard_sql
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database


@migrations(name="0001_catalog")
def _catalog(db: Database) -> None:
    run_script(
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
    set_version(db, 1)


@migrations(name="0002_voting")
def _voting(db: Database) -> None:
    run_script(
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
    set_version(db, 2)


@migrations(name="0003_events_and_rounds")
def _events_and_rounds(db: Database) -> None:
    run_script(
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
    set_version(db, 3)


@migrations(name="0004_append_only_guards")
def _append_only_guards(db: Database) -> None:
    for table, key in APPEND_ONLY.items():
        run_script(db, guard_sql(table, key, chained=True))
    for table, key in IMMUTABLE.items():
        run_script(db, guard_sql(table, key, chained=False))
    set_version(db, 4)


@migrations(name="0005_graded")
def _graded(db: Database) -> None:
    run_script(
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
        run_script(db, guard_sql(table, key, chained=False))
    set_version(db, 5)
