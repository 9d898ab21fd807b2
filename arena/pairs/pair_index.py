"""The open pending pairs of a family, indexed for the scheduler's choice.

The rule (``arena.pairs.scheduling``) takes the open pairs at the fewest skips, then
the system pairs with the fewest votes, draws one of them, and within it draws one of
the pairs whose case has the fewest votes. Open pairs sit in groups by (skips, system
pair), and within a group by case, so that:

- a vote closes the pairs it is on (one, or with ``once_per_case`` those of its case
  and system pair) and counts one more vote on its system pair and its case: a few
  pairs move, however many pairs its case holds;
- a choice looks at each group's size and at the cases of one group, never at each pair.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TypeVar

import numpy as np

from arena.pairs.settling import PendingPair, PendingPairs, order_by
from arena.records import CaseId, OutputId, PairShowings, SystemId

# How many times as likely an unsure item is drawn as a sure one (``arena.pairs.unsure``).
BOOST = 4.0

# The two outputs of a pair, in sorted order: the same whichever side each was on.
PairKey = tuple[OutputId, OutputId]
SystemPair = tuple[SystemId, SystemId]
Name = TypeVar("Name", bound=str)


class PairIndex:
    """Pending pairs with their vote counts; the pairs are numbered in the order the
    scheduler's draw reads them: system pair, case, outputs (each as its ids sort).

    Built from arrays (``settling.PendingPairs``): numbering 190,000 pairs and filing the open
    ones takes a few sorts, not a record and a dictionary entry per pair.
    """

    def __init__(
        self,
        pending: PendingPairs,
        counted: PairShowings | None = None,
        pair_votes: Mapping[SystemPair, int] | None = None,
        *,
        once_per_case: bool = False,
    ) -> None:
        """``counted``: each pair of outputs' votes in force on a first showing (skips
        apart) and skips in force (``HistorySummary.pairs``); ``pair_votes``: those votes
        by system pair. ``once_per_case``: a vote on one pair of a case and system pair
        closes the others (a ``tests_then_votes`` family: one vote per task and system
        pair)."""
        self._cases, self._outputs, self._systems = pending.cases, pending.outputs, pending.systems
        # Outputs, systems and cases ranked as their ids sort, so that sorting numbers
        # sorts as the ids do.
        out_rank = _ranks(self._outputs)
        self._rank = dict(zip(self._outputs, out_rank.tolist(), strict=True))
        names = sorted(set(pending.systems))
        system_rank = {name: r for r, name in enumerate(names)}
        out_system = np.array([system_rank[s] for s in pending.systems], dtype=np.int64)
        sa, sb = out_system[pending.a], out_system[pending.b]
        width = max(len(names), 1)
        pair = _unordered(sa, sb, width)
        ra, rb = out_rank[pending.a], out_rank[pending.b]
        order = order_by(pair, _ranks(self._cases)[pending.case], ra, rb)
        self._width = len(self._outputs)
        key = _unordered(ra, rb, self._width)[order]
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
        self._case_order = order_by(case)
        self._case_starts = np.searchsorted(case[self._case_order], np.arange(len(self._cases) + 1))
        self._case_number = {c: n for n, c in enumerate(self._cases)}
        self.single_case = bool(np.count_nonzero(np.diff(self._case_starts)) <= 1)
        # The most pairs one case has in one system pair (one, with a sample a system):
        # a group holding more keeps some, whatever case a choice sets aside.
        runs = np.flatnonzero(np.diff(pair * len(self._cases) + case))
        self._most_per_case = int(np.diff(runs, prepend=-1, append=len(key) - 1).max(initial=0))
        # What one vote closes, per number: its pair key, or its case and system pair.
        self._once_per_case = once_per_case
        self._unit = case * (width * width) + pair if once_per_case else key
        # Tallies of the votes in force (skips apart), over the whole history, by unit;
        # pair keys of no pending pair are not kept (nothing reads them). Counted in bulk,
        # for a long history: every pair's number at once.
        self.pair_votes: Counter[SystemPair] = Counter(pair_votes or {})
        counted = counted or _NONE
        # Each output the counts name: its rank here and its case's number (-1: none).
        rank_of = _looked_up(self._rank, counted.outputs)
        case_of = _looked_up(self._case_number, counted.cases)
        votes, skipped = counted.votes, counted.skips
        # Votes by case: only the cases of pending pairs are ever read (a choice looks at
        # the cases of one group).
        on_case = case_of[counted.first]
        by_case = np.bincount(on_case[on_case >= 0], votes[on_case >= 0], len(self._cases))
        self.case_votes: Counter[CaseId] = Counter(
            {self._cases[c]: int(by_case[c]) for c in np.flatnonzero(by_case).tolist()}
        )
        ra, rb = rank_of[counted.first], rank_of[counted.second]
        known = (ra >= 0) & (rb >= 0)
        keys = _unordered(ra[known], rb[known], self._width)
        # In order (each pair once, so each key once): numpy's search is quickest so.
        order = np.argsort(keys)
        keys, votes, skipped = keys[order], votes[known][order], skipped[known][order]
        units_voted = self._units_of(keys)
        has = (units_voted >= 0) & (votes > 0)
        if once_per_case:  # a unit holds several pairs: its votes are summed
            voted, at = np.unique(units_voted[has], return_inverse=True)
            sums = np.bincount(at, votes[has], len(voted)).astype(np.int64)
        else:  # a unit is its pair's key
            voted, sums = units_voted[has], votes[has]
        self.voted = Tally(voted, sums)
        self.skips: Counter[int] = Counter(
            dict(zip(keys[skipped > 0].tolist(), skipped[skipped > 0].tolist(), strict=True))
        )
        units = _distinct(self._unit)
        self.pairs_total = len(units)
        self.voted_pairs = int(_member(voted, units).sum())
        self.groups: dict[int, dict[SystemPair, Group]] = {}  # by skips, then system pair
        self.open_count = 0
        # The last choice's probability, candidates and whether it was unsure (``pick``).
        self.drawn: tuple[float, int, bool] = (1.0, 1, False)
        self._file_open(voted)

    def _file_open(self, voted: np.ndarray) -> None:
        """Put every open pair in its group, in one sort (``voted``: the units with votes,
        sorted)."""
        key, case, pair = self._key, self._case, self._pair
        numbers = np.flatnonzero(~self._closed(voted))
        level = np.zeros(len(numbers), dtype=np.int64)
        if self.skips:
            skipped = np.array([k for k, n in self.skips.items() if n], dtype=np.int64)
            at = np.flatnonzero(_member(key[numbers], _distinct(skipped)))
            level[at] = [self.skips[k] for k in key[numbers[at]].tolist()]
        codes, cases = pair[numbers], case[numbers]
        # Stable: within a case the numbers stay in increasing order.
        order = order_by(level, codes, cases)
        numbers, level, codes, cases = numbers[order], level[order], codes[order], cases[order]
        self.open_count = len(numbers)
        if not len(numbers):
            return
        # Runs of one case in one group (skips, system pair), and the runs starting one.
        new_group = np.concatenate(([True], (np.diff(level) != 0) | (np.diff(codes) != 0)))
        starts = np.flatnonzero(new_group | np.concatenate(([True], np.diff(cases) != 0)))
        bounds, run_cases = np.append(starts, len(numbers)), cases[starts]
        firsts = np.flatnonzero(new_group[starts]).tolist()
        for first, last in zip(firsts, [*firsts[1:], len(run_cases)], strict=True):
            group = Group(Runs(run_cases, bounds, numbers, first, last))
            at = starts[first]
            self.groups.setdefault(int(level[at]), {})[self._pair_names[int(codes[at])]] = group

    def _closed(self, voted: np.ndarray) -> np.ndarray:
        """Whether each number's unit is among ``voted`` (sorted, distinct)."""
        if self._once_per_case:  # a unit of several numbers
            return _member(self._unit, voted)
        # A unit is a pair key, of one number: those of the voted keys are closed.
        closed = np.zeros(len(self._key), dtype=bool)
        if len(self._sorted_keys):
            at = np.searchsorted(self._sorted_keys, voted).clip(0, len(self._sorted_keys) - 1)
            closed[self._key_order[at[self._sorted_keys[at] == voted]]] = True
        return closed

    # -- keeping up with the votes -------------------------------------------

    def _units_of(self, keys: np.ndarray) -> np.ndarray:
        """The unit of each pair key (-1: no pending pair has it)."""
        sorted_keys = self._sorted_keys
        if not len(sorted_keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.searchsorted(sorted_keys, keys).clip(0, len(sorted_keys) - 1)
        found = sorted_keys[at] == keys
        return np.where(found, self._unit[self._key_order[at]], -1)

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
        of_key = self._numbers(self._number_key(key))
        unit = int(self._unit[of_key[0]]) if of_key else None
        touched = of_key
        if unit is not None and self._once_per_case:  # the pairs of its case and system pair
            of_case = np.array(self.of_case(case_id), dtype=np.int64)
            touched = of_case[self._unit[of_case] == unit].tolist()

        def count() -> None:
            if unit is not None:
                was_open = not self.voted[unit]
                self.voted[unit] += sign
                if was_open != (not self.voted[unit]):
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

    def _left(self, group: Group, aside: int | None) -> bool:
        """Whether ``group`` has pairs of another case than ``aside``."""
        return group.size > self._most_per_case or group.left(aside) > 0

    def system_pairs(self) -> list[SystemPair]:
        """The system pairs of the pending pairs."""
        return list(self._pair_names.values())

    def progress(self) -> tuple[int, int]:
        """(pairs with a vote in force, pairs for the rater)."""
        return self.voted_pairs, self.pairs_total

    def _is_open(self, number: int) -> bool:
        return self.voted[int(self._unit[number])] == 0

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

    def _place(self, number: int) -> None:
        level = self.groups.setdefault(self._level(number), {})
        pair = self._system_pair(number)
        group = level.get(pair)
        if group is None:
            group = level[pair] = Group()
        group.add(int(self._case[number]), number)
        self.open_count += 1

    def _lift(self, number: int) -> None:
        skips, pair = self._level(number), self._system_pair(number)
        level = self.groups[skips]
        level[pair].remove(int(self._case[number]), number)
        # Empty groups go, so a choice only looks at system pairs with pairs left.
        if not level[pair].size:
            del level[pair]
            if not level:
                del self.groups[skips]
        self.open_count -= 1

    # -- choosing -------------------------------------------------------------

    def pick(
        self,
        last_case: CaseId | None,
        rng: np.random.Generator,
        prefer: Callable[[list[SystemPair]], SystemPair] | None = None,
        avoid: SystemPair | None = None,
        unsure: Mapping[SystemPair, Collection[CaseId]] | None = None,
    ) -> PendingPair | None:
        """The rule's choice among the open pairs, another case than ``last_case`` if any,
        then another system pair than ``avoid`` if any.

        ``prefer``: once every system pair with pairs left has a vote, it names the
        system pair to draw from (``arena.pairs.adaptive``) instead of a draw among the
        least voted. ``unsure``: the cases of each system pair a run judge is unsure of;
        the pair within the system pair is then drawn with ``arena.pairs.unsure``'s
        probabilities rather than uniformly. ``drawn`` holds the chosen pair's
        probability, its number of candidates and whether it was unsure."""
        self.drawn = (1.0, 1, False)
        if not self.open_count:
            return None
        # The open pairs of the last case, then those of ``avoid``, are set aside unless
        # nothing else is left.
        last = self._case_number.get(last_case) if last_case is not None else None
        for aside, shunned in ((last, avoid), (last, None), (None, avoid), (None, None)):
            levels = [
                s
                for s, level in self.groups.items()
                if any(self._left(g, aside) for p, g in level.items() if p != shunned)
            ]
            if levels:
                break
        skips = min(levels)
        level = self.groups[skips]
        pairs = sorted(p for p, g in level.items() if p != shunned and self._left(g, aside))
        fewest = min(self.pair_votes[p] for p in pairs)
        if prefer is not None and fewest:
            drawn = [prefer(pairs)]
        else:
            drawn = [p for p in pairs if self.pair_votes[p] == fewest]
        chosen_pair = drawn[int(rng.integers(len(drawn)))]
        group = level[chosen_pair]
        # ``get``: a Counter's own lookup of a case with no votes runs ``__missing__``.
        counted, names = self.case_votes.get, self._cases
        votes = {c: counted(names[c], 0) for c in group.by_case if c != aside}
        lowest = min(votes.values())
        cases = [c for c, n in votes.items() if n == lowest]
        tied = sorted(n for c in cases for n in group.by_case[c])
        doubted = unsure.get(chosen_pair) if unsure else None
        flags = [self._cases[int(self._case[n])] in doubted for n in tied] if doubted else []
        if any(flags) and not all(flags):
            weights = np.where(flags, BOOST, 1.0)
            total = float(weights.sum())
            at = int(np.searchsorted(np.cumsum(weights), rng.random() * total, side="right"))
            at = min(at, len(tied) - 1)
            number = tied[at]
            self.drawn = (float(weights[at]) / total, len(tied), bool(flags[at]))
        else:
            number = tied[int(rng.integers(len(tied)))]
            self.drawn = (1.0 / len(tied), len(tied), bool(flags and flags[0]))
        a, b = int(self._a[number]), int(self._b[number])
        systems = self._systems
        return PendingPair(
            self._cases[int(self._case[number])],
            self._outputs[a],
            self._outputs[b],
            systems[a],
            systems[b],
        )


_NOTHING = np.zeros(0, dtype=np.int64)
# No pair counted yet.
_NONE = PairShowings((), (), _NOTHING, _NOTHING, _NOTHING, _NOTHING)


def _looked_up(numbers: Mapping[Name, int], names: Sequence[Name]) -> np.ndarray:
    """The number of each of ``names`` (-1: none)."""
    return np.fromiter(map(numbers.get, names, repeat(-1)), dtype=np.int64, count=len(names))


def _unordered(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    """One number for each pair of numbers below ``width``, whichever comes first."""
    return np.minimum(a, b) * width + np.maximum(a, b)


def _distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique`` of integers, by a sort: numpy 2's own (a hash table) takes 10-20
    times as long on 190,000 pair keys, nearly all distinct."""
    ordered = np.sort(values)
    if not len(ordered):
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


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


class Tally:
    """Votes by unit: those of the history as two arrays (the units, sorted, and their
    votes), and those told since in a dictionary, so that a long history is not made
    into a dictionary of 90,000 entries."""

    __slots__ = ("_counts", "_told", "_units")

    def __init__(self, units: np.ndarray, counts: np.ndarray) -> None:
        self._units, self._counts = units, counts
        self._told: dict[int, int] = {}

    def __getitem__(self, unit: int) -> int:
        told = self._told.get(unit)
        if told is not None:
            return told
        at = int(np.searchsorted(self._units, unit))
        found = at < len(self._units) and self._units[at] == unit
        return int(self._counts[at]) if found else 0

    def __setitem__(self, unit: int, votes: int) -> None:
        self._told[unit] = votes

    def with_votes(self) -> dict[int, int]:
        """Every unit with votes, and its votes."""
        merged = dict(zip(self._units.tolist(), self._counts.tolist(), strict=True))
        merged.update(self._told)
        return {unit: votes for unit, votes in merged.items() if votes}


# The groups a ``PairIndex`` files its open pairs in.


class Group:
    """The open pairs of one system pair at one skip level, by case.

    A group filed when the index is built keeps its place in the index's runs (each case's
    pairs, case by case) and makes its dictionary the first time a pair moves in or out
    or a choice looks at its cases: an index of 190,000 pairs is built without a list for
    each case of each group, and a key makes only the few it touches."""

    __slots__ = ("_by_case", "_runs", "size")

    def __init__(self, runs: Runs | None = None) -> None:
        self._by_case: dict[int, list[int]] | None = {} if runs is None else None
        self._runs = runs
        self.size = 0 if runs is None else runs.size

    @property
    def by_case(self) -> dict[int, list[int]]:
        """Case number -> its pair numbers in this group, sorted."""
        if self._by_case is None:
            assert self._runs is not None
            self._by_case, self._runs = self._runs.by_case(), None
        return self._by_case

    def add(self, case: int, number: int) -> None:
        insort(self.by_case.setdefault(case, []), number)
        self.size += 1

    def remove(self, case: int, number: int) -> None:
        numbers = self.by_case[case]
        numbers.remove(number)
        if not numbers:
            del self.by_case[case]
        self.size -= 1

    def left(self, aside: int | None) -> int:
        """Its pairs, those of the case ``aside`` set aside."""
        if aside is None:
            return self.size
        if self._runs is not None:
            return self.size - self._runs.count(aside)
        return self.size - len(self.by_case.get(aside, ()))


@dataclass(frozen=True, slots=True)
class Runs:
    """Runs ``first`` to ``last`` of the index's runs: run ``r`` holds the pair numbers
    ``numbers[bounds[r]:bounds[r + 1]]``, of case ``cases[r]``, in increasing case order.
    Arrays shared by every group: made into lists only for a group a key touches."""

    cases: np.ndarray
    bounds: np.ndarray
    numbers: np.ndarray
    first: int
    last: int

    @property
    def size(self) -> int:
        return int(self.bounds[self.last] - self.bounds[self.first])

    def count(self, case: int) -> int:
        at = self.first + int(np.searchsorted(self.cases[self.first : self.last], case))
        if at == self.last or self.cases[at] != case:
            return 0
        return int(self.bounds[at + 1] - self.bounds[at])

    def by_case(self) -> dict[int, list[int]]:
        bounds = self.bounds[self.first : self.last + 1].tolist()
        numbers, start = self.numbers[bounds[0] : bounds[-1]].tolist(), bounds[0]
        return {
            case: numbers[bounds[at] - start : bounds[at + 1] - start]
            for at, case in enumerate(self.cases[self.first : self.last].tolist())
        }
