"""Migration 0018: trials that end at a resource limit, trials run in a weak sandbox, and
how each trial's diff was applied (``git-apply`` or the ``patch-fuzz`` fallback)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import IMMUTABLE_TRIALS, guard_sql
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

TRIAL_RESULTS_0018: tuple[str, ...] = ("passed", "failed", "errored", "timed_out", "resource_limit")
TRIAL_SOURCES_0018: tuple[str, ...] = ("imported", "sandbox", "weak_sandbox", "no_sandbox")


def _among(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


@migrations(name="0018_trial_limits")
def _trial_limits(db: Database) -> None:
    """SQLite cannot change a CHECK constraint, so ``trials`` is rebuilt with its rows
    copied unchanged (same seq, same values) and its guards re-created. The new column
    ``applied_with`` is last and NULL in the rows before: their seals still match."""
    run_script(
        db,
        f"""
        CREATE TABLE trials_0018 (
            seq INTEGER PRIMARY KEY,
            trial_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL REFERENCES families(name),
            case_id TEXT NOT NULL,
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            sample INTEGER NOT NULL,
            output_id TEXT REFERENCES outputs(output_id),
            result TEXT NOT NULL CHECK (result IN ({_among(TRIAL_RESULTS_0018)})),
            source TEXT NOT NULL CHECK (source IN ({_among(TRIAL_SOURCES_0018)})),
            reason TEXT NOT NULL DEFAULT '',
            sandbox TEXT NOT NULL DEFAULT '',
            duration_ms REAL,
            exit_code INTEGER,
            log_tail TEXT NOT NULL DEFAULT '',
            log_hash TEXT,
            task_hash TEXT,
            at TEXT NOT NULL,
            applied_with TEXT CHECK (applied_with IN ('git-apply', 'patch-fuzz'))
        );
        INSERT INTO trials_0018 (seq, trial_id, family, case_id, system_id, sample, output_id,
                                 result, source, reason, sandbox, duration_ms, exit_code,
                                 log_tail, log_hash, task_hash, at)
            SELECT seq, trial_id, family, case_id, system_id, sample, output_id, result,
                   source, reason, sandbox, duration_ms, exit_code, log_tail, log_hash,
                   task_hash, at
            FROM trials ORDER BY seq;
        DROP TABLE trials;
        ALTER TABLE trials_0018 RENAME TO trials;
        CREATE INDEX trials_by_family ON trials(family, seq);
        """,
    )
    run_script(db, guard_sql("trials", IMMUTABLE_TRIALS["trials"], chained=False))
    set_version(db, 18)
