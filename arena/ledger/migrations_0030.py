"""Migration 0030: pair showings keyed by the outputs' numbers.

A rating session reads every row of ``pair_showings`` when it opens (the pairs with a
vote or a skip in force: about 90,000 at 100,000 votes). Keyed by two 64-character
output ids and a case id, that read made and looked up three strings a row; keyed by one
integer, it reads three numbers a row, in one pass SQLite makes into text.

A pair's key is its two outputs' numbers, the ``rowid`` of each in ``output_keys`` (the
smaller times 2^32 plus the larger). Those rowids are as fixed as the seals that cover
them (``seal_spans``: a seal names its rows by rowid); its case is its outputs'.

The table stays derived, like the rest of migration 0029's: `arena check` counts it again
from the votes and writes it anew where it differs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger import migrations_0029
from arena.ledger.migrations_0029 import COUNTED, IN_FORCE, SKIP, VOTE
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# Two numbers in one key: the larger below 2^32.
SHIFT = 2**32

TABLE = """
CREATE TABLE pair_showings (
    family TEXT NOT NULL,
    pair INTEGER NOT NULL,
    votes INTEGER NOT NULL,
    skips INTEGER NOT NULL,
    PRIMARY KEY (family, pair)
) WITHOUT ROWID;
"""


def _number(side: str) -> str:
    return f"(SELECT rowid FROM output_keys WHERE output_id = v.{side}_output)"


# The votes ``v`` (those ``where`` names) with their outputs' numbers, counts and whether
# each is in force; a vote on an output with no key (none is written without one) is
# not counted.
def _numbered(where: str) -> str:
    return (
        f"SELECT v.family, {_number('left')} AS l, {_number('right')} AS r, "
        f"({VOTE}) AS votes, ({SKIP}) AS skips, {IN_FORCE} AS in_force "
        f"FROM votes v WHERE {where} AND {COUNTED}"
    )


_PAIR = f"family, min(l, r) * {SHIFT} + max(l, r)"
_KNOWN = "l IS NOT NULL AND r IS NOT NULL"

_ON_VOTE = f"""INSERT INTO pair_showings SELECT {_PAIR}, votes, skips
    FROM ({_numbered("v.seq = NEW.seq")}) WHERE {_KNOWN}
    ON CONFLICT DO UPDATE SET votes = votes + excluded.votes, skips = skips + excluded.skips;"""
_ON_RETRACTION = f"""UPDATE pair_showings
    SET votes = votes - (SELECT {VOTE} FROM votes v WHERE v.vote_id = NEW.vote_id),
        skips = skips - (SELECT {SKIP} FROM votes v WHERE v.vote_id = NEW.vote_id)
    WHERE (family, pair) = (
        SELECT {_PAIR} FROM ({_numbered("v.vote_id = NEW.vote_id")}) WHERE {_KNOWN});"""
TRIGGERS = migrations_0029.triggers(_ON_VOTE, _ON_RETRACTION)


def fill(prefix: str = "") -> list[str]:
    """``pair_showings`` and ``showing_tallies`` counted at once from the votes, as their
    triggers leave them (a row once counted stays, at 0, when its votes are retracted)."""
    return [
        f"INSERT INTO {prefix}pair_showings SELECT {_PAIR}, sum(votes * in_force), "
        f"sum(skips * in_force) FROM ({_numbered('true')}) WHERE {_KNOWN} GROUP BY 1, 2",
        migrations_0029.showings_fill(prefix),
    ]


@migrations(name="0030_numbered_pair_showings")
def _numbered_pair_showings(db: Database) -> None:
    for name in migrations_0029.TRIGGER_NAMES:
        db.execute(f"DROP TRIGGER {name}")
    db.execute("DROP TABLE pair_showings")
    run_script(db, TABLE)
    db.execute(fill()[0])
    run_script(db, TRIGGERS)
    set_version(db, 30)
