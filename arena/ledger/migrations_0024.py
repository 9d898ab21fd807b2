"""Migration 0024: whether a tests family may mix agents (``mixed_harness``: report or
allow) changes by ``family_changes`` rows like its other settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0015 import widen_family_changes
from arena.ledger.migrations_0021 import CHANGEABLE as CHANGEABLE_0021
from arena.ledger.steps import migrations, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# Whether a tests family's systems may differ in harness or turn budget (arena.rating.one_agent).
MIXED_HARNESS = "mixed_harness"
CHANGEABLE: tuple[str, ...] = (*CHANGEABLE_0021, MIXED_HARNESS)


@migrations(name="0024_mixed_harness")
def _mixed_harness(db: Database) -> None:
    """The mixed-harness setting becomes changeable (``widen_family_changes``). No row is
    added, so nothing is sealed."""
    widen_family_changes(db, 24, CHANGEABLE)
    set_version(db, 24)
