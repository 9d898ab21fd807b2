"""Split-half τ, of both kinds, with its 95% interval and what random votes would give.

Between sessions (the headline): the fit to the odd-numbered sessions against the fit to
the even-numbered ones. Within sessions: the odd- against the even-numbered votes by time
of each session, a figure a single long sitting has where the session split has none;
both halves share every sitting (the rater's mood, fatigue, what they just read), so it
reads higher than a split between sittings would, and is labelled as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from arena import fit
from arena.records import SystemId

# Fewest human votes in each half, with three systems ranked in both: below them the
# figure is not reported (docs/fitting.md, "When a figure cannot be told").
MIN_HALF_VOTES = 20
MIN_SYSTEMS = 3


@dataclass(frozen=True)
class SplitFigure:
    """A split-half τ as the round summary reports it: None where it cannot be told
    (``why`` says why), with its 95% interval and the share of random votes that reach
    it (``null_p``)."""

    tau: float | None
    ci95: list[float] | None
    null_p: float | None
    why: str | None
    points: dict[str, dict[str, float | None]]


def vote_halves(session: np.ndarray) -> np.ndarray:
    """1 for the odd-numbered votes of each session, 2 for the even-numbered ones, in the
    order they were cast (the comparisons' order: the ledger's)."""
    order = np.argsort(session, kind="stable")
    ranked = session[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    within = np.arange(len(ranked)) - np.repeat(starts, np.diff(np.r_[starts, len(ranked)]))
    halves = np.empty(len(session), dtype=np.int64)
    halves[order] = within % 2 + 1
    return halves


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def split_figure(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    *,
    halves: np.ndarray,
    cluster: np.ndarray,
    index: dict[SystemId, int],
    reference: SystemId | None,
    penalty: float,
    rng: np.random.Generator,
    named: str,
) -> SplitFigure:
    """The τ between the fits to the odd and to the even ``halves`` (1, 2, 3, …: odd
    against even). ``named`` says the halves' sizes where the figure cannot be told, with
    ``{odd}`` and ``{even}`` in it. The interval resamples each half by ``cluster`` (the
    case), as the board's intervals do."""
    anchor = index.get(reference) if reference is not None else None
    split = fit.split_half_tau(
        a, b, y, w, session=halves, n_systems=len(index), penalty=penalty, anchor=anchor
    )
    points = {
        name: {str(s): _finite(half.points[i]) for s, i in index.items()}
        for name, half in (("odd", split.odd), ("even", split.even))
    }
    odd = int(np.count_nonzero(halves % 2 == 1))
    if split.n_systems < MIN_SYSTEMS or min(odd, len(halves) - odd) < MIN_HALF_VOTES:
        why = (
            f"{named.format(odd=odd, even=len(halves) - odd)}, {split.n_systems} systems "
            f"ranked in both; it needs {MIN_HALF_VOTES} votes in each half and "
            f"{MIN_SYSTEMS} systems"
        )
        return SplitFigure(None, None, None, why, points)
    tau = _finite(split.tau)
    if tau is None:
        return SplitFigure(None, None, None, None, points)
    ci95 = None
    if penalty > 0:  # a resample may have no finite fit without a penalty
        low, high = fit.split_half_interval(
            a,
            b,
            y,
            w,
            session=halves,
            cluster=cluster,
            n_systems=len(index),
            rng=rng,
            penalty=penalty,
        )
        ci95 = [low, high] if math.isfinite(low) and math.isfinite(high) else None
    return SplitFigure(tau, ci95, _finite(split.null_p), None, points)
