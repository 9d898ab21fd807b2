"""How many pairs of a votes family settle and how many wait for the rater, counted
without listing them.

``settle`` makes a record of every pair (190,000 of them at 20 systems × 1,000
cases); status needs only how many. In a ``votes`` family a pair settles when an
output of it fails a gate or both have the same text once normalised (the same
text key, ``arena.texts``); every other pair is pending.

Most cases are *plain*: every system once, every text its own, and no output failing
or removed. All their pairs are pending, so they are counted from how many outputs
they have, and so are the pairs with a vote (a pair is two outputs of one case:
``ledger.voting`` writes no other). Only the other cases are counted output by output.
Tested families (``tests``, ``tests_then_votes``) settle by more rules and are counted
by ``settle`` itself.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from arena.records import CaseId, OutputId, SystemId

# A case as ``ledger.tallies.case_tallies`` reads it: (case, how many outputs, how many
# text keys among them, their systems).
CaseTally = tuple[CaseId, int, int, Sequence[SystemId]]
# A case and its outputs in force, as columns: (case, outputs, their systems, their text
# keys), as ``ledger.tallies.case_outputs`` reads them.
CaseOutputs = tuple[CaseId, Sequence[OutputId], Sequence[SystemId], Sequence[str]]
# Votes as two columns: their left outputs, their right outputs.
VotedColumns = tuple[Sequence[OutputId], Sequence[OutputId]]


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


def plain_cases(
    tallies: Iterable[CaseTally], marked: Collection[CaseId]
) -> tuple[list[CaseTally], list[CaseId]]:
    """The plain cases of ``tallies``, and the ids of the others. ``marked``: the cases
    with an output failing a gate or removed, and the retired ones."""
    plain, others = [], []
    # Whether a list of systems names each once, by the list (cases share them).
    once: dict[int, tuple[Sequence[SystemId], bool]] = {}
    for tally in tallies:
        case_id, n, keys, systems = tally
        known = once.get(id(systems))
        if known is None:
            known = once[id(systems)] = (systems, len(set(systems)) == len(systems))
        if known[1] and keys == n and case_id not in marked:
            plain.append(tally)
        else:
            others.append(case_id)
    return plain, others


def count(
    plain: Iterable[CaseTally],
    others: Iterable[CaseOutputs],
    failing: Collection[OutputId],
    plain_voted: int,
    other_votes: VotedColumns,
) -> PairCounts:
    """Settled pairs, and pending pairs with no vote, of a ``votes`` family.

    ``plain``: its plain cases; ``others``: its other cases but the retired ones, with
    their outputs in force; ``failing``: the outputs failing a gate (verdicts set aside
    by the rater left out); ``plain_voted``: how many pairs of the plain cases have a
    vote in force; ``other_votes``: the votes in force on the other cases (skips apart).
    """
    pending = sum(n * (n - 1) // 2 for _, n, _, _ in plain)
    settled = 0
    # The outputs passing the gates on the other cases: (case, system, text key).
    apart: dict[OutputId, tuple[CaseId, SystemId, str]] = {}
    for case_id, outputs, systems, keys in others:
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
    return PairCounts(settled, pending - plain_voted - _voted_apart(apart, other_votes))


def _voted_apart(apart: dict[OutputId, tuple[CaseId, SystemId, str]], votes: VotedColumns) -> int:
    """How many pending pairs of the other cases have a vote: two outputs of ``apart``
    on one case, of two systems, with different texts (each pair once)."""
    found: set[tuple[OutputId, OutputId]] = set()
    for a, b in zip(*votes, strict=True):
        first, second = apart.get(a), apart.get(b)
        if (
            first is not None
            and second is not None
            and first[0] == second[0]
            and first[1] != second[1]
            and first[2] != second[2]
        ):
            found.add((a, b) if a < b else (b, a))
    return len(found)


def distinct_pairs(votes: VotedColumns) -> int:
    """How many pairs ``votes`` are on, each once whichever side each output was on."""
    return len({(a, b) if a < b else (b, a) for a, b in zip(*votes, strict=True)})


def count_votes_family(
    outputs: Iterable[tuple[OutputId, CaseId, SystemId, str]],
    failing: Collection[OutputId],
    voted: Iterable[tuple[OutputId, OutputId]],
) -> PairCounts:
    """``count`` of a family given whole, split as `arena status` splits it in SQL.

    ``outputs``: (output, case, system, text key: ``arena.texts.text_key``) of the outputs
    in force; ``failing``: those failing a gate; ``voted``: the two outputs of each vote
    in force, two of one case (skips apart; repeats count once).
    """
    rows = sorted(outputs, key=itemgetter(1))
    by_case = [
        (case_id, *map(list, zip(*((o, s, key) for o, _, s, key in sitting), strict=True)))
        for case_id, sitting in groupby(rows, key=itemgetter(1))
    ]
    tallies = [(c, len(o), len(set(keys)), systems) for c, o, systems, keys in by_case]
    plain, others = plain_cases(tallies, {case_id for o, case_id, _, _ in rows if o in failing})
    other_cases = [case for case in by_case if case[0] in set(others)]
    set_aside = {o for _, listed, _, _ in other_cases for o in listed}
    pairs = list(voted)
    rest = ([a for a, b in pairs if a in set_aside], [b for a, b in pairs if a in set_aside])
    every = ([a for a, _ in pairs], [b for _, b in pairs])
    return count(plain, other_cases, failing, distinct_pairs(every) - distinct_pairs(rest), rest)
