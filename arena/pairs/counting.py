"""How many pairs of a votes family settle and how many wait for the rater, counted
without listing them.

``settle`` makes a record of every pair (190,000 of them at 20 systems × 1,000
cases); status needs only how many. In a ``votes`` family a pair settles when an
output of it fails a gate or both have the same text once normalised
(``settling``); every other pair is pending. So per case: the pairs across
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

from arena.pairs.settling import normalise_text
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

    ``outputs``: (output, case, system, text) of the outputs in force; ``failing``:
    those failing a gate (verdicts set aside by the rater left out); ``voted``: the
    two outputs of each vote in force (skips apart; repeats count once).
    """
    # Where each output sits, and its normalised text (None: it fails a gate).
    where: dict[OutputId, tuple[CaseId, SystemId, str | None]] = {
        output_id: (case_id, system_id, None if output_id in failing else normalise_text(text))
        for output_id, case_id, system_id, text in outputs
    }
    settled = pending = 0
    for _, sitting in groupby(sorted(where.values(), key=itemgetter(0)), key=itemgetter(0)):
        entries = list(sitting)
        n = len(entries)
        keys = {key for _, _, key in entries}
        if len(keys) == n and None not in keys and len({s for _, s, _ in entries}) == n:
            pending += n * (n - 1) // 2  # the common case: nothing settles
            continue
        total = across(system for _, system, _ in entries)
        passing = [(system, key) for _, system, key in entries if key is not None]
        left = across(system for system, _ in passing)
        same: dict[str, list[SystemId]] = defaultdict(list)
        for system, key in passing:
            same[key].append(system)
        left -= sum(across(systems) for systems in same.values() if len(systems) > 1)
        settled += total - left
        pending += left
    # The pending pairs with a vote: two outputs passing the gates, on one case, of two
    # systems, with different texts.
    at = {output_id: sits for output_id, sits in where.items() if sits[2] is not None}.get
    for a, b in {(a, b) if a <= b else (b, a) for a, b in voted}:
        first, second = at(a), at(b)
        if (
            first is not None
            and second is not None
            and first[0] == second[0]
            and first[1] != second[1]
            and first[2] != second[2]
        ):
            pending -= 1
    return PairCounts(settled, pending)
