"""What `arena status` reports for each family."""

from __future__ import annotations

from typing import Any

from arena import family_state
from arena.ledger import Ledger, catalog, voting


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def family_status(ledger: Ledger, name: str | None = None) -> list[dict[str, Any]]:
    """One row per family (or just ``name``), as `status --json` prints it (docs/cli.md)."""
    names = [name] if name is not None else [f.name for f in catalog.families(ledger)]
    rows = []
    for family_name in names:
        state = family_state.load(ledger, family_name)
        family, outputs = state.family, state.in_force
        settlement = state.settlement
        votes = voting.votes_in_force(ledger, family.name)
        voted = {_pair(v.left_output, v.right_output) for v in votes}
        rows.append(
            {
                "name": family.name,
                "kind": family.kind,
                "language": family.language,
                "systems": len({o.system_id for o in outputs}),
                "cases": len(set(state.cases) - state.decisions.retired_cases),
                "outputs": len(outputs),
                "gate_failures": sum(state.fails_gate(o.output_id) for o in outputs),
                "votes": len(votes),
                "settled_pairs": len(settlement.settled),
                "pending_pairs": sum(
                    _pair(p.output_a, p.output_b) not in voted for p in settlement.pending
                ),
            }
        )
    return rows
