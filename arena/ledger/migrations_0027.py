"""Migration 0027: the probability each presentation was chosen with, and whether the
family's pairs may favour the items a run judge is unsure of (``unsure_first``).

``presentation_draws`` holds one row per presentation the scheduler chose: the
probability with which its case was drawn within its system pair (``probability``) and
among how many candidates (``candidates``); a repeat or a single candidate was chosen
for certain (1 of 1). With unsure-first choice the rater's pairs favour items a run judge
is unsure of (``arena.pairs.unsure``); the round's prediction-powered fit weighs each
vote by ``1 / (candidates * probability)`` (uniform: 1), so that its estimate stays the
rater's board. A vote whose presentation has no row (cast before this migration,
imported from a colleague's bundle) counts as uniformly chosen.

A table of its own rather than a column of ``presentations``: that table is hash-chained
(each row's hash covers its columns), so a new column would either change the hash of
every row already sealed or stand outside the chain, editable without a trace. A new
table sealed like every other (append-only guards, its reach indexed, rows covered by
the commits) keeps the old rows' hashes as they are and guards the new ones; it is
written in the same transaction as its presentation.

``family_changes`` is widened to take the ``unsure_first`` setting (``on`` or ``off``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0015 import widen_family_changes
from arena.ledger.migrations_0016 import seal_new_tables
from arena.ledger.migrations_0024 import CHANGEABLE as CHANGEABLE_0024
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

DRAW_TABLES: dict[str, str] = {"presentation_draws": "seq"}
# Whether the rater's pairs favour the items a run judge is unsure of (arena.pairs.unsure).
UNSURE_FIRST = "unsure_first"
CHANGEABLE: tuple[str, ...] = (*CHANGEABLE_0024, UNSURE_FIRST)


@migrations(name="0027_presentation_draws")
def _presentation_draws(db: Database) -> None:
    widen_family_changes(db, 27, CHANGEABLE)
    run_script(
        db,
        """
        CREATE TABLE presentation_draws (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            presentation_id TEXT NOT NULL UNIQUE REFERENCES presentations(presentation_id),
            probability REAL NOT NULL CHECK (probability > 0 AND probability <= 1),
            candidates INTEGER NOT NULL CHECK (candidates >= 1),
            unsure INTEGER NOT NULL CHECK (unsure IN (0, 1))
        );
        CREATE INDEX presentation_draws_by_family ON presentation_draws(family, seq);
        """,
    )
    seal_new_tables(db, DRAW_TABLES)
    set_version(db, 27)
