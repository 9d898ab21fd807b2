"""The migration list, and the two helpers every migration uses.

Each migration runs in one transaction together with its record in
``_sqlite_migrations`` (sqlite-utils) and sets ``PRAGMA user_version`` to its
position, so the version read from the file header always matches the
migrations applied.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

Step = Callable[["Database"], None]


class Steps:
    """The migrations in the order they register (the order ``schema`` imports them),
    handed to sqlite-utils only when applied: opening a ledger to read it does not load
    sqlite-utils."""

    def __init__(self) -> None:
        self._steps: list[tuple[str, Step]] = []

    def __call__(self, *, name: str) -> Callable[[Step], Step]:
        def register(step: Step) -> Step:
            self._steps.append((name, step))
            return step

        return register

    def names(self) -> list[str]:
        return [name for name, _ in self._ordered()]

    def _ordered(self) -> list[tuple[str, Step]]:
        # By name ("0028_..."), not by registration: a module that imports a later
        # migration's constants registers it before ``schema`` imports the earlier ones.
        return sorted(self._steps, key=lambda step: step[0])

    def as_set(self) -> Migrations:
        from arena.ledger.database import Migrations

        found = Migrations("arena")
        for name, step in self._ordered():
            found(name=name)(step)
        return found


migrations = Steps()


def set_version(db: Database, version: int) -> None:
    db.execute(f"PRAGMA user_version = {int(version)}")


def run_script(db: Database | sqlite3.Connection, script: str) -> None:
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
