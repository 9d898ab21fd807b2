"""Migration 0021: a family's pair choice (``pairs``: adaptive or coverage) changes by
``family_changes`` rows like its repeat settings; the voted families the ledger holds keep
coverage-first, the choice they were voted under, by a row each."""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from arena.clock import now_iso
from arena.ledger import seals
from arena.ledger.migrations_0015 import CHANGEABLE as CHANGEABLE_0015
from arena.ledger.migrations_0015 import widen_family_changes
from arena.ledger.steps import migrations, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# How a rating session picks the next system pair (arena.pairs.adaptive).
PAIR_SETTING = "pairs"
CHANGEABLE: tuple[str, ...] = (*CHANGEABLE_0015, PAIR_SETTING)
KEPT = "voted coverage-first before adaptive became the default"


@migrations(name="0021_pair_choice")
def _pair_choice(db: Database) -> None:
    """The pair choice becomes changeable (``widen_family_changes``). The rows recording
    coverage-first for the families there are sealed by a ``migration`` commit; a ledger
    with rows slipped in since its last seal is refused, so that this commit never seals
    them."""
    sealed = seals.sealed_marks(db)
    widen_family_changes(db, 21, CHANGEABLE)
    families = [
        name
        for (name,) in db.execute(
            "SELECT name FROM families WHERE kind IN ('votes', 'tests_then_votes') ORDER BY rowid"
        )
    ]
    db.conn.executemany(
        "INSERT INTO family_changes (change_id, family, setting, value, actor, reason, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (uuid.uuid4().hex, name, PAIR_SETTING, json.dumps("coverage"), "arena", KEPT, now_iso())
            for name in families
        ],
    )
    kept = len(families)
    if kept:
        seals.seal(db, sealed, kind="migration", note="pair choice kept (migration 0021)")
    set_version(db, 21)
