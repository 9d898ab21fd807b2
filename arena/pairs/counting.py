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
    pairs = list(voted)
    columns = ([a for a, _ in pairs], [b for _, b in pairs])
    return count_by_case(by_case, failing, columns)  # type: ignore[arg-type]


# The votes of a family as two columns: their left outputs, their right outputs (as
# ``ledger.tallies.voted_outputs`` reads them).
VotedColumns = tuple[Sequence[OutputId], Sequence[OutputId]]


def count_by_case(
    cases: Iterable[CaseOutputs], failing: Collection[OutputId], voted: VotedColumns
) -> PairCounts:
    """``count_votes_family`` of the outputs in force given case by case (each case once),
    and of the votes given as columns."""
    cases = list(cases)
    failing = set(failing)
    # The outputs of the cases where every pair is pending, numbered: the case's place
    # in the high bits, the output's in the low ``shift`` bits. Two such outputs are of
    # one case when their numbers differ in the low bits only.
    shift = max((len(outputs) for _, outputs, _, _ in cases), default=0).bit_length()
    numbered: dict[OutputId, int] = {}
    # The outputs passing the gates on the other cases: (case, system, text key).
    apart: dict[OutputId, tuple[CaseId, SystemId, str]] = {}
    settled = pending = 0
    # Cases with the same systems often share one list of them (as
    # ``ledger.tallies.outputs_by_case`` reads them): whether each is one output's is
    # worked out once a list.
    systems_seen: tuple[Sequence[SystemId], bool] = ((), True)
    for place, (case_id, outputs, systems, keys) in enumerate(cases):
        n = len(outputs)
        if systems is not systems_seen[0]:
            systems_seen = (systems, len(set(systems)) == len(systems))
        if systems_seen[1] and len(set(keys)) == n and (not failing or failing.isdisjoint(outputs)):
            pending += n * (n - 1) // 2  # the common case: nothing settles
            base = place << shift
            numbered.update(zip(outputs, range(base, base + n), strict=True))
            continue
        # None: failing a gate.
        entries = [
            (o, system, None if o in failing else key)
            for o, system, key in zip(outputs, systems, keys, strict=True)
        ]
        total = across(system for _, system, _ in entries)
        passing = [(o, system, key) for o, system, key in entries if key is not None]
        apart.update((o, (case_id, system, key)) for o, system, key in passing)
        left = across(system for _, system, _ in passing)
        same: dict[str, list[SystemId]] = defaultdict(list)
        for _, system, key in passing:
            same[key].append(system)
        left -= sum(across(systems) for systems in same.values() if len(systems) > 1)
        settled += total - left
        pending += left
    voted_pending = _voted_pending(numbered, shift, len(cases) << shift, apart, voted)
    return PairCounts(settled, pending - voted_pending)


def _voted_pending(
    numbered: dict[OutputId, int],
    shift: int,
    end: int,
    apart: dict[OutputId, tuple[CaseId, SystemId, str]],
    voted: VotedColumns,
) -> int:
    """How many pending pairs have a vote: two outputs of ``numbered`` (numbers below
    ``end``) whose numbers differ in the low ``shift`` bits only, or two of ``apart`` on
    one case, of two systems, with different texts.

    Of counting a family, the part that grows with the votes (20,000 a family at 100k
    outputs): so the ids are looked up in C (``map``), and a pair is a number, not a
    tuple of two ids."""
    at = numbered.get
    lefts, rights = voted
    low, bits = 1 << shift, end.bit_length()
    # -1 (not numbered) makes no number in 0 < i ^ j < low: two outputs of one case.
    found = {
        i << bits | j if i < j else j << bits | i
        for i, j in zip(map(at, lefts, repeat(-1)), map(at, rights, repeat(-1)), strict=True)
        if 0 < i ^ j < low
    }
    if not apart:
        return len(found)
    found_apart: set[tuple[OutputId, OutputId]] = set()
    for a, b in zip(lefts, rights, strict=True):
        first, second = apart.get(a), apart.get(b)
        if (
            first is not None
            and second is not None
            and first[0] == second[0]
            and first[1] != second[1]
            and first[2] != second[2]
        ):
            found_apart.add((a, b) if a < b else (b, a))
    return len(found) + len(found_apart)
