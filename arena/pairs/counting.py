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
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from arena.records import CaseId, OutputId, SystemId


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
    rows = sorted(outputs, key=itemgetter(1))  # by case (a no-op when read in that order)
    where = {row[0]: row for row in rows}
    failing = {o for o in failing if o in where}
    loud_cases = {where[o][1] for o in failing}
    settled = pending = 0
    for case_id, sitting in groupby(rows, key=itemgetter(1)):
        entries = [(system, None if o in failing else key) for o, _, system, key in sitting]
        n = len(entries)
        if (
            case_id not in loud_cases
            and len({key for _, key in entries}) == n
            and len({system for system, _ in entries}) == n
        ):
            pending += n * (n - 1) // 2  # the common case: nothing settles
            continue
        total = across(system for system, _ in entries)
        passing = [(system, key) for system, key in entries if key is not None]
        left = across(system for system, _ in passing)
        same: dict[str, list[SystemId]] = defaultdict(list)
        for system, key in passing:
            same[key].append(system)
        left -= sum(across(systems) for systems in same.values() if len(systems) > 1)
        settled += total - left
        pending += left
    # The pending pairs with a vote: two outputs passing the gates, on one case, of two
    # systems, with different texts.
    at = where.get
    for a, b in {(a, b) if a <= b else (b, a) for a, b in voted}:
        first, second = at(a), at(b)
        if (
            first is not None
            and second is not None
            and first[1] == second[1]
            and first[2] != second[2]
            and first[3] != second[3]
            and a not in failing
            and b not in failing
        ):
            pending -= 1
    return PairCounts(settled, pending)
