"""Which key brought which rater (migration 0025): a colleague's votes come in from their
signed bundle under one name, the same for every later bundle of that key."""

from __future__ import annotations

from dataclasses import dataclass

from arena.clock import now_iso
from arena.ledger.connection import Ledger


@dataclass(frozen=True)
class RaterKey:
    """A rater whose votes came in from bundles signed by ``signer``, where they were
    cast under the name ``voter``."""

    rater: str
    signer: str
    voter: str


def rater_keys(ledger: Ledger) -> list[RaterKey]:
    """Every rater brought in by a key, in the order first brought."""
    rows = ledger.conn.execute("SELECT rater, signer, voter FROM rater_keys ORDER BY seq")
    return [RaterKey(*row) for row in rows]


def add_rater_key(ledger: Ledger, key: RaterKey, source_sha256: str) -> None:
    """Record that ``key.signer``'s ``key.voter`` votes here as ``key.rater``; call inside
    ``ledger.atomic()``. The table's UNIQUE constraints refuse a name given twice."""
    ledger.conn.execute(
        "INSERT INTO rater_keys (rater, signer, voter, source_sha256, added_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [key.rater, key.signer, key.voter, source_sha256, now_iso()],
    )
