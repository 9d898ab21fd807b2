"""What a model judge is worth, in rater votes: the effective sample size of the
prediction-powered board of the rater's votes and the judge's verdicts
(``fit.fit_prediction_powered``, as `round close --with-judges` fits it) over the
rater-only board's.

Items are a case and a pair of systems. Each vote's prediction is the mean of the judge's
verdicts on its item, oriented to the vote's sides (a judge asked in both orders gives the
mean of the two); the judge's items no vote is on are the unlabeled set. Strata are system
pairs and clusters cases, as in a round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena import fit

# The effective votes' interval: the round's number of cluster resamples, its own stream.
WORTH_STREAM = 4


def judge_worth(
    votes: Any,
    verdicts: Any,
    n_systems: int,
    *,
    anchor: int | None,
    seed: int,
) -> tuple[dict[str, Any] | None, float | None]:
    """The rater votes the judge's ``verdicts`` are worth beside the rater's ``votes`` (each
    a ``fit.CaseComparisons``: systems as shown, left first, and cases numbered in case-id
    order), as a figure (the effective votes beyond the rater's own, with its 95% interval,
    over the rater's ``count`` votes), and the judge's weight λ; (None, None) when either
    has nothing to fit."""
    if not votes.a.size or not verdicts.a.size:
        return None, None
    n = n_systems
    # Each item (case, lower-numbered system, the other) as one number, in the order of
    # (case id, systems): each item's mean verdict for its lower-numbered system.
    low, high = np.minimum(verdicts.a, verdicts.b), np.maximum(verdicts.a, verdicts.b)
    said = np.where(verdicts.a < verdicts.b, verdicts.y, 1.0 - verdicts.y)
    judged, at = np.unique((verdicts.case * n + low) * n + high, return_inverse=True)
    mean = np.bincount(at, weights=said) / np.bincount(at)
    a, b, y = votes.a, votes.b, votes.y
    voted = (votes.case * n + np.minimum(a, b)) * n + np.maximum(a, b)
    where = np.minimum(np.searchsorted(judged, voted), judged.size - 1)
    toward_low = np.where(judged[where] == voted, mean[where], np.nan)
    y_hat = np.where(a < b, toward_low, 1.0 - toward_low)
    alone = ~np.isin(judged, voted)
    items = judged[alone]
    result = fit.fit_prediction_powered(
        a,
        b,
        y,
        y_hat,
        unlabeled_a=(items // n % n).astype(np.int64),
        unlabeled_b=(items % n).astype(np.int64),
        unlabeled_y_hat=mean[alone],
        cluster=votes.case,
        unlabeled_cluster=(items // (n * n)).astype(np.int64),
        n_systems=n,
        anchor=anchor,
        rng=np.random.default_rng([seed, WORTH_STREAM]),
    )
    low_, high_ = result.effective_votes_ci
    count = result.votes
    gain = {
        "value": result.effective_votes - count,
        "low": low_ - count,
        "high": high_ - count,
        "count": count,
    }
    return gain, result.lam
