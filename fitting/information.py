"""Which comparison would tell the most about the order of the board.

The scheduler's model of the systems (not the board's fit): Bradley–Terry strengths
with a N(0, 1/``penalty``) prior, their posterior approximated by a Gaussian at the
penalized maximum (Laplace: the mean is the fit, the covariance the inverse Hessian).

One more comparison of systems ``i`` and ``j`` shrinks the covariance by a rank-one
term along ``d = e_i - e_j`` (the Laplace update of a logistic outcome, whichever way
it goes), ``cov' = cov - c (cov d)(cov d)^T`` with ``c = h / (1 + h d^T cov d)`` and
``h = p (1 - p)`` the information of the outcome at its predicted ``p``. The board's
order is in doubt where the difference of two systems ``k, l`` may lie near zero: its
posterior has standard score ``z_kl = |m_k - m_l| / sd_kl`` there. The value of the
comparison is the variance it takes off the differences, each relative to its own,
weighed by the normal density at that score:

    gain_ij = c_ij * sum_{k<l} phi(z_kl) / var_kl * ((cov d)_k - (cov d)_l)^2
            = c_ij * d^T (cov L cov) d,

``L`` the Laplacian of the weights ``phi(z_kl) / var_kl``: one ``n x n`` product for
all pairs. This is the expected-information idea of active sampling for pairwise
comparisons (Mikhailiuk et al., ICPR 2020), aimed at the order rather than at every
strength: a comparison of two systems already far apart teaches little about the order
even when it teaches much about their strengths. (The density falls off faster than
the chance of a misorder, ``Phi(-z)``, which weighed the first version: over the same
200 simulated runs of 20 systems it needed 2,546 votes on average instead of 2,611,
``benchmarks/scheduler_sim.py``.)

A difference with the current leader (the highest mean) weighs ``1 + LEADER_WEIGHT`` times
as much as the others, because the top of a board is what is quoted first: weighing every
pair alike spends little on two leaders too close to call. Over 200 simulated boards with
clear leaders, that rule needed 5,970 votes for the right top system in 95% of runs against
coverage-first's 3,914; with the leader's differences weighed double, 2,171, and 751 votes
to the whole order instead of 759 (``benchmarks/scheduler_sim.py --regime wide``). A
larger weight costs the whole order: weighed four times, 2,891 votes to it in the default
regime against 2,581 with no extra weight and 2,714 with double.

``expected_discordance`` is ``sum Phi(-z_kl)`` (``Posterior.misorder``) over all pairs
divided by their number: the expected share of pairs the current order has the wrong way
round. ``votes_to_settle`` guesses how many more votes bring it under a threshold: the
means as they stand, every variance shrinking as one over the votes (information grows with
them; the prior's share of it is left out, so the guess errs a little low).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from fitting.bradley_terry import PairwiseObjective, newton, solve_numpy

#: The scheduler model's prior on strengths: N(0, 1.5^2) logits, about a system 250
#: points from the middle. Tighter than the board's (it only decides what to ask next,
#: and a loose prior makes an unseen system look like the most informative one).
SCHEDULER_PENALTY = 1.0 / 1.5**2

#: How much more a difference with the current leader (the highest mean) weighs in
#: ``order_gain`` than any other: its weight is ``1 + LEADER_WEIGHT`` times the rest.
LEADER_WEIGHT = 1.0


# numpy has no erfc: the standard library's, element by element (the scheduler's arrays
# are a few hundred to a few thousand entries). This module loads no SciPy: `arena status`
# runs it, and SciPy's import would be most of the command's time.
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _normal_sf(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """``P(Z > z)`` of a standard normal, for each ``z`` (SciPy's ``ndtr(-z)``)."""
    return np.asarray(0.5 * _erfc(np.asarray(z, dtype=np.float64) / math.sqrt(2.0)))


def _logistic(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``1 / (1 + exp(-x))`` without overflow (SciPy's ``expit``)."""
    return np.asarray(np.exp(-np.logaddexp(0.0, -x)))


def _poisson_sf(k: int, mean: float) -> float:
    """``P(X > k)`` of a Poisson count of mean ``mean > 0`` (SciPy's ``pdtrc(k, mean)``)."""
    log_mean = math.log(mean)
    below = math.fsum(math.exp(i * log_mean - mean - math.lgamma(i + 1)) for i in range(k + 1))
    return max(0.0, 1.0 - below)


@dataclass(frozen=True)
class Posterior:
    """The Gaussian approximation of the strengths: mean and covariance."""

    mean: NDArray[np.float64]
    cov: NDArray[np.float64]

    def difference_variance(self) -> NDArray[np.float64]:
        """``var(s_k - s_l)`` for every ``k, l`` (zero diagonal)."""
        diag = np.diag(self.cov)
        return diag[:, None] + diag[None, :] - 2.0 * self.cov

    def misorder(self) -> NDArray[np.float64]:
        """``q_kl``: the probability that ``k`` and ``l`` stand the other way round
        (zero diagonal)."""
        var = self.difference_variance()
        np.fill_diagonal(var, 1.0)
        gap = np.abs(np.subtract.outer(self.mean, self.mean))
        q = _normal_sf(gap / np.sqrt(var))
        np.fill_diagonal(q, 0.0)
        return q


def posterior(wins: NDArray[np.float64], penalty: float = SCHEDULER_PENALTY) -> Posterior:
    """The Laplace posterior of ``wins`` (``wins[p, q]`` the weight ``p`` won against ``q``,
    a tie half to each), from a cold start: the same wins give the same numbers."""
    wins = np.asarray(wins, dtype=np.float64)
    if penalty <= 0:
        raise ValueError("`penalty` must be positive: the posterior needs a proper prior.")
    objective = PairwiseObjective(wins, penalty)
    fitted = newton(objective, gauge=None, tol=1e-10, max_iter=100, solve=solve_numpy, pinned=False)
    hessian = objective.evaluate(fitted.params)[2]
    return Posterior(fitted.params, np.asarray(np.linalg.inv(hessian), dtype=np.float64))


def order_gain(
    post: Posterior, first: NDArray[np.intp], second: NDArray[np.intp]
) -> NDArray[np.float64]:
    """The value of one more comparison of ``first[k]`` with ``second[k]``, for each ``k``
    (see the module's docstring)."""
    first, second = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
    var = post.difference_variance()
    np.fill_diagonal(var, 1.0)
    gap = np.abs(np.subtract.outer(post.mean, post.mean))
    weight = np.exp(-0.5 * gap * gap / var) / (math.sqrt(2.0 * math.pi) * var)
    np.fill_diagonal(weight, 0.0)
    lead = int(np.argmax(post.mean))
    weight[lead, :] *= 1.0 + LEADER_WEIGHT
    weight[:, lead] *= 1.0 + LEADER_WEIGHT
    laplacian = np.diag(weight.sum(axis=1)) - weight
    spread = post.cov @ laplacian @ post.cov
    along = spread[first, first] + spread[second, second] - 2.0 * spread[first, second]
    pair_var = var[first, second]
    # The predicted chance that ``first`` wins, its own uncertainty folded in (probit).
    p = _logistic((post.mean[first] - post.mean[second]) / np.sqrt(1.0 + np.pi * pair_var / 8.0))
    h = p * (1.0 - p)
    return h / (1.0 + h * pair_var) * along


def expected_discordance(post: Posterior) -> float:
    """The expected share of system pairs the order of ``post.mean`` has the wrong way round."""
    n = post.mean.shape[0]
    if n < 2:
        return 0.0
    return float(post.misorder().sum() / (n * (n - 1)))


def stop_threshold(n_systems: int, *, tau: float = 0.9, chance: float = 0.05) -> float:
    """The expected discordance (a share of the ``n_systems`` system pairs) at which the
    chance that so many pairs stand the wrong way round that Kendall's tau falls below
    ``tau`` is ``chance``, their count taken as Poisson (a sum of small independent
    chances). Few systems need a low share: among 10, three pairs put tau under 0.9."""
    if n_systems < 2:
        raise ValueError("`n_systems` must be at least 2.")
    if not (0.0 < chance < 1.0 and -1.0 < tau < 1.0):
        raise ValueError("`chance` must be in (0, 1) and `tau` in (-1, 1).")
    pairs = n_systems * (n_systems - 1) // 2
    # tau = 1 - 2 d / pairs: more than (1 - tau) / 2 of the pairs discordant is too many.
    too_many = math.floor((1.0 - tau) / 2.0 * pairs + 1e-9) + 1
    low, high = 0.0, float(too_many)  # P(count >= too_many) at mean ``too_many`` is > chance
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _poisson_sf(too_many - 1, middle) <= chance else (low, middle)
    return low / pairs


def votes_to_settle(post: Posterior, votes: float, threshold: float) -> float | None:
    """How many votes beyond ``votes`` (those ``post`` was fitted to) bring the expected
    discordance to ``threshold``, if every variance shrank as ``1 / votes`` and the means
    stayed: 0 when it is there already; None when there are no votes to scale or no number
    of votes would do (means too nearly equal: past a million times today's votes)."""
    if not 0.0 < threshold < 1.0:
        raise ValueError("`threshold` must be in (0, 1).")
    if votes <= 0:
        return None
    n = post.mean.shape[0]
    if n < 2 or expected_discordance(post) <= threshold:
        return 0.0
    upper = np.triu_indices(n, k=1)
    var = post.difference_variance()[upper]
    gap = np.abs(np.subtract.outer(post.mean, post.mean))[upper]

    def settled(log_shrink: float) -> bool:  # with var * exp(log_shrink) left
        return float(_normal_sf(gap / np.sqrt(var * math.exp(log_shrink))).mean()) <= threshold

    low, high = -math.log(1e6), 0.0  # the variance left: a millionth of today's, and all
    if not settled(low):
        return None
    while high - low > 1e-4:
        middle = (low + high) / 2
        low, high = (middle, high) if settled(middle) else (low, middle)
    return votes * (math.exp(-low) - 1.0)
