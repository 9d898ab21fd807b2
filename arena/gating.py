"""Re-running the gates over a family (``arena gate``, and at round close)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from arena import gates
from arena.ledger import Ledger, catalog, events
from arena.records import GATES, Family, GateResult, OutputId


@dataclass(frozen=True)
class GateSummary:
    """Failures of one family: an output failing two gates counts once in ``failed``."""

    name: str
    outputs: int
    failed: int
    by_gate: dict[str, int]
    by_system: dict[str, dict[str, int]] = field(default_factory=dict)
    changed: int = 0

    def as_json(self) -> dict:
        return {"name": self.name, "outputs": self.outputs, "failed": self.failed,
                "by_gate": self.by_gate, "by_system": self.by_system}


def rerun(ledger: Ledger, family: Family,
          progress: Callable[[int], None] | None = None) -> GateSummary:
    """Evaluate every gate on every output in force; store the results that changed."""
    cases = {c.case_id: c for c in catalog.cases(ledger, family.name)}
    stored = catalog.gate_results(ledger, family.name)
    labels = {s.system_id: s.label for s in catalog.systems(ledger, family.name)}
    changed: list[tuple[OutputId, tuple[GateResult, ...]]] = []
    by_gate = dict.fromkeys(GATES, 0)
    by_system: dict[str, dict[str, int]] = {}
    outputs = failed = 0
    for output in events.outputs_in_force(ledger, family.name):
        results = gates.evaluate(output, cases[output.case_id], family)
        if results != stored.get(output.output_id):
            changed.append((output.output_id, results))
        outputs += 1
        failures = [r.gate for r in results if not r.passed]
        failed += bool(failures)
        per_system = by_system.setdefault(labels[output.system_id], dict.fromkeys(GATES, 0))
        for gate in failures:
            by_gate[gate] += 1
            per_system[gate] += 1
        if progress:
            progress(1)
    if changed:
        with ledger.atomic():
            catalog.record_gate_results(ledger, changed)
    return GateSummary(family.name, outputs, failed, by_gate, by_system, len(changed))
