"""Migration 0017: the votes of a family by pair, whichever side each output was on.

`arena status` counts how many pairs of a family have a vote. Read from an index of
the votes by side (0014's ``votes_by_pair``), every vote's two ids came to Python to be
put in order and counted once (0.04 s a family of 20,000 votes); indexed by the pair's
outputs in order, SQLite counts them itself in one pass over the index. The index by
side served only that count, so it goes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database


@migrations(name="0017_votes_by_pair_in_order")
def _votes_by_pair_in_order(db: Database) -> None:
    run_script(
        db,
        """
        DROP INDEX votes_by_pair;
        CREATE INDEX votes_by_pair_in_order ON votes(
            family, min(left_output, right_output), max(left_output, right_output),
            choice, vote_id
        );
        """,
    )
    set_version(db, 17)
