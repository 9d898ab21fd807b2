"""The migration list, and the two helpers every migration uses.

Each migration runs in one transaction together with its record in
``_sqlite_migrations`` (sqlite-utils) and sets ``PRAGMA user_version`` to its
position, so the version read from the file header always matches the
migrations applied.
"""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("arena")


def set_version(db: Database, version: int) -> None:
    db.execute(f"PRAGMA user_version = {int(version)}")


def run_script(db: Database, script: str) -> None:
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
