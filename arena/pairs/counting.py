"""How many pairs of a votes family settle and how many wait for the rater, counted
without listing them.

``settle`` makes a record of every pair (190,000 of them at 20 systems × 1,000
cases); status needs only how many. In a ``votes`` family a pair settles when an
output of it fails a gate or both have the same text once normalised (the same
text key, ``arena.texts``); every other pair is pending. So per case: the pairs across
systems, less those among the outputs passing the gates, less those among equal
texts. Tested families (``tests``, ``tests_then_votes``) settle by more rules
and are counted by ``settle`` itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby, repeat
from operator import itemgetter

from arena.records import CaseId, OutputId, SystemId

# A case and its outputs in force, as columns: (case, outputs, their systems, their text
# keys), as ``ledger.tallies.outputs_by_case`` reads them.
CaseOutputs = tuple[CaseId, Sequence[OutputId], Sequence[SystemId], Sequence[str]]


@dataclass(frozen=True)
class PairCounts:
    settled: int
    # Pending pairs without a vote in force.
    unvoted: int


def across(systems: Iterable[SystemId]) -> int:
    """How many pairs of these outputs (given by their systems) are of two systems."""
    counts = Counter(systems)
    n = sum(counts.values())
    return (n * n - sum(k * k for k in counts.values())) // 2


def count_votes_family(
    outputs: Iterable[tuple[OutputId, CaseId, SystemId, str]],
    failing: Collection[OutputId],
    voted: Iterable[tuple[OutputId, OutputId]],
) -> PairCounts:
    """Settled pairs, and pending pairs with no vote, of a ``votes`` family.

    ``outputs``: (output, case, system, text key: ``arena.texts.text_key``) of the outputs
    in force; ``failing``: those failing a gate (verdicts set aside by the rater left
    out); ``voted``: the two outputs of each vote in force (skips apart; repeats count
    once).
    """
    rows = sorted(outputs, key=itemgetter(1))
    by_case = [
        (case_id, *zip(*((o, system, key) for o, _, system, key in sitting), strict=True))
        for case_id, sitting in groupby(rows, key=itemgetter(1))
    ]
    return count_by_case(by_case, failing, voted)  # type: ignore[arg-type]


def count_by_case(
    cases: Iterable[CaseOutputs],
    failing: Collection[OutputId],
    voted: Iterable[tuple[OutputId, OutputId]],
) -> PairCounts:
    """``count_votes_family`` of the outputs in force given case by case (each case once)."""
    failing = set(failing)
    # Each output in force passing the gates, for the votes: on a case where every pair
    # is pending, the case; else (case, system, text key).
    where: dict[OutputId, CaseId | tuple[CaseId, SystemId, str]] = {}
    settled = pending = 0
    for case_id, outputs, systems, keys in cases:
        n = len(outputs)
        if failing.isdisjoint(outputs) and len(set(systems)) == n and len(set(keys)) == n:
            pending += n * (n - 1) // 2  # the common case: nothing settles
            where.update(zip(outputs, repeat(case_id)))
            continue
        where.update(zip(outputs, zip(repeat(case_id), systems, keys), strict=True))
        # None: failing a gate.
        entries = [
            (system, None if o in failing else key)
            for o, system, key in zip(outputs, systems, keys, strict=True)
        ]
        total = across(system for system, _ in entries)
        passing = [(system, key) for system, key in entries if key is not None]
        left = across(system for system, _ in passing)
        same: dict[str, list[SystemId]] = defaultdict(list)
        for system, key in passing:
            same[key].append(system)
        left -= sum(across(systems) for systems in same.values() if len(systems) > 1)
        settled += total - left
        pending += left
    for output_id in failing:
        where.pop(output_id, None)
    return PairCounts(settled, pending - _voted_pending(where, voted))


def _voted_pending(
    where: dict[OutputId, CaseId | tuple[CaseId, SystemId, str]],
    voted: Iterable[tuple[OutputId, OutputId]],
) -> int:
    """How many pending pairs have a vote: two outputs passing the gates, on one case, of
    two systems, with different texts (on a case of ``where`` given as such, any two)."""
    found = 0
    at = where.get
    for a, b in {(a, b) if a < b else (b, a) for a, b in voted if a != b}:
        first, second = at(a), at(b)
        if first is None or second is None:
            continue
        if isinstance(first, tuple):
            found += (
                isinstance(second, tuple)
                and first[0] == second[0]
                and first[1] != second[1]
                and first[2] != second[2]
            )
        else:
            found += first == second
    return found
