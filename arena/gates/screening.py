"""Re-running the gates over a family (``arena gate``, and at round close)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from arena import gates
from arena.canonical import sha256_hex
from arena.family_state import FamilyState
from arena.ledger import Ledger, catalog, verdicts
from arena.pairs.case_doubt import LANGUAGE_GATE, Doubt, cases_in_doubt, set_aside
from arena.records import (
    GATES,
    Case,
    CaseId,
    Family,
    GateResult,
    Output,
    OutputId,
    SystemId,
)
from arena.texts import counted


@dataclass(frozen=True)
class GateSummary:
    """Failures of one family: an output failing two gates counts once in ``failed``."""

    name: str
    outputs: int
    failed: int
    by_gate: dict[str, int]
    by_system: dict[str, dict[str, int]] = field(default_factory=dict)
    changed: int = 0
    # Cases whose Language verdicts are in doubt (not counted in ``failed``).
    in_doubt: tuple[Doubt, ...] = ()

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "outputs": self.outputs,
            "failed": self.failed,
            "by_gate": self.by_gate,
            "by_system": self.by_system,
        }


class Fingerprints:
    """The fingerprint of everything the gates read of an output, its case and its family.

    A stored verdict made from the same fingerprint is still the verdict, so only
    outputs whose fingerprint changed are gated again. Whatever a gate starts to
    read must be added here (and ``GATES_VERSION`` bumped when a gate's logic changes).
    """

    def __init__(self, family: Family) -> None:
        self._family = family
        self._cases: dict[Case, str] = {}

    def _case(self, case: Case) -> str:
        """The repr of the case's part of the fingerprint, as it stands in the tuple."""
        found = self._cases.get(case)
        if found is None:
            family = self._family
            found = self._cases[case] = repr(
                repr(
                    (
                        sha256_hex(case.prompt),
                        case.language,
                        case.detected_language,
                        case.expected_languages(family.language),
                        family.language,
                        family.min_chars,
                        family.max_chars,
                    )
                )
            )
        return found

    def __call__(self, output: Output, case: Case, content_hash: str | None = None) -> str:
        """``content_hash``: the output's, when the caller has it stored (else worked out
        from the text)."""
        # The hash of repr((GATES_VERSION, content hash, finish reason, is_diff, case part)):
        # repr() of strings, numbers, None and tuples of them is unambiguous and stable.
        # Written out, so the case part's repr is made once per case, not once per output.
        return sha256_hex(
            f"({gates.GATES_VERSION!r}, {content_hash or output.content_hash!r}, "
            f"{output.finish_reason!r}, {output.is_diff!r}, {self._case(case)})"
        )


def system_labels(ledger: Ledger, family: str) -> dict[SystemId, str]:
    """The label of each of ``family``'s systems, by id: how verdicts name them."""
    return {s.system_id: s.label for s in catalog.systems(ledger, family)}


def refresh(
    ledger: Ledger,
    state: FamilyState,
    progress: Callable[[int], None] | None = None,
    *,
    cases: Collection[CaseId] | None = None,
) -> tuple[dict[OutputId, tuple[GateResult, ...]], int]:
    """Bring the gate results of every output in force (of ``cases`` only, when given) up
    to date: gate again only the outputs whose fingerprint changed, and store their
    results with the new fingerprint (even unchanged, so they are not gated again).

    Returns the results of each of those outputs, and how many changed verdict.
    """
    fingerprint = Fingerprints(state.family)
    found: dict[OutputId, tuple[GateResult, ...]] = {}
    fresh: list[tuple[OutputId, tuple[GateResult, ...], str]] = []
    changed = 0
    for output in state.in_force:
        if cases is not None and output.case_id not in cases:
            continue
        case = state.cases[output.case_id]
        mark = fingerprint(output, case, state.content_hashes.get(output.output_id))
        results = stored = state.gate_results.get(output.output_id)
        if results is None or mark != state.gate_fingerprints.get(output.output_id):
            results = gates.evaluate(output, case, state.family)
            fresh.append((output.output_id, results, mark))
            changed += results != stored
        found[output.output_id] = results
        if progress:
            progress(1)
    if fresh:
        with ledger.atomic():
            verdicts.record_gate_results(ledger, fresh)
    return found, changed


def rerun(
    ledger: Ledger,
    state: FamilyState,
    progress: Callable[[int], None] | None = None,
    *,
    cases: Collection[CaseId] | None = None,
) -> GateSummary:
    """``refresh`` the gate results, and count the failures of every output in force (of
    ``cases``) as the board sees them: overruled verdicts, and the Language verdicts of
    cases in doubt, set aside."""
    results, changed = refresh(ledger, state, progress, cases=cases)
    labels = system_labels(ledger, state.family.name)
    doubted = cases_in_doubt(
        state.in_force, {**state.gate_results, **results}, state.decisions.languages_decided
    )
    by_gate = dict.fromkeys(GATES, 0)
    by_system: dict[str, dict[str, int]] = {}
    failed = 0
    for output in state.in_force:
        if output.output_id not in results:
            continue
        aside = set_aside(output.case_id, state.overruled_gates(output.output_id), doubted)
        failures = [
            r.gate for r in results[output.output_id] if not r.passed and r.gate not in aside
        ]
        failed += bool(failures)
        per_system = by_system.setdefault(labels[output.system_id], dict.fromkeys(GATES, 0))
        for gate in failures:
            by_gate[gate] += 1
            per_system[gate] += 1
    shown = tuple(d for case_id, d in doubted.items() if cases is None or case_id in cases)
    return GateSummary(state.family.name, len(results), failed, by_gate, by_system, changed, shown)


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
    # "failed"; "in_doubt": a Language verdict on a case in doubt, which settles nothing;
    # "overruled": set aside by ``overruled_by``.
    status: str = "failed"

    def as_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class FailureCounts:
    """The failing verdicts listed, by status: those that settle pairs (``failing``), and
    those listed beside them that do not (Language verdicts ``in_doubt``, ``overruled``).
    The Gates page and `arena gate --list` both count with it."""

    failing: int
    in_doubt: int
    overruled: int

    @classmethod
    def of(cls, listed: Iterable[GateFailure]) -> FailureCounts:
        statuses = Counter(f.status for f in listed)
        return cls(statuses["failed"], statuses["in_doubt"], statuses["overruled"])

    def text(self, cases_in_doubt: int | None = None) -> str:
        """``3 failing verdicts, 2 in doubt on 1 case, 1 overruled`` (a count at 0 after the
        first left out; ``cases_in_doubt``, the cases the verdicts in doubt are on)."""
        parts = [counted(self.failing, "failing verdict")]
        if self.in_doubt:
            on = f" on {counted(cases_in_doubt, 'case')}" if cases_in_doubt else ""
            parts.append(f"{self.in_doubt} in doubt{on}")
        if self.overruled:
            parts.append(f"{self.overruled} overruled")
        return ", ".join(parts)


def failures(
    ledger: Ledger, state: FamilyState, *, gate: str | None = None, system: str | None = None
) -> list[GateFailure]:
    """Every failing verdict stored for the outputs in force, by case, system and gate.

    ``system`` is a label; overruled verdicts are listed too, with the event
    that set them aside, so they can be seen and undone, and so are Language
    verdicts in doubt, with their evidence, so the case's language can be decided.
    """
    labels = system_labels(ledger, state.family.name)
    overrules = {
        (e.output_id, e.gate): e.event_id for e in state.decisions.in_force if e.kind == "overrule"
    }
    found = []
    for output in state.in_force:
        label = labels[output.system_id]
        if system is not None and label != system:
            continue
        for result in state.gate_results.get(output.output_id, ()):
            if result.passed or gate not in (None, result.gate):
                continue
            found.append(
                GateFailure(
                    state.family.name,
                    output.case_id,
                    output.output_id,
                    label,
                    result.gate,
                    result.reason,
                    output.text[:EXCERPT_CHARS],
                    overruled_by := overrules.get((output.output_id, result.gate)),
                    _status(result.gate, overruled_by, output.case_id in state.in_doubt),
                )
            )
    order = {case_id: i for i, case_id in enumerate(state.cases)}
    found.sort(key=lambda f: (order[CaseId(f.case_id)], f.system, GATES.index(f.gate)))
    return found


def _status(gate: str, overruled_by: str | None, case_in_doubt: bool) -> str:
    if overruled_by is not None:
        return "overruled"
    return "in_doubt" if gate == LANGUAGE_GATE and case_in_doubt else "failed"
