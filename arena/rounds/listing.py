"""The rounds closed on a family, newest first: what the window offers to show."""

from __future__ import annotations

from dataclasses import dataclass

from arena.ledger import Ledger, catalog
from arena.ledger import round_store as stored_rounds
from arena.records import Kind


@dataclass(frozen=True)
class ClosedRound:
    round_id: str
    closed_at: str
    pooled: bool  # its board fits judges' verdicts with the rater's votes


@dataclass(frozen=True)
class FamilyRounds:
    kind: Kind  # how the family's boards read ("votes" for a family not in the ledger)
    rounds: tuple[ClosedRound, ...]  # newest first


def family_rounds(ledger: Ledger, family: str) -> FamilyRounds:
    found = catalog.get_family(ledger, family)
    return FamilyRounds(
        found.kind if found is not None else "votes",
        tuple(
            ClosedRound(r["round_id"], r["closed_at"], bool(r["pooled"]))
            for r in stored_rounds.rounds(ledger, family)
        ),
    )
