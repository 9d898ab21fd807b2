"""Re-running the gates over a family (``arena gate``, and at round close)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from arena import gates
from arena.family_state import FamilyState
from arena.ledger import Ledger, catalog
from arena.records import GATES, CaseId, GateResult, OutputId


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


def rerun(ledger: Ledger, state: FamilyState,
          progress: Callable[[int], None] | None = None, *,
          cases: Collection[CaseId] | None = None) -> GateSummary:
    """Evaluate every gate on every output in force (of ``cases`` only, when given).

    The results that changed are stored; the summary counts failures as the
    board sees them, with overruled verdicts set aside.
    """
    family = state.family
    labels = {s.system_id: s.label for s in catalog.systems(ledger, family.name)}
    changed: list[tuple[OutputId, tuple[GateResult, ...]]] = []
    by_gate = dict.fromkeys(GATES, 0)
    by_system: dict[str, dict[str, int]] = {}
    outputs = failed = 0
    for output in state.in_force:
        if cases is not None and output.case_id not in cases:
            continue
        results = gates.evaluate(output, state.cases[output.case_id], family)
        if results != state.gate_results.get(output.output_id):
            changed.append((output.output_id, results))
        outputs += 1
        aside = state.overruled_gates(output.output_id)
        failures = [r.gate for r in results if not r.passed and r.gate not in aside]
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


EXCERPT_CHARS = 200


@dataclass(frozen=True)
class GateFailure:
    """One failing verdict on an output in force, as `arena gate --list` shows it."""

    family: str
    case_id: str
    output_id: str
    system: str
    gate: str
    reason: str
    excerpt: str
    # The overrule event that set this verdict aside, if one is in force.
    overruled_by: str | None = None

    def as_json(self) -> dict:
        return dataclasses.asdict(self)


def failures(ledger: Ledger, state: FamilyState, *, gate: str | None = None,
             system: str | None = None) -> list[GateFailure]:
    """Every failing verdict stored for the outputs in force, by case, system and gate.

    ``system`` is a label; overruled verdicts are listed too, with the event
    that set them aside, so they can be seen and undone.
    """
    labels = {s.system_id: s.label for s in catalog.systems(ledger, state.family.name)}
    overrules = {(e.output_id, e.gate): e.event_id for e in state.decisions.in_force
                 if e.kind == "overrule"}
    found = []
    for output in state.in_force:
        label = labels[output.system_id]
        if system is not None and label != system:
            continue
        for result in state.gate_results.get(output.output_id, ()):
            if result.passed or gate not in (None, result.gate):
                continue
            found.append(GateFailure(
                state.family.name, output.case_id, output.output_id, label, result.gate,
                result.reason, output.text[:EXCERPT_CHARS],
                overrules.get((output.output_id, result.gate))))
    order = {case_id: i for i, case_id in enumerate(state.cases)}
    found.sort(key=lambda f: (order[CaseId(f.case_id)], f.system, GATES.index(f.gate)))
    return found
