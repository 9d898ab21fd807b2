"""Split-half τ within sessions: the odd- against the even-numbered votes by time of each
session, a figure a single long sitting has where the session split (the headline) has
none. Both halves share every sitting (the rater's mood, fatigue, what they just read),
so it reads higher than a split between sittings would: it is labelled as such."""

from __future__ import annotations

import math

import numpy as np

from arena import fit
from arena.records import SystemId


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


def within_session_tau(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    *,
    session: np.ndarray,
    index: dict[SystemId, int],
    reference: SystemId | None,
    penalty: float,
    least: int,
) -> tuple[float | None, str | None]:
    """(τ, None), or (None, why not) with fewer than ``least`` votes in a half or fewer
    than three systems ranked in both."""
    halves = vote_halves(session)
    split = fit.split_half_tau(
        a,
        b,
        y,
        w,
        session=halves,
        n_systems=len(index),
        penalty=penalty,
        anchor=index.get(reference) if reference is not None else None,
    )
    odd = int(np.count_nonzero(halves == 1))
    if split.n_systems < 3 or min(odd, len(halves) - odd) < least:
        return None, (
            f"{odd} odd- and {len(halves) - odd} even-numbered votes, {split.n_systems} "
            f"systems ranked in both; it needs {least} votes in each half and 3 systems"
        )
    return (float(split.tau) if math.isfinite(split.tau) else None), None
