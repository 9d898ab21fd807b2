"""The derived tables checked against the votes, and written anew where they differ.

SQLite keeps the tallies (migration 0028), the pair showings and showing tallies
(migrations 0029, 0030) in the transaction of each vote and retraction; Arena writes each vote's
repeat draw with it.
They can still differ from the votes if the file was edited by hand, or its triggers
dropped: `arena check` counts them again from the votes, says which differ, and writes
them anew. They are derived, so writing them anew loses nothing.
"""

from __future__ import annotations

from arena.ledger import migrations_0028, migrations_0029, migrations_0030, repeat_draws
from arena.ledger.connection import Ledger
from arena.ledger.steps import run_script

_TRIGGERS = ("votes_tally", "retractions_tally", *migrations_0029.TRIGGER_NAMES)


def stale_tallies(ledger: Ledger) -> list[str]:
    """The derived tables whose rows are not what the votes give now (a dropped trigger
    included), each named with how many of its rows differ; [] when all agree."""
    conn = ledger.conn
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    problems = [
        f"the trigger {name} that keeps the vote tallies is missing; "
        "`arena check --recount` puts it back"
        for name in _TRIGGERS
        if name not in present
    ]
    conn.execute("SAVEPOINT recount")
    try:
        # The same fills the migrations ran, into empty tables of the same shape.
        for table in migrations_0029.DERIVED_TABLES:
            conn.execute(f"CREATE TEMP TABLE recount_{table} AS SELECT * FROM {table} LIMIT 0")
        for statement in migrations_0028.fill("temp.recount_") + migrations_0030.fill(
            "temp.recount_"
        ):
            conn.execute(statement)
        repeat_draws.fill(conn, "temp.recount_")
        for table in migrations_0029.DERIVED_TABLES:
            (differ,) = conn.execute(
                f"SELECT count(*) FROM (SELECT * FROM (SELECT * FROM {table} EXCEPT "
                f"SELECT * FROM temp.recount_{table}) UNION ALL SELECT * FROM (SELECT * "
                f"FROM temp.recount_{table} EXCEPT SELECT * FROM {table}))"
            ).fetchone()
            if differ:
                problems.append(
                    f"{table}: does not match the votes it counts ({differ} rows differ); "
                    "`arena check --recount` writes the tallies anew"
                )
    finally:
        conn.execute("ROLLBACK TO recount")
        conn.execute("RELEASE recount")
    return problems


def write_tallies_anew(ledger: Ledger) -> None:
    """Count every derived table again from the votes, and put back the triggers that
    keep them."""
    conn = ledger.conn
    with ledger.atomic():
        for name in _TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        for table in migrations_0029.DERIVED_TABLES:
            conn.execute(f"DELETE FROM {table}")
        for statement in migrations_0028.fill() + migrations_0030.fill():
            conn.execute(statement)
        repeat_draws.fill(conn)
        run_script(conn, migrations_0028.TRIGGERS)
        run_script(conn, migrations_0030.TRIGGERS)
