"""What `arena status` reports for each family."""

from __future__ import annotations

from typing import Any

from arena.errors import BadInput
from arena.ledger import Ledger, catalog, events, voting
from arena.settling import any_gate_failed, settle


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def family_status(ledger: Ledger, name: str | None = None) -> list[dict[str, Any]]:
    """One row per family (or just ``name``), as `status --json` prints it (docs/cli.md)."""
    rows = []
    for family in catalog.families(ledger):
        if name is not None and family.name != name:
            continue
        retired = events.retired_cases(ledger, family.name)
        outputs = events.outputs_in_force(ledger, family.name)
        results = catalog.gate_results(ledger, family.name)
        settlement = settle(family, outputs, results)
        votes = voting.votes_in_force(ledger, family.name)
        voted = {_pair(v.left_output, v.right_output) for v in votes}
        rows.append({
            "name": family.name,
            "kind": family.kind,
            "language": family.language,
            "systems": len({o.system_id for o in outputs}),
            "cases": len({c.case_id for c in catalog.cases(ledger, family.name)} - retired),
            "outputs": len(outputs),
            "gate_failures": sum(any_gate_failed(results.get(o.output_id, ()))
                                 for o in outputs),
            "votes": len(votes),
            "settled_pairs": len(settlement.settled),
            "pending_pairs": sum(_pair(p.output_a, p.output_b) not in voted
                                 for p in settlement.pending),
        })
    if name is not None and not rows:
        raise BadInput(f"no family named {name!r}", field="--family")
    return rows
