"""``arena check``: SQLite's own checks plus a walk of every hash chain."""

from __future__ import annotations

import sqlite3

from arena.ledger import chain
from arena.ledger.connection import Ledger


def check(ledger: Ledger) -> list[str]:
    """Every problem found, one line each; empty when the ledger is sound."""
    try:
        found = [r[0] for r in ledger.db.execute("PRAGMA integrity_check")]
        keys = list(ledger.db.execute("PRAGMA foreign_key_check"))
        problems = [] if found == ["ok"] else [f"integrity: {line}" for line in found]
        problems += [f"foreign key: {row[0]} row {row[1]} points to a missing {row[2]} row"
                     for row in keys]
        problems += chain.verify(ledger.db)
    except sqlite3.DatabaseError as exc:
        return [f"the file cannot be read as a database: {exc}"]
    return problems
