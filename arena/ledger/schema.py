"""The ledger's schema as named, ordered migrations (``steps.migrations``).

The migration modules register themselves in order when imported here. Never edit
a released migration: add a new one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.errors import LedgerTooNew

# Imported for their migrations, in order.
from arena.ledger import (  # noqa: F401
    migrations_0001_0005,
    migrations_0006_0011,
    migrations_0012,
    migrations_0013,
    migrations_0014,
    migrations_0015,
    migrations_0016,
    migrations_0017,
    migrations_0018,
    migrations_0019,
    migrations_0020,
    migrations_0021,
    migrations_0022,
    migrations_0023,
    migrations_0024,
    migrations_0025,
    migrations_0026,
    migrations_0027,
    migrations_0028,
    migrations_0029,
    migrations_0030,
)
from arena.ledger.steps import migrations

if TYPE_CHECKING:
    from sqlite_utils import Database

SCHEMA_VERSION = 30


def migrate(db: Database, *, stop_before: str | None = None) -> None:
    """Bring ``db`` to the newest schema, refusing a ledger from a newer Arena."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise LedgerTooNew(
            f"this ledger has schema version {found}; this Arena knows up to "
            f"{SCHEMA_VERSION}. Open it with a newer Arena."
        )
    migrations.as_set().apply(db, stop_before=stop_before)


def migration_names() -> list[str]:
    """Every migration's name, in the order they apply."""
    return migrations.names()
