"""Settling: the pairs of a family decided without a vote, and those left for the rater.

Pure: records in, records out. For every case, every two outputs of
different systems form a pair, and the first rule that applies settles it.

In ``tests`` and ``tests_then_votes`` families the tests come first, since a
hidden test says more about a patch than any gate:

1. ``tests_separate``: passing beats failing. ``errored`` counts as failed,
   and so does a missing test result.

Then, in every family (for tested families only on pairs the tests left
undecided: both passed or both failed):

2. ``gate_loses``: one output fails a gate and the other passes all; the passing one wins.
3. ``both_gated``: both fail some gate; tie.
4. ``identical``: same text after normalising line endings and trailing whitespace; tie.

And in tested families:

5. ``both_failed_tests``: tie.
6. ``identical_diffs``: both pass and their diffs are the same change once
   commit history and index lines are set aside; tie.
7. ``both_passed_tests`` (``tests`` only, where no rater votes): tie.

In tested families every system is judged on every task (case in force): a task a
system did not answer is a failed trial with no answer for a gate to read, so it loses
to any passing solution and ties with every failed one, whatever the gates say of
that one (the seed's run gives every system the same tasks, and two failing solutions
tie); the comparisons it is in are named ``no_output``.

What remains is pending: in ``votes`` families every pair the rules leave,
in ``tests_then_votes`` two passing solutions with different diffs, both
passing the gates. ``graded`` families are scored by graders, not pairs:
nothing is returned.

A gate verdict the rater overruled is set aside: the output counts as
passing that gate, and the comparisons it takes part in are marked
``overruled``.

Each settled comparison weighs 1/(k_a*k_b), k being the number of outputs
(samples) each system has on the case, so the settled comparisons of one
case and one system pair weigh at most 1 together.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from arena.records import CaseId, Family, GateResult, Output, OutputId, SystemId
from arena.records import output_id as output_id_of
from arena.texts import normalise_text, text_key

RULES: tuple[str, ...] = (
    "tests_separate",
    "gate_loses",
    "both_gated",
    "identical",
    "both_failed_tests",
    "identical_diffs",
    "both_passed_tests",
)
# What the round summary counts settled comparisons by (an overruled one counts as such).
RULE_GROUPS: dict[str, str] = {
    "gate_loses": "gate",
    "both_gated": "gate",
    "identical": "identical",
    "identical_diffs": "identical",
    "tests_separate": "tests",
    "both_failed_tests": "tests",
    "both_passed_tests": "tests",
    "no_output": "tests",
}
TESTED_KINDS = frozenset({"tests", "tests_then_votes"})
# A round closed on unchanged rows restates the last one (arena.rounds.closing): raise this
# when a rule changes what settles, so the next close works the board out again.
# 2: a task not answered ties with every failed trial (it lost to gate-passing ones).
SETTLING_VERSION = 2

# Lines of a patch that record where it came from, not what it changes.
_PATCH_HISTORY = re.compile(r"^(?:index |similarity index |dissimilarity index )")


# Tuples, not dataclasses: a family settles tens of thousands of pairs and lists up to
# hundreds of thousands pending, and a named tuple is made several times faster.
class SettledComparison(NamedTuple):
    """A pair decided without a vote: the pair, then the rule that decided it, what the
    rule gives from a's view (``y``: 1 won, 0 lost, 0.5 tie) and the pair's weight."""

    case_id: CaseId
    output_a: OutputId
    output_b: OutputId
    system_a: SystemId
    system_b: SystemId
    rule: str
    y: float
    weight: float
    # A gate verdict on one of the outputs was set aside by the rater.
    overruled: bool = False


class PendingPair(NamedTuple):
    """A pair the rater has to judge."""

    case_id: CaseId
    output_a: OutputId
    output_b: OutputId
    system_a: SystemId
    system_b: SystemId


@dataclass(frozen=True)
class Settlement:
    settled: tuple[SettledComparison, ...]
    pending: tuple[PendingPair, ...]


def normalise_diff(diff: str) -> str:
    """The change a diff makes, read as a reviewer reads a pull request.

    Anything before the first file header (a format-patch mail: commit id,
    author, date, message, diffstat), ``index`` lines and the timestamps on
    ``---``/``+++`` lines say where the change came from, not what it is.
    """
    lines = normalise_text(diff).split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(("diff --git ", "--- "))), 0)
    kept = []
    for line in lines[start:]:
        if _PATCH_HISTORY.match(line):
            continue
        if line.startswith(("--- ", "+++ ")):
            line = line.split("\t", 1)[0]
        kept.append(line)
    return "\n".join(kept)


def any_gate_failed(
    results: Iterable[GateResult], overruled: Collection[str] = frozenset()
) -> bool:
    """Whether a gate fails, leaving out the gates named in ``overruled``."""
    return any(not r.passed and r.gate not in overruled for r in results)


def _passed_tests(output: Output) -> bool:
    # Errored trials and outputs with no recorded result count as failed.
    return output.test_result == "passed"


class _Texts:
    """Each output's text key (``arena.texts.text_key``: equal keys, identical outputs),
    read from ``keys`` or worked out once however many pairs it is in; and its diff
    normalised once."""

    def __init__(self, keys: Mapping[OutputId, str]) -> None:
        self._texts: dict[OutputId, str] = dict(keys)
        self._diffs: dict[OutputId, str] = {}

    def text(self, output: Output) -> str:
        found = self._texts.get(output.output_id)
        if found is None:
            found = self._texts[output.output_id] = text_key(output.text)
        return found

    def diff(self, output: Output) -> str:
        found = self._diffs.get(output.output_id)
        if found is None:
            found = self._diffs[output.output_id] = normalise_diff(output.text)
        return found


def _decide(
    a: Output,
    b: Output,
    a_gated: bool,
    b_gated: bool,
    kind: str,
    texts: _Texts,
    unanswered: bool = False,
) -> tuple[float, str] | None:
    """``(y, rule)`` for a settled pair, ``None`` when the rater must judge it.
    ``unanswered``: one of the two is a task its system did not answer (a stand-in)."""
    tested = kind in TESTED_KINDS
    a_passed, b_passed = _passed_tests(a), _passed_tests(b)
    if tested and a_passed != b_passed:
        return (1.0 if a_passed else 0.0), "tests_separate"
    if unanswered:
        # Both failed; with no answer on one side no gate has anything to tell them apart by.
        return 0.5, "both_failed_tests"
    if a_gated != b_gated:
        return (0.0 if a_gated else 1.0), "gate_loses"
    if a_gated:
        return 0.5, "both_gated"
    if texts.text(a) == texts.text(b):
        return 0.5, "identical"
    if not tested:
        return None
    if not a_passed:
        return 0.5, "both_failed_tests"
    if a.is_diff and b.is_diff and texts.diff(a) == texts.diff(b):
        return 0.5, "identical_diffs"
    if kind == "tests":
        return 0.5, "both_passed_tests"
    return None


def _loud(ordered: Sequence[tuple[SystemId, Sequence[tuple[Output, bool, str]]]]) -> set[SystemId]:
    """The systems of a votes family's case that can be in a settled pair: an output of
    theirs fails a gate, or another system gave one of their texts too."""
    by_text: dict[str, set[SystemId]] = defaultdict(set)
    for system, samples in ordered:
        for _, _, text in samples:
            by_text[text].add(system)
    return {
        system
        for system, samples in ordered
        if any(gated or len(by_text[text]) > 1 for _, gated, text in samples)
    }


def stand_ins(
    family: str, outputs: Iterable[Output], tasks: Iterable[CaseId]
) -> tuple[Output, ...]:
    """An empty, untested stand-in (a failed trial) for each task (case in force) a system
    answering any task did not answer. Its sample is -1 (no answer's), so its id is no
    answer's either, not even one the rater removed."""
    answered: dict[CaseId, set[SystemId]] = defaultdict(set)
    for output in outputs:
        answered[output.case_id].add(output.system_id)
    systems = sorted(set().union(*answered.values()))
    return tuple(
        Output(output_id_of(family, case_id, system, -1), family, case_id, system, -1, "")
        for case_id in tasks
        for system in systems
        if system not in answered[case_id]
    )


def _sample_order(output: Output) -> tuple[int, str]:
    return output.sample, output.output_id


def overrules_by_output(
    overruled: Collection[tuple[OutputId, str]],
) -> dict[OutputId, frozenset[str]]:
    """The overruled gates of each output."""
    found: dict[OutputId, set[str]] = defaultdict(set)
    for output_id, gate in overruled:
        found[output_id].add(gate)
    return {k: frozenset(v) for k, v in found.items()}


def settle(
    family: Family,
    outputs: Iterable[Output],
    gate_results: Mapping[OutputId, Sequence[GateResult]],
    *,
    retired_cases: Collection[CaseId] = frozenset(),
    removed_outputs: Collection[OutputId] = frozenset(),
    overruled: Collection[tuple[OutputId, str]] = frozenset(),
    pending: bool = True,
    unanswered: Sequence[Output] = (),
    text_keys: Mapping[OutputId, str] | None = None,
    failing: Collection[OutputId] | None = None,
) -> Settlement:
    """Settled comparisons and pending pairs of one family.

    Retired cases and removed outputs are left out entirely, and do not count
    among a system's samples; ``overruled`` (output, gate) verdicts are set
    aside. Within a pair, ``a`` is the system whose id sorts first, so the
    result does not depend on the order of ``outputs``. With ``pending`` False
    the pending pairs are not listed (a round needs only the settled ones). In a tested
    family, ``unanswered`` are the ``stand_ins`` for tasks systems did not answer.
    ``text_keys``: the outputs' stored text keys, if the caller has them (the rest are
    worked out). ``failing``: the outputs that fail a gate not overruled, if the caller
    has them (``any_gate_failed`` over ``gate_results``, else worked out).
    """
    by_case: dict[CaseId, dict[SystemId, list[Output]]] = defaultdict(lambda: defaultdict(list))
    for output in outputs:
        if output.family != family.name:
            raise ValueError(
                f"outputs: {output.output_id} belongs to family {output.family!r}, "
                f"not {family.name!r}"
            )
        if output.case_id in retired_cases or output.output_id in removed_outputs:
            continue
        by_case[output.case_id][output.system_id].append(output)
    if family.kind == "graded":
        return Settlement((), ())
    stand_in_ids = {o.output_id for o in unanswered}
    for stand_in in unanswered if family.kind in TESTED_KINDS else ():
        by_case[stand_in.case_id][stand_in.system_id].append(stand_in)

    set_aside = overrules_by_output(overruled)
    gated: dict[OutputId, bool] = {}
    # Outputs with a failing verdict set aside: their comparisons are marked overruled.
    relieved: set[OutputId] = set()
    for systems in by_case.values():
        for sample_list in systems.values():
            for output in sample_list:
                output_id = output.output_id
                if output_id in stand_in_ids:
                    gated[output_id] = False  # no answer, no verdict: settled by tests alone
                    continue
                results = gate_results.get(output_id)
                if not results:
                    raise ValueError(f"gate_results: no gate results for output {output_id}")
                aside = set_aside.get(output_id)
                if failing is not None:
                    gated[output_id] = output_id in failing
                else:
                    gated[output_id] = any_gate_failed(results, aside or ())
                if aside and any(not r.passed and r.gate in aside for r in results):
                    relieved.add(output_id)

    texts = _Texts(text_keys or {})
    # In a votes family only a pair with a gated output or the same text can settle.
    untested = family.kind not in TESTED_KINDS
    any_missing = bool(stand_in_ids)  # never in a votes family: spares its many pairs a look
    settled: list[SettledComparison] = []
    left: list[PendingPair] = []
    for case_id in sorted(by_case):
        systems = by_case[case_id]
        ordered = [
            (
                system,
                [
                    (o, gated[o.output_id], texts.text(o))
                    for o in (sorted(samples, key=_sample_order) if len(samples) > 1 else samples)
                ],
            )
            for system, samples in sorted(systems.items())
        ]
        loud = None if pending or not untested else _loud(ordered)
        for (system_a, samples_a), (system_b, samples_b) in combinations(ordered, 2):
            if loud is not None and system_a not in loud and system_b not in loud:
                continue  # every pairing of theirs is pending, and those are not listed
            weight = 1.0 / (len(samples_a) * len(samples_b))
            for a, a_gated, a_text in samples_a:
                for b, b_gated, b_text in samples_b:
                    missing = any_missing and (
                        a.output_id in stand_in_ids or b.output_id in stand_in_ids
                    )
                    decision = (
                        None
                        if untested and not (a_gated or b_gated or a_text == b_text)
                        else _decide(a, b, a_gated, b_gated, family.kind, texts, missing)
                    )
                    if decision is None:
                        if pending:
                            left.append(
                                PendingPair(case_id, a.output_id, b.output_id, system_a, system_b)
                            )
                        continue
                    y, rule = decision
                    if missing:
                        rule = "no_output"
                    settled.append(
                        SettledComparison(
                            case_id,
                            a.output_id,
                            b.output_id,
                            system_a,
                            system_b,
                            rule,
                            y,
                            weight,
                            a.output_id in relieved or b.output_id in relieved,
                        )
                    )
    return Settlement(tuple(settled), tuple(left))
