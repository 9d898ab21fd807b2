"""Each vote's repeat draw: a number in [0, 1) fixed by its id, kept beside the votes.

A voted pair comes back as a repeat when its vote's draw falls under the family's repeat
share (``arena.pairs.scheduling``). The draw is a hash of the vote id, the same on every
machine. ``repeat_draws`` (migration 0029) holds the draw of every vote that may come
back (one on a first showing, not a skip), written in the transaction of the vote, with
how many votes in force its presentation's repeats hold (kept by triggers): a rating
session finds the votes waiting for their repeat through an index of the draws of
presentations not repeated, instead of hashing every vote the family holds. It is
derived, not recorded: `arena check` computes it again and names a table that differs;
`arena check --recount` writes it anew.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable

from arena.ledger.in_force import not_retracted


def _on_repeats(originals: str) -> str:
    """FROM and WHERE of the votes in force on the repeats (``r``) of the presentations
    that the condition ``originals`` on ``r.repeat_of`` picks: what a draw's ``repeats``
    counts."""
    return (
        "presentations r JOIN votes rv ON rv.presentation_id = r.presentation_id "
        f"WHERE r.repeat_of {originals} AND {not_retracted('rv')}"
    )


_INSERT = (
    "INSERT OR REPLACE INTO {}repeat_draws (vote_id, family, presentation_id, draw, repeats) "
    f"VALUES (?, ?, ?, ?, (SELECT count(*) FROM {_on_repeats('= ?3')}))"
)


def unit(text: str) -> float:
    """A number in [0, 1) fixed by ``text``: the same on every machine and every run."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2**64


def draw(vote_id: str) -> float:
    """The repeat draw of the vote ``vote_id``."""
    return unit("repeat:" + vote_id)


def add(
    conn: sqlite3.Connection,
    votes: Iterable[tuple[str, str, str, str | None, str]],
    prefix: str = "",
) -> None:
    """Keep the draws of ``votes`` ((vote id, family, presentation, repeat of, choice)
    each; those that may not come back are left out) in ``repeat_draws`` (its name after
    ``prefix``); call inside the transaction that writes them."""
    conn.executemany(
        _INSERT.format(prefix),
        [
            (vote_id, family, presentation, draw(vote_id))
            for vote_id, family, presentation, repeat_of, choice in votes
            if repeat_of is None and choice != "skip"
        ],
    )


def fill(conn: sqlite3.Connection, prefix: str = "") -> None:
    """Every draw, computed from the votes, into ``repeat_draws`` (its name after
    ``prefix``): a migration's, or a recount's. The repeats are counted in one pass and the
    rows written in key order: a ledger's worth at once."""
    repeated = dict(
        conn.execute(
            f"SELECT r.repeat_of, count(*) FROM {_on_repeats('IS NOT NULL')} GROUP BY r.repeat_of"
        )
    )
    rows = conn.execute(
        "SELECT vote_id, family, presentation_id FROM votes "
        "WHERE repeat_of IS NULL AND choice != 'skip' ORDER BY vote_id"
    )
    conn.executemany(
        f"INSERT OR REPLACE INTO {prefix}repeat_draws "
        "(vote_id, family, presentation_id, draw, repeats) VALUES (?, ?, ?, ?, ?)",
        [(v, family, p, draw(v), repeated.get(p, 0)) for v, family, p in rows],
    )
