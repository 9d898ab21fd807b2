"""Migration 0014: each output's text key, and what `arena status` reads, by index."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger import seals
from arena.ledger.guards import guard_sql
from arena.ledger.steps import migrations, run_script, set_version
from arena.texts import text_key

if TYPE_CHECKING:
    from sqlite_utils import Database

# Rows keyed per batch while filling the keys of the outputs already stored.
_BATCH = 5_000


@migrations(name="0014_output_keys")
def _output_keys(db: Database) -> None:
    """A narrow row per output (family, case, system, the sha256 of its normalised text)
    and indexes that hold what status counts: counting a family's identical pairs and
    its votes then reads two indexes, not 20,000 texts and every vote row.

    The keys of the outputs already stored are added here and sealed by a ``migration``
    commit; a ledger with rows slipped in since its last seal is refused, so that this
    commit never seals them.
    """
    sealed = seals.sealed_marks(db)
    run_script(
        db,
        """
        CREATE TABLE output_keys (
            output_id TEXT PRIMARY KEY REFERENCES outputs(output_id),
            family TEXT NOT NULL,
            case_id TEXT NOT NULL,
            system_id TEXT NOT NULL,
            text_key TEXT NOT NULL
        );
        CREATE INDEX output_keys_by_family
            ON output_keys(family, case_id, system_id, text_key, output_id);
        CREATE INDEX votes_by_pair
            ON votes(family, choice, left_output, right_output, vote_id);
        CREATE INDEX gate_failures ON gate_results(output_id) WHERE passed = 0;
        """,
    )
    run_script(db, guard_sql("output_keys", "output_id", chained=False))
    rows = db.execute(
        "SELECT output_id, family, case_id, system_id, text FROM outputs ORDER BY rowid"
    )
    keyed = 0
    while batch := rows.fetchmany(_BATCH):
        db.conn.executemany(
            "INSERT INTO output_keys VALUES (?, ?, ?, ?, ?)",
            [(o, f, c, s, text_key(t)) for o, f, c, s, t in batch],
        )
        keyed += len(batch)
    if keyed:
        seals.seal(db, sealed, kind="migration", note="output keys (migration 0014)")
    set_version(db, 14)
