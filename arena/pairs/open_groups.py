"""The open pairs of one system pair at one skip level, by case: the groups a
``PairIndex`` files its open pairs in."""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass


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
    ``numbers[bounds[r]:bounds[r + 1]]``, of case ``cases[r]``, in increasing case order."""

    cases: list[int]
    bounds: list[int]
    numbers: list[int]
    first: int
    last: int

    @property
    def size(self) -> int:
        return self.bounds[self.last] - self.bounds[self.first]

    def count(self, case: int) -> int:
        at = bisect_left(self.cases, case, self.first, self.last)
        if at == self.last or self.cases[at] != case:
            return 0
        return self.bounds[at + 1] - self.bounds[at]

    def by_case(self) -> dict[int, list[int]]:
        numbers, bounds = self.numbers, self.bounds
        return {
            case: numbers[bounds[r] : bounds[r + 1]]
            for r, case in enumerate(self.cases[self.first : self.last], self.first)
        }
