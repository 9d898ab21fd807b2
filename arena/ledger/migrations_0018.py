"""Migration 0018: trials that end at a resource limit, trials run in a weak sandbox, and
how each trial's diff was applied (``git-apply`` or the ``patch-fuzz`` fallback)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import IMMUTABLE_TRIALS, guard_sql
from arena.ledger.migrations_0012 import trials_table
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

TRIAL_RESULTS_0018: tuple[str, ...] = ("passed", "failed", "errored", "timed_out", "resource_limit")
TRIAL_SOURCES_0018: tuple[str, ...] = ("imported", "sandbox", "weak_sandbox", "no_sandbox")
# The column this migration adds, last.
APPLIED_WITH = "applied_with TEXT CHECK (applied_with IN ('git-apply', 'patch-fuzz'))"


@migrations(name="0018_trial_limits")
def _trial_limits(db: Database) -> None:
    """SQLite cannot change a CHECK constraint, so ``trials`` is rebuilt with its rows
    copied unchanged (same seq, same values) and its guards re-created. The new column
    ``applied_with`` is last and NULL in the rows before: their seals still match."""
    run_script(
        db,
        f"""
        {trials_table("trials_0018", TRIAL_RESULTS_0018, TRIAL_SOURCES_0018, more=(APPLIED_WITH,))}
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
