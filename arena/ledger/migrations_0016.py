"""Migration 0016: how far the commits seal each table, read from an index.

Before its first write a process asks how far the commits seal each table
(``seals.marks``): the largest ``to`` of that table over every commit. Read from the
JSON of every commit, that took 0.25 s at 100,000 commits (two a vote) and grows with
them; an index of each table's ``to`` answers it with one seek a table
(``benchmarks/first_write.py``). Building the indexes reads every commit once (1.4 s at
100,000 commits); they change no answer, only how fast it comes. A migration
that adds a table adds its index too (``tests/ledger/test_seals.py`` checks every sealed
table has one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import guard_sql
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# The tables commits seal by rowid range at this version (round_items is sealed with its
# round, and has no range).
_TABLES = (
    "attempts",
    "cases",
    "events",
    "families",
    "family_changes",
    "gate_results",
    "grades",
    "imports",
    "output_keys",
    "outputs",
    "presentations",
    "retractions",
    "round_comparisons",
    "rounds",
    "runs",
    "sessions",
    "suites",
    "systems",
    "tasks",
    "trials",
    "votes",
)


def index_reach(db: Database, table: str) -> None:
    reach = f"json_extract(tables, '$.{table}.to')"
    db.execute(f"CREATE INDEX commits_reach_{table} ON commits({reach}) WHERE {reach} IS NOT NULL")


def seal_new_tables(db: Database, tables: dict[str, str]) -> None:
    """Guard each table a later migration adds (by its key column) and index its reach."""
    for table, key in tables.items():
        run_script(db, guard_sql(table, key, chained=False))
        index_reach(db, table)


@migrations(name="0016_seal_reach")
def _seal_reach(db: Database) -> None:
    for table in _TABLES:
        index_reach(db, table)
    set_version(db, 16)
