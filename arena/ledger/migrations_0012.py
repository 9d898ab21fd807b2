"""Migration 0012: tasks with hidden tests, and trials of them (tests families)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import IMMUTABLE_TRIALS, guard_sql
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# As they were when this migration was released (0018 widens both).
TRIAL_RESULTS = ("passed", "failed", "errored", "timed_out")
TRIAL_SOURCES = ("imported", "sandbox", "no_sandbox")


def trials_table(
    name: str, results: tuple[str, ...], sources: tuple[str, ...], *, more: tuple[str, ...] = ()
) -> str:
    """``CREATE TABLE name`` with the columns of ``trials``, its result one of ``results``
    and its source one of ``sources``, then the columns ``more``: 0018 rebuilds the table
    with these columns to widen those CHECKs. Indented as the migrations' scripts are, so
    the SQL each ran stays the same."""

    def among(values: tuple[str, ...]) -> str:
        return ", ".join(f"'{v}'" for v in values)

    added = "".join(f",\n            {column}" for column in more)
    return f"""CREATE TABLE {name} (
            seq INTEGER PRIMARY KEY,
            trial_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL REFERENCES families(name),
            case_id TEXT NOT NULL,
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            sample INTEGER NOT NULL,
            output_id TEXT REFERENCES outputs(output_id),
            result TEXT NOT NULL CHECK (result IN ({among(results)})),
            source TEXT NOT NULL CHECK (source IN ({among(sources)})),
            reason TEXT NOT NULL DEFAULT '',
            sandbox TEXT NOT NULL DEFAULT '',
            duration_ms REAL,
            exit_code INTEGER,
            log_tail TEXT NOT NULL DEFAULT '',
            log_hash TEXT,
            task_hash TEXT,
            at TEXT NOT NULL{added}
        );"""


@migrations(name="0012_tasks_and_trials")
def _tasks_and_trials(db: Database) -> None:
    """A task per case of a tests family (a task file imported again with changes adds a
    row: the newest is in force), and trials, the newest per output in force."""
    run_script(
        db,
        f"""
        CREATE TABLE tasks (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL,
            case_id TEXT NOT NULL,
            task_hash TEXT NOT NULL,
            spec TEXT NOT NULL,
            stored_at TEXT NOT NULL,
            FOREIGN KEY (family, case_id) REFERENCES cases(family, case_id),
            UNIQUE (family, case_id, task_hash)
        );
        {trials_table("trials", TRIAL_RESULTS, TRIAL_SOURCES)}
        CREATE INDEX trials_by_family ON trials(family, seq);
        """,
    )
    for table, key in IMMUTABLE_TRIALS.items():
        run_script(db, guard_sql(table, key, chained=False))
    set_version(db, 12)
