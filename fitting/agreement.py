"""Rater agreement: how often a side-swapped repeat matches the original vote."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .proportion import proportion_interval

#: The vote choices, as the ledger records them.
CHOICES = ("left", "right", "tie", "both_bad")

_MIRROR = {"left": "right", "right": "left", "tie": "tie", "both_bad": "both_bad"}


@dataclass(frozen=True)
class AgreementResult:
    """Result of :func:`rater_agreement`.

    Attributes
    ----------
    share : float
        ``agreed / count``; NaN when there are no repeats.
    agreed : int
        Repeats whose choice, mapped back to the original sides, equals the
        original vote.
    count : int
        Repeats compared.
    low, high : float
        Wilson's 95% interval of ``share`` (:func:`~fitting.proportion_interval`);
        NaN when there are no repeats.
    """

    share: float
    agreed: int
    count: int
    low: float = math.nan
    high: float = math.nan


def rater_agreement(
    original: ArrayLike,
    repeat: ArrayLike,
    *,
    swapped: bool | ArrayLike = True,
) -> AgreementResult:
    """Share of repeats whose choice, mapped back to the original sides, matches.

    Parameters
    ----------
    original : array_like of str
        The first vote on each pair: ``"left"``, ``"right"``, ``"tie"`` or
        ``"both_bad"``.
    repeat : array_like of str
        The repeat's vote, as shown (sides swapped when ``swapped``).
    swapped : bool or array_like of bool, optional
        Whether each repeat showed the pair with sides swapped (the default,
        as Arena schedules repeats); ``False`` when ``repeat`` is already
        mapped back to the original sides.

    Returns
    -------
    AgreementResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    first = _choices_iv(original, "original")
    again = _choices_iv(repeat, "repeat")
    if again.shape != first.shape:
        raise ValueError("`repeat` must have the same length as `original`.")
    flip = np.asarray(swapped)
    if flip.dtype != np.bool_ or flip.shape not in ((), first.shape):
        raise ValueError("`swapped` must be a bool or an array of bools, one per repeat.")
    flip = np.broadcast_to(flip, first.shape)
    mapped = [_MIRROR[c] if f else c for c, f in zip(again.tolist(), flip.tolist(), strict=True)]
    agreed = sum(m == o for m, o in zip(mapped, first.tolist(), strict=True))
    count = len(mapped)
    low, high = proportion_interval(agreed, count)
    return AgreementResult(
        share=agreed / count if count else math.nan,
        agreed=agreed,
        count=count,
        low=low,
        high=high,
    )


def _choices_iv(values: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional.")
    unknown = set(arr.tolist()) - set(CHOICES)
    if unknown:
        found = sorted(map(str, unknown))
        raise ValueError(f"`{name}` holds {found}; the choices are {list(CHOICES)}.")
    return arr
