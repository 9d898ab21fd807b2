"""How many votes the best possible allocation over system pairs saves, knowing the truth.

    python benchmarks/design_bound.py                 # 20 systems, 20 draws (~20 min)
    python benchmarks/design_bound.py --systems 8,20,50 --draws 10

A bound for ``scheduler_sim.py``: no way of choosing pairs, adaptive or not, can beat
the best fixed allocation made with the true strengths in hand. For each draw of
``fitting.simulate`` strengths, the votes are spread over the system pairs with weights
``w``; under the Laplace approximation of the Bradley–Terry fit (Fisher information
``sum w_ij h_ij d_ij d_ij^T`` plus the prior), the expected number of system pairs the
fit has the wrong way round is ``sum_kl Phi(-|delta_kl| / sd_kl)``. The script finds
(L-BFGS over softmax weights, from two starts: uniform and neighbours first) the
allocation that minimises it, and the fewest votes with which that allocation does as
well as the uniform spread of ``--votes`` votes (coverage-first spreads votes evenly).

The strengths are on the scale the rater's votes show them: ``kappa`` times the planted
ones, ``kappa`` measured here by fitting a large uniform design of the simulated rater
(output quality noise and case difficulty shrink every margin).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.optimize
import scipy.special

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from regimes import REGIMES, Regime, add_argument  # noqa: E402
from scheduler_sim import count  # noqa: E402

from fitting import simulate as sim  # noqa: E402
from fitting.bradley_terry import PairwiseObjective, newton  # noqa: E402
from fitting.information import SCHEDULER_PENALTY  # noqa: E402


def measured_kappa(n: int, regime: Regime, cases: int = 150, seed: int = 0) -> float:
    """The slope of the fitted strengths on the planted ones, every pair on every case."""
    rng = np.random.default_rng([seed, n])
    systems = regime.systems(n, rng)
    family = regime.family(systems, cases, rng)
    rater = sim.SimulatedRater(family, sim.RaterTraits(), rng=np.random.default_rng(seed))
    wins = np.zeros((n, n))
    for case in range(cases):
        for a in range(n):
            for b in range(a + 1, n):
                count(wins, a, b, rater.choose(case, a, b))
    fitted = newton(PairwiseObjective(wins, 1e-4), gauge=None, tol=1e-9, max_iter=100).params
    truth = systems.strengths - systems.strengths.mean()
    return float((fitted - fitted.mean()) @ truth / (truth @ truth))


class Design:
    """Expected discordance of an allocation of votes over the system pairs."""

    def __init__(self, strengths: np.ndarray) -> None:
        n = len(strengths)
        self.first, self.second = np.triu_indices(n, k=1)
        pairs = len(self.first)
        self.d = np.zeros((pairs, n))
        self.d[np.arange(pairs), self.first] = 1.0
        self.d[np.arange(pairs), self.second] = -1.0
        p = scipy.special.expit(strengths[self.first] - strengths[self.second])
        self.h = p * (1.0 - p)
        self.gap = np.abs(strengths[self.first] - strengths[self.second])
        self.n = n

    def discordance(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """The expected discordance of ``w`` and its gradient: one more vote on pair ``p``
        takes ``h_p (a_kl^T cov d_p)^2`` off each difference's variance ``var_kl``."""
        info = (self.d.T * (w * self.h)) @ self.d + SCHEDULER_PENALTY * np.eye(self.n)
        cov = np.linalg.inv(info)
        f, s = self.first, self.second
        var = cov[f, f] + cov[s, s] - 2.0 * cov[f, s]
        z = self.gap / np.sqrt(var)
        # d Phi(-z) / d var = phi(z) z / (2 var): the weights of a Laplacian over the pairs.
        weight = np.zeros((self.n, self.n))
        weight[f, s] = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) * z / (2.0 * var)
        weight += weight.T
        spread = cov @ (np.diag(weight.sum(axis=1)) - weight) @ cov
        along = spread[f, f] + spread[s, s] - 2.0 * spread[f, s]
        return float(scipy.special.ndtr(-z).sum()), -self.h * along

    def best(self, votes: float) -> float:
        """The least expected discordance of any allocation of ``votes`` votes."""
        pairs = len(self.first)
        starts = [np.zeros(pairs), -2.0 * self.gap / self.gap.std()]  # uniform; close first

        def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
            share = scipy.special.softmax(x)
            value, grad = self.discordance(votes * share)
            weighted = votes * share * grad
            return value, weighted - share * weighted.sum()

        return min(
            scipy.optimize.minimize(objective, x0, jac=True, method="L-BFGS-B").fun for x0 in starts
        )

    def votes_to_match(self, target: float, votes: float) -> float:
        """The fewest votes (to 0.5%) with which the best allocation reaches ``target``."""
        low, high = 0.2 * votes, votes
        while high - low > 0.005 * votes:
            middle = (low + high) / 2
            low, high = (low, middle) if self.best(middle) <= target else (middle, high)
        return high


@dataclass(frozen=True)
class Bound:
    kappa: float
    votes: int  # spread evenly over the system pairs
    ratios: np.ndarray  # per draw: the best allocation's votes to match them, over ``votes``


def design_bound(n: int, regime: Regime, draws: int, votes: int = 0) -> Bound:
    """The best fixed allocation's share of ``votes`` (default 13 per system pair) spread
    evenly, for ``draws`` draws of ``n`` systems of ``regime``."""
    kappa = measured_kappa(n, regime)
    votes = votes or 13 * n * (n - 1) // 2
    ratios = []
    for draw in range(draws):
        rng = np.random.default_rng([draw, n])
        design = Design(kappa * regime.systems(n, rng).strengths)
        even = np.full(len(design.first), votes / len(design.first))
        ratios.append(design.votes_to_match(design.discordance(even)[0], votes) / votes)
    return Bound(kappa, votes, np.array(ratios))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", default="20")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--votes", type=int, default=0, help="default: 13 per system pair")
    add_argument(parser)
    args = parser.parse_args(argv)
    for n in (int(x) for x in args.systems.split(",")):
        bound = design_bound(n, REGIMES[args.regime], args.draws, args.votes)
        r = bound.ratios
        print(
            f"{n} systems ({args.regime}), kappa {bound.kappa:.2f}, {bound.votes} votes spread "
            f"evenly: the best allocation does as well with {r.mean():.2f}x of them (range "
            f"{r.min():.2f}-{r.max():.2f}, {args.draws} draws)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
