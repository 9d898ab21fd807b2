"""arena/judges/worth.py as it was before it read arrays (a loop over verdicts): the oracle
the tests compare a judge's worth with. Not used by Arena.

What a model judge is worth, in rater votes: the effective sample size of the
prediction-powered board of the rater's votes and the judge's verdicts
(``fit.fit_prediction_powered``, as `round close --with-judges` fits it) over the
rater-only board's.

Items are a case and a pair of systems. Each vote's prediction is the mean of the judge's
verdicts on its item, oriented to the vote's sides (a judge asked in both orders gives the
mean of the two); the judge's items no vote is on are the unlabeled set. Strata are system
pairs and clusters cases, as in a round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena import fit
from arena.ledger.judge_store import JudgeVerdict

_Y = {"left": 1.0, "tie": 0.5, "right": 0.0}
# The effective votes' interval: the round's number of cluster resamples, its own stream.
WORTH_STREAM = 4


def judge_worth(
    votes: Sequence[JudgeVerdict],
    verdicts: Sequence[JudgeVerdict],
    index: dict[str, int],
    cases: dict[str, int],
    *,
    anchor: int | None,
    seed: int,
) -> tuple[dict[str, Any] | None, float | None]:
    """The rater votes the judge's ``verdicts`` are worth beside the rater's ``votes``, as a
    figure (the effective votes beyond the rater's own, with its 95% interval, over the
    rater's ``count`` votes), and the judge's weight λ; (None, None) when either has
    nothing to fit."""
    if not votes or not verdicts:
        return None, None
    # Each item's mean verdict for its lower-numbered system.
    sums: dict[tuple[str, int, int], list[float]] = {}
    for v in verdicts:
        first, second = index[v.left_system], index[v.right_system]
        said = _Y[v.winner] if first < second else 1.0 - _Y[v.winner]
        entry = sums.setdefault((v.case_id, min(first, second), max(first, second)), [0.0, 0.0])
        entry[0] += said
        entry[1] += 1
    mean = {item: total / count for item, (total, count) in sums.items()}
    left = [index[v.left_system] for v in votes]
    right = [index[v.right_system] for v in votes]
    voted = [(v.case_id, min(i, j), max(i, j)) for v, i, j in zip(votes, left, right, strict=True)]
    a, b = np.array(left), np.array(right)
    y = np.array([_Y[v.winner] for v in votes])
    toward_low = np.array([mean.get(item, np.nan) for item in voted])
    y_hat = np.where(a < b, toward_low, 1.0 - toward_low)
    alone = sorted(set(mean) - set(voted))
    result = fit.fit_prediction_powered(
        a,
        b,
        y,
        y_hat,
        unlabeled_a=np.array([item[1] for item in alone], dtype=np.int64),
        unlabeled_b=np.array([item[2] for item in alone], dtype=np.int64),
        unlabeled_y_hat=np.array([mean[item] for item in alone]),
        cluster=np.array([cases[v.case_id] for v in votes]),
        unlabeled_cluster=np.array([cases[item[0]] for item in alone], dtype=np.int64),
        n_systems=len(index),
        anchor=anchor,
        rng=np.random.default_rng([seed, WORTH_STREAM]),
    )
    low, high = result.effective_votes_ci
    n = result.votes
    gain = {"value": result.effective_votes - n, "low": low - n, "high": high - n, "count": n}
    return gain, result.lam
