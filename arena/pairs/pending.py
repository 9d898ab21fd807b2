"""The pairs left for the rater, as arrays of numbers.

``settle`` makes a record of each pending pair: 190,000 of them at 20 systems ×
1,000 cases, which took seconds before a rating session could show its first
pair. Here a pair is three numbers, its case and its two outputs (places in
``cases`` and ``outputs``), and the pending pairs of a ``votes`` family are
worked out for all its cases at once from the rule ``settle`` states for that
kind: every two outputs of different systems on a case, unless one fails a gate
or both say the same once normalised. Tested families settle by their tests and
diffs too: their pending pairs come from ``settle`` (``PendingPairs.of``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from arena.pairs.scheduling import Candidate
from arena.records import CaseId, OutputId, OutputPlace


class Paired(Protocol):
    """A pending pair as a record (``settling.PendingPair`` or ``scheduling.Candidate``)."""

    @property
    def case_id(self) -> CaseId: ...
    @property
    def output_a(self) -> OutputId: ...
    @property
    def output_b(self) -> OutputId: ...


@dataclass(frozen=True, eq=False)
class PendingPairs:
    """Pair ``k`` is ``outputs[a[k]]`` and ``outputs[b[k]]`` on ``cases[case[k]]``."""

    cases: list[CaseId]
    outputs: list[OutputId]
    case: np.ndarray
    a: np.ndarray
    b: np.ndarray

    def __len__(self) -> int:
        return len(self.case)

    def __iter__(self) -> Iterator[Candidate]:
        cases, outputs = self.cases, self.outputs
        for c, a, b in zip(self.case.tolist(), self.a.tolist(), self.b.tolist(), strict=True):
            yield Candidate(cases[c], outputs[a], outputs[b])

    @classmethod
    def of(cls, pairs: Iterable[Paired]) -> PendingPairs:
        """The same pairs, in the same order, as numbers."""
        cases: dict[CaseId, int] = {}
        outputs: dict[OutputId, int] = {}
        numbers = [
            (
                cases.setdefault(p.case_id, len(cases)),
                outputs.setdefault(p.output_a, len(outputs)),
                outputs.setdefault(p.output_b, len(outputs)),
            )
            for p in pairs
        ]
        table = np.array(numbers, dtype=np.int64).reshape(-1, 3)
        return cls(list(cases), list(outputs), table[:, 0], table[:, 1], table[:, 2])


@lru_cache(maxsize=64)
def _upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with i < j < n, in that order."""
    i, j = np.triu_indices(n, 1)
    return i.astype(np.int64), j.astype(np.int64)


def votes_pending(outputs: Iterable[OutputPlace], failing: Collection[OutputId]) -> PendingPairs:
    """The pending pairs of a ``votes`` family: ``outputs`` are those in force, ``failing``
    those failing a gate (verdicts set aside by the rater left out). The pairs come case by
    case in case order; within a pair, ``a`` is the output whose system sorts first."""
    by_case: dict[CaseId, list[OutputPlace]] = defaultdict(list)
    for output in outputs:
        by_case[output.case_id].append(output)
    cases = sorted(by_case)
    # Two samples of one system are never a pair, so their order within it does not matter.
    ordered = [
        o
        for case_id in cases
        for o in sorted(by_case[case_id], key=lambda o: (o.system_id, o.output_id))
    ]
    sizes = np.array([len(by_case[c]) for c in cases], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    # Per output: its system and its text key as numbers (-1: it fails a gate).
    system_numbers: dict[str, int] = {}
    text_numbers: dict[str, int] = {}
    system = np.array(
        [system_numbers.setdefault(o.system_id, len(system_numbers)) for o in ordered],
        dtype=np.int64,
    )
    text = np.array(
        [
            -1 if o.output_id in failing else text_numbers.setdefault(o.text_key, len(text_numbers))
            for o in ordered
        ],
        dtype=np.int64,
    )
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for n in np.unique(sizes).tolist():
        if n < 2:
            continue
        chosen = np.flatnonzero(sizes == n)
        i, j = _upper(n)
        a = (starts[chosen][:, None] + i[None, :]).ravel()
        b = (starts[chosen][:, None] + j[None, :]).ravel()
        parts.append((np.repeat(chosen, len(i)), a, b))
    if parts:
        case = np.concatenate([p[0] for p in parts])
        a = np.concatenate([p[1] for p in parts])
        b = np.concatenate([p[2] for p in parts])
    else:
        case = a = b = np.zeros(0, dtype=np.int64)
    keep = (system[a] != system[b]) & (text[a] >= 0) & (text[b] >= 0) & (text[a] != text[b])
    case, a, b = case[keep], a[keep], b[keep]
    order = np.argsort(case, kind="stable")
    return PendingPairs(cases, [o.output_id for o in ordered], case[order], a[order], b[order])
