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

import numpy as np

from arena.pairs.pending import PendingPairs
from arena.pairs.scheduling import Candidate
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
    """Pending pairs with their vote counts; the pairs are numbered in ``pair_order``.

    Built from arrays (``PendingPairs``): numbering 190,000 pairs and filing the open
    ones takes a few sorts, not a record and a dictionary entry per pair.
    """

    def __init__(
        self,
        candidates: Iterable[Candidate] | PendingPairs,
        systems: Mapping[OutputId, SystemId],
        votes: Iterable[tuple[PairKey, SystemPair, CaseId]] = (),
        skips: Iterable[PairKey] = (),
    ) -> None:
        """``votes`` and ``skips``: the history's votes in force (skips and repeats
        apart) and its skips, counted in one pass however long the history."""
        pending = (
            candidates if isinstance(candidates, PendingPairs) else PendingPairs.of(candidates)
        )
        self._cases, self._outputs = pending.cases, pending.outputs
        # Outputs, systems and cases ranked as their ids sort, so that sorting numbers
        # sorts as ``pair_order`` does.
        out_rank = _ranks(self._outputs)
        self._rank = dict(zip(self._outputs, out_rank.tolist(), strict=True))
        names = sorted({systems[o] for o in self._outputs})
        system_rank = {name: r for r, name in enumerate(names)}
        out_system = np.array([system_rank[systems[o]] for o in self._outputs], dtype=np.int64)
        sa, sb = out_system[pending.a], out_system[pending.b]
        width = max(len(names), 1)
        pair = np.minimum(sa, sb) * width + np.maximum(sa, sb)
        ra, rb = out_rank[pending.a], out_rank[pending.b]
        order = np.lexsort((rb, ra, _ranks(self._cases)[pending.case], pair))
        self._width = len(self._outputs)
        key = (np.minimum(ra, rb) * self._width + np.maximum(ra, rb))[order]
        case, pair = pending.case[order], pair[order]
        # Per number: its outputs, case, key and system pair (read a few at a time).
        self._a, self._b, self._case, self._key, self._pair = (
            pending.a[order],
            pending.b[order],
            case,
            key,
            pair,
        )
        used = np.flatnonzero(np.bincount(pair, minlength=1))
        self._pair_names = {
            code: (names[code // width], names[code % width]) for code in used.tolist()
        }
        # The numbers of each pair key, and of each case, in increasing order.
        self._key_order = np.argsort(key, kind="stable")
        self._sorted_keys = key[self._key_order]
        self._case_order = np.argsort(case, kind="stable")
        self._case_starts = np.searchsorted(case[self._case_order], np.arange(len(self._cases) + 1))
        self._case_number = {c: n for n, c in enumerate(self._cases)}
        self.single_case = bool(np.count_nonzero(np.diff(self._case_starts)) <= 1)
        # Tallies of the votes in force (skips apart), over the whole history; pair keys
        # of no pending pair are not kept (nothing reads them).
        self.voted: Counter[int] = Counter()
        self.skips: Counter[int] = Counter()
        self.pair_votes: Counter[SystemPair] = Counter()
        self.case_votes: Counter[CaseId] = Counter()
        rank, width = self._rank.get, self._width
        for (a, b), system_pair, case_id in votes:  # ``_number_key``, for a long history
            ra, rb = rank(a), rank(b)
            if ra is not None and rb is not None:
                self.voted[min(ra, rb) * width + max(ra, rb)] += 1
            self.pair_votes[system_pair] += 1
            self.case_votes[case_id] += 1
        for pair_key_ in skips:
            number_key = self._number_key(pair_key_)
            if number_key is not None:
                self.skips[number_key] += 1
        sorted_keys = self._sorted_keys
        fresh = np.ones(len(sorted_keys), dtype=bool)
        fresh[1:] = sorted_keys[1:] != sorted_keys[:-1]
        self.pairs_total = int(fresh.sum())
        voted = np.array([k for k, n in self.voted.items() if n], dtype=np.int64)
        self.voted_pairs = int(_member(voted, sorted_keys).sum())
        self.groups: dict[int, dict[SystemPair, Group]] = {}  # by skips, then system pair
        self.open_count = 0
        self._file_open(voted)

    def _file_open(self, voted: np.ndarray) -> None:
        """Put every open pair in its group and cell, in one sort."""
        key, case, pair = self._key, self._case, self._pair
        numbers = np.flatnonzero(~_member(key, np.unique(voted)))
        level = np.zeros(len(numbers), dtype=np.int64)
        if self.skips:
            skipped = np.array([k for k, n in self.skips.items() if n], dtype=np.int64)
            at = np.flatnonzero(_member(key[numbers], np.unique(skipped)))
            level[at] = [self.skips[k] for k in key[numbers[at]].tolist()]
        votes_of_case = np.array([self.case_votes[c] for c in self._cases], dtype=np.int64)
        case_votes = votes_of_case[case[numbers]] if len(numbers) else level
        codes = pair[numbers]
        # Stable: within a cell the numbers stay in increasing order.
        order = np.lexsort((case_votes, codes, level))
        numbers, level, codes, case_votes = (
            numbers[order],
            level[order],
            codes[order],
            case_votes[order],
        )
        changes = (np.diff(level) != 0) | (np.diff(codes) != 0) | (np.diff(case_votes) != 0)
        starts = np.concatenate(([0], np.flatnonzero(changes) + 1)).tolist()
        ends = [*starts[1:], len(numbers)]
        for start, end in zip(starts, ends, strict=True):
            if start == end:
                continue
            skips, code, votes = int(level[start]), int(codes[start]), int(case_votes[start])
            group = self.groups.setdefault(skips, {}).get(self._pair_names[code])
            if group is None:
                group = self.groups[skips][self._pair_names[code]] = Group()
            group.cells[votes] = numbers[start:end].tolist()
            insort(group.votes, votes)
            group.size += end - start
        self.open_count = len(numbers)

    # -- keeping up with the votes -------------------------------------------

    def _number_key(self, key: PairKey) -> int | None:
        """The key of a pair as a number (None: no pending pair has these outputs)."""
        a, b = self._rank.get(key[0]), self._rank.get(key[1])
        if a is None or b is None:
            return None
        return min(a, b) * self._width + max(a, b)

    def _numbers(self, number_key: int | None) -> list[int]:
        """The numbers of the pairs with this key."""
        if number_key is None:
            return []
        low = int(np.searchsorted(self._sorted_keys, number_key, side="left"))
        high = int(np.searchsorted(self._sorted_keys, number_key, side="right"))
        return self._key_order[low:high].tolist()

    def of_case(self, case_id: CaseId) -> list[int]:
        """The numbers of the pairs on ``case_id``, in increasing order."""
        at = self._case_number.get(case_id)
        if at is None:
            return []
        start, end = self._case_starts[at], self._case_starts[at + 1]
        return self._case_order[start:end].tolist()

    def vote(self, key: PairKey, pair: SystemPair, case_id: CaseId, sign: int) -> None:
        """Count (+1) or take back (-1) a vote in force that is neither a skip nor a repeat."""
        number_key = self._number_key(key)
        of_key = self._numbers(number_key)
        touched = set(self.of_case(case_id)) | set(of_key)

        def count() -> None:
            if number_key is not None:
                was_open = not self.voted[number_key]
                self.voted[number_key] += sign
                if of_key and was_open != (not self.voted[number_key]):
                    self.voted_pairs += 1 if was_open else -1
            self.pair_votes[pair] += sign
            self.case_votes[case_id] += sign

        self._moving(touched, count)

    def skip(self, key: PairKey, sign: int) -> None:
        number_key = self._number_key(key)

        def count() -> None:
            if number_key is not None:
                self.skips[number_key] += sign

        self._moving(self._numbers(number_key), count)

    def progress(self) -> tuple[int, int]:
        """(pairs with a vote in force, pairs for the rater)."""
        return self.voted_pairs, self.pairs_total

    def _is_open(self, number: int) -> bool:
        return self.voted[int(self._key[number])] == 0

    def _moving(self, numbers: Iterable[int], count: Callable[[], None]) -> None:
        numbers = list(numbers)
        for number in [n for n in numbers if self._is_open(n)]:
            self._lift(number)
        count()
        for number in numbers:
            if self._is_open(number):
                self._place(number)

    def _level(self, number: int) -> int:
        return self.skips[int(self._key[number])]

    def _system_pair(self, number: int) -> SystemPair:
        return self._pair_names[int(self._pair[number])]

    def _case_votes(self, number: int) -> int:
        return self.case_votes[self._cases[int(self._case[number])]]

    def _place(self, number: int) -> None:
        level = self.groups.setdefault(self._level(number), {})
        pair = self._system_pair(number)
        group = level.get(pair)
        if group is None:
            group = level[pair] = Group()
        group.add(self._case_votes(number), number)
        self.open_count += 1

    def _lift(self, number: int) -> None:
        skips, pair = self._level(number), self._system_pair(number)
        level = self.groups[skips]
        level[pair].remove(self._case_votes(number), number)
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
            for number in self.of_case(last_case):
                if self._is_open(number):
                    aside[(self._level(number), self._system_pair(number))].append(number)
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
        number = cell[nth]
        return Candidate(
            self._cases[int(self._case[number])],
            self._outputs[int(self._a[number])],
            self._outputs[int(self._b[number])],
        )


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in ``sorted_set`` (sorted ascending)."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    at = np.searchsorted(sorted_set, values).clip(0, len(sorted_set) - 1)
    return sorted_set[at] == values


def _ranks(names: Sequence[str]) -> np.ndarray:
    """Each name's place when the names are sorted."""
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    return ranks


def pair_key(a: OutputId, b: OutputId) -> PairKey:
    return (a, b) if a <= b else (b, a)


def nth_left(nth: int, taken: Sequence[int]) -> int:
    """The place of the ``nth`` element left when the places ``taken`` (sorted) are left out."""
    for place in taken:
        if place > nth:
            break
        nth += 1
    return nth
