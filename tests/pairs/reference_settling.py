"""The settling rule stated pair by pair: the reference that ``arena.pairs.settling``
(which states it once over columns of every pair) is held to.

The rule itself is described in ``arena/pairs/settling.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import combinations

from arena.pairs.settling import (
    TESTED_KINDS,
    PendingPair,
    SettledComparison,
    Settlement,
    any_gate_failed,
    normalise_diff,
    overrules_by_output,
)
from arena.records import CaseId, Family, GateResult, Output, OutputId, SystemId
from arena.texts import text_key


def _decide(a: Output, b: Output, a_gated: bool, b_gated: bool, kind: str, missing: bool):
    """``(y, rule)`` for a settled pair, ``None`` when the rater must judge it."""
    tested = kind in TESTED_KINDS
    a_passed, b_passed = a.test_result == "passed", b.test_result == "passed"
    if tested and a_passed != b_passed:
        return (1.0 if a_passed else 0.0), "tests_separate"
    if missing:
        return 0.5, "both_failed_tests"
    if a_gated != b_gated:
        return (0.0 if a_gated else 1.0), "gate_loses"
    if a_gated:
        return 0.5, "both_gated"
    if text_key(a.text) == text_key(b.text):
        return 0.5, "identical"
    if not tested:
        return None
    if not a_passed:
        return 0.5, "both_failed_tests"
    if a.is_diff and b.is_diff and normalise_diff(a.text) == normalise_diff(b.text):
        return 0.5, "identical_diffs"
    if kind == "tests":
        return 0.5, "both_passed_tests"
    return None


def settle(
    family: Family,
    outputs: Iterable[Output],
    gate_results: Mapping[OutputId, Sequence[GateResult]],
    *,
    retired_cases: Collection[CaseId] = frozenset(),
    removed_outputs: Collection[OutputId] = frozenset(),
    overruled: Collection[tuple[OutputId, str]] = frozenset(),
    unanswered: Sequence[Output] = (),
) -> Settlement:
    """Settled comparisons and pending pairs of one family, every pair decided alone."""
    if family.kind == "graded":
        return Settlement((), ())
    by_case: dict[CaseId, dict[SystemId, list[Output]]] = defaultdict(lambda: defaultdict(list))
    for output in outputs:
        if output.case_id not in retired_cases and output.output_id not in removed_outputs:
            by_case[output.case_id][output.system_id].append(output)
    tested = family.kind in TESTED_KINDS
    missing = {o.output_id for o in unanswered} if tested else set()
    for stand_in in unanswered if tested else ():
        by_case[stand_in.case_id][stand_in.system_id].append(stand_in)
    set_aside = overrules_by_output(overruled)
    gated, relieved = {}, set()
    for systems in by_case.values():
        for output in (o for samples in systems.values() for o in samples):
            if output.output_id in missing:
                gated[output.output_id] = False
                continue
            results = gate_results[output.output_id]
            aside = set_aside.get(output.output_id, frozenset())
            gated[output.output_id] = any_gate_failed(results, aside)
            if any(not r.passed and r.gate in aside for r in results):
                relieved.add(output.output_id)
    settled, left = [], []
    for case_id in sorted(by_case):
        ordered = [
            (system, sorted(samples, key=lambda o: (o.sample, o.output_id)))
            for system, samples in sorted(by_case[case_id].items())
        ]
        for (system_a, samples_a), (system_b, samples_b) in combinations(ordered, 2):
            weight = 1.0 / (len(samples_a) * len(samples_b))
            for a in samples_a:
                for b in samples_b:
                    no_output = a.output_id in missing or b.output_id in missing
                    ids = (case_id, a.output_id, b.output_id, system_a, system_b)
                    decision = _decide(
                        a, b, gated[a.output_id], gated[b.output_id], family.kind, no_output
                    )
                    if decision is None:
                        left.append(PendingPair(*ids))
                        continue
                    y, rule = decision
                    aside = a.output_id in relieved or b.output_id in relieved
                    rule = "no_output" if no_output else rule
                    settled.append(SettledComparison(*ids, rule, y, weight, aside))
    return Settlement(tuple(settled), tuple(left))
