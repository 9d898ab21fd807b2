"""The comparisons a simulated family's rules settle before any vote, and the pairs left.

Mirrors the ledger's rules (SPEC "settled pair"): a failing output loses to a passing
one, two failing outputs tie, identical outputs tie.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from fitting.simulate import SimulatedFamily


@dataclass(frozen=True)
class SettledPairs:
    """Comparisons the rules settle: a failing output loses to a passing one, two
    failing tie, identical outputs tie; each weighs 1/(k_a*k_b)."""

    case: NDArray[np.intp]
    a: NDArray[np.intp]  # systems
    b: NDArray[np.intp]
    y: NDArray[np.float64]
    w: NDArray[np.float64]


def _output_pairs(family: SimulatedFamily) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    first, second = np.triu_indices(family.n_outputs, k=1)
    across = first // family.samples != second // family.samples
    return first[across], second[across]


def settled_pairs(family: SimulatedFamily) -> tuple[SettledPairs, NDArray[np.intp]]:
    """The settled comparisons, and the pending pairs as rows ``(case, output_a, output_b)``."""
    first, second = _output_pairs(family)
    cases = np.repeat(np.arange(family.n_cases), first.size)
    oa, ob = np.tile(first, family.n_cases), np.tile(second, family.n_cases)
    fa, fb = family.failing[cases, oa], family.failing[cases, ob]
    same = (family.copy_of[cases, oa] == ob) | (family.copy_of[cases, ob] == oa)
    same |= (family.copy_of[cases, oa] >= 0) & (
        family.copy_of[cases, oa] == family.copy_of[cases, ob]
    )
    settled = fa | fb | same
    y = np.where(fa & fb, 0.5, np.where(fa, 0.0, np.where(fb, 1.0, 0.5)))
    k = float(family.samples)
    found = SettledPairs(
        cases[settled],
        oa[settled] // family.samples,
        ob[settled] // family.samples,
        y[settled],
        np.full(int(settled.sum()), 1.0 / (k * k)),
    )
    pending = np.stack([cases[~settled], oa[~settled], ob[~settled]], axis=1)
    return found, pending
