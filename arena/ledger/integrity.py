"""``arena check``: SQLite's own checks plus a walk of every hash chain."""

from __future__ import annotations

import sqlite3

from arena.ledger import chain, heads
from arena.ledger.connection import Ledger
from arena.ledger.guards import APPEND_ONLY, IMMUTABLE, IMMUTABLE_GRADED, guard_names


def check(ledger: Ledger) -> list[str]:
    """Every problem found, one line each; empty when the ledger is sound."""
    try:
        found = [r[0] for r in ledger.db.execute("PRAGMA integrity_check")]
        keys = list(ledger.db.execute("PRAGMA foreign_key_check"))
        problems = [] if found == ["ok"] else [f"integrity: {line}" for line in found]
        problems += [
            f"foreign key: {row[0]} row {row[1]} points to a missing {row[2]} row" for row in keys
        ]
        problems += chain.verify(ledger.db)
        problems += _missing_guards(ledger)
        try:
            recorded = heads.read(ledger.path)
        except heads.Unreadable as exc:
            problems.append(f"head file {heads.path_for(ledger.path)}: unreadable ({exc})")
        else:
            if recorded is not None:
                problems += heads.missing(ledger.db, recorded)
    except sqlite3.DatabaseError as exc:
        return [f"the file cannot be read as a database: {exc}"]
    return problems


def _missing_guards(ledger: Ledger) -> list[str]:
    """The append-only triggers that should be there and are not (dropped, or the
    table rebuilt, as sqlite-utils' transform() does)."""
    present = {
        r[0] for r in ledger.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    problems = []
    for table in (*APPEND_ONLY, *IMMUTABLE, *IMMUTABLE_GRADED, "round_items", "round_comparisons"):
        for name in guard_names(table, chained=table in APPEND_ONLY):
            if name not in present:
                problems.append(
                    f"{table}: the append-only guard {name} is missing "
                    "(dropped, or the table was rebuilt)"
                )
    return problems
