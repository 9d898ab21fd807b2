"""The open pending pairs of a family, indexed for the scheduler's coverage-first choice.

The rule (``arena.pairs.scheduling``) ranks every open pair by (its skips,
the votes on its system pair, the votes on its case) and draws one of the
lowest in ``pair_order``. Ranking ~200k pairs at every key is what made a key
slow, so open pairs sit in groups by (skips, system pair), and within a group
in cells by the votes on their case, each cell sorted in ``pair_order``:

- a vote moves the open pairs of its case to the next cell of their groups
  (one pair per system pair, or a few with several samples) and counts one
  more vote on its system pair;
- a choice looks at the lowest cell of each group, never at each pair.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate
from operator import itemgetter

import numpy as np

from arena.pairs.scheduling import Candidate, pair_order
from arena.records import CaseId, OutputId, SystemId

# The two outputs of a pair, in sorted order: the same whichever side each was on.
PairKey = tuple[OutputId, OutputId]
SystemPair = tuple[SystemId, SystemId]


class Group:
    """The open pairs of one system pair at one skip level, by the votes on their case."""

    __slots__ = ("cells", "size", "votes")

    def __init__(self) -> None:
        self.cells: dict[int, list[int]] = {}  # votes on the case -> numbers, sorted
        self.votes: list[int] = []  # the keys of ``cells``, sorted
        self.size = 0

    def add(self, case_votes: int, number: int) -> None:
        cell = self.cells.get(case_votes)
        if cell is None:
            cell = self.cells[case_votes] = []
            insort(self.votes, case_votes)
        insort(cell, number)
        self.size += 1

    def remove(self, case_votes: int, number: int) -> None:
        cell = self.cells[case_votes]
        del cell[bisect_left(cell, number)]
        if not cell:
            del self.cells[case_votes], self.votes[bisect_left(self.votes, case_votes)]
        self.size -= 1

    def lowest(self, aside_votes: int | None, aside: int) -> tuple[int, int]:
        """(votes on the case, pairs) of the lowest cell with pairs left when ``aside``
        pairs of the cell at ``aside_votes`` are set aside."""
        for case_votes in self.votes:
            left = len(self.cells[case_votes]) - (aside if case_votes == aside_votes else 0)
            if left:
                return case_votes, left
        raise ValueError("no pair left in this group")


class PairIndex:
    """Pending pairs with their vote counts; candidates are numbered in ``pair_order``."""

    def __init__(
        self,
        candidates: Iterable[Candidate],
        systems: Mapping[OutputId, SystemId],
        votes: Iterable[tuple[PairKey, SystemPair, CaseId]] = (),
        skips: Iterable[PairKey] = (),
    ) -> None:
        """``votes`` and ``skips``: the history's votes in force (skips and repeats
        apart) and its skips, counted in one pass however long the history."""
        ranked = sorted(((pair_order(c, systems), c) for c in candidates), key=itemgetter(0))
        self.candidates = [c for _, c in ranked]
        self.pairs: list[SystemPair] = [order[0] for order, _ in ranked]
        self.keys = [pair_key(c.output_a, c.output_b) for c in self.candidates]
        by_key: dict[PairKey, list[int]] = defaultdict(list)
        by_case: dict[CaseId, list[int]] = defaultdict(list)
        for number, (key, candidate) in enumerate(zip(self.keys, self.candidates, strict=True)):
            by_key[key].append(number)
            by_case[candidate.case_id].append(number)
        self.by_key, self.by_case = dict(by_key), dict(by_case)
        self.single_case = len(self.by_case) <= 1
        # Tallies of the votes in force (skips apart), over the whole history.
        self.voted: Counter[PairKey] = Counter()
        self.skips: Counter[PairKey] = Counter()
        self.pair_votes: Counter[SystemPair] = Counter()
        self.case_votes: Counter[CaseId] = Counter()
        for key, pair, case_id in votes:
            self.voted[key] += 1
            self.pair_votes[pair] += 1
            self.case_votes[case_id] += 1
        self.skips.update(skips)
        self.voted_pairs = sum(1 for key in self.by_key if self.voted[key])
        self.groups: dict[int, dict[SystemPair, Group]] = {}  # by skips, then system pair
        self.open_count = 0
        for number in range(len(self.candidates)):
            if self._is_open(number):
                self._place(number)

    # -- keeping up with the votes -------------------------------------------

    def vote(self, key: PairKey, pair: SystemPair, case_id: CaseId, sign: int) -> None:
        """Count (+1) or take back (-1) a vote in force that is neither a skip nor a repeat."""
        touched = set(self.by_case.get(case_id, ())) | set(self.by_key.get(key, ()))

        def count() -> None:
            was_open = not self.voted[key]
            self.voted[key] += sign
            if key in self.by_key and was_open != (not self.voted[key]):
                self.voted_pairs += 1 if was_open else -1
            self.pair_votes[pair] += sign
            self.case_votes[case_id] += sign

        self._moving(touched, count)

    def skip(self, key: PairKey, sign: int) -> None:
        def count() -> None:
            self.skips[key] += sign

        self._moving(self.by_key.get(key, ()), count)

    def progress(self) -> tuple[int, int]:
        """(pairs with a vote in force, pairs for the rater)."""
        return self.voted_pairs, len(self.by_key)

    def _is_open(self, number: int) -> bool:
        return self.voted[self.keys[number]] == 0

    def _moving(self, numbers: Iterable[int], count: Callable[[], None]) -> None:
        for number in [n for n in numbers if self._is_open(n)]:
            self._lift(number)
        count()
        for number in numbers:
            if self._is_open(number):
                self._place(number)

    def _level(self, number: int) -> int:
        return self.skips[self.keys[number]]

    def _place(self, number: int) -> None:
        level = self.groups.setdefault(self._level(number), {})
        group = level.get(self.pairs[number])
        if group is None:
            group = level[self.pairs[number]] = Group()
        group.add(self.case_votes[self.candidates[number].case_id], number)
        self.open_count += 1

    def _lift(self, number: int) -> None:
        skips, pair = self._level(number), self.pairs[number]
        level = self.groups[skips]
        level[pair].remove(self.case_votes[self.candidates[number].case_id], number)
        # Empty groups go, so a choice only looks at system pairs with pairs left.
        if not level[pair].size:
            del level[pair]
            if not level:
                del self.groups[skips]
        self.open_count -= 1

    # -- choosing -------------------------------------------------------------

    def pick(self, last_case: CaseId | None, rng: np.random.Generator) -> Candidate | None:
        """The rule's choice among the open pairs, another case than ``last_case`` if any."""
        if not self.open_count:
            return None
        # The open pairs of the last case, set aside unless nothing else is left; they
        # all sit in the cells of the last case's votes.
        aside: dict[tuple[int, SystemPair], list[int]] = defaultdict(list)
        aside_votes = None
        if last_case is not None:
            for number in self.by_case.get(last_case, ()):
                if self._is_open(number):
                    aside[(self._level(number), self.pairs[number])].append(number)
            if sum(map(len, aside.values())) == self.open_count:
                aside.clear()
            aside_votes = self.case_votes[last_case] if aside else None

        def left(level: int, pair: SystemPair, group: Group) -> int:
            return group.size - len(aside.get((level, pair), ()))

        skips = min(
            s for s, level in self.groups.items() if any(left(s, p, g) for p, g in level.items())
        )
        level = self.groups[skips]
        pairs = [p for p, g in level.items() if left(skips, p, g)]
        fewest = min(self.pair_votes[p] for p in pairs)
        lowest = {
            p: level[p].lowest(aside_votes, len(aside.get((skips, p), ())))
            for p in sorted(p for p in pairs if self.pair_votes[p] == fewest)
        }
        case_votes = min(v for v, _ in lowest.values())
        sizes = [(p, n) for p, (v, n) in lowest.items() if v == case_votes]
        ends = list(accumulate(n for _, n in sizes))
        nth = int(rng.integers(ends[-1]))
        at = bisect_right(ends, nth)
        pair, nth = sizes[at][0], nth - (ends[at] - sizes[at][1])
        cell = level[pair].cells[case_votes]
        if case_votes == aside_votes:
            nth = nth_left(nth, sorted(bisect_left(cell, n) for n in aside.get((skips, pair), ())))
        return self.candidates[cell[nth]]


def pair_key(a: OutputId, b: OutputId) -> PairKey:
    return (a, b) if a <= b else (b, a)


def nth_left(nth: int, taken: Sequence[int]) -> int:
    """The place of the ``nth`` element left when the places ``taken`` (sorted) are left out."""
    for place in taken:
        if place > nth:
            break
        nth += 1
    return nth
