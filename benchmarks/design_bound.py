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
from pathlib import Path

import numpy as np
import scipy.optimize
import scipy.special

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scheduler_sim import count  # noqa: E402

from fitting import simulate as sim  # noqa: E402
from fitting.bradley_terry import PairwiseObjective, newton  # noqa: E402
from fitting.information import SCHEDULER_PENALTY  # noqa: E402


def measured_kappa(n: int, cases: int = 150, seed: int = 0) -> float:
    """The slope of the fitted strengths on the planted ones, every pair on every case."""
    rng = np.random.default_rng([seed, n])
    systems = sim.draw_systems(n, rng=rng)
    family = sim.draw_family(systems, cases, rng=rng)
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

    def discordance(self, w: np.ndarray) -> float:
        info = (self.d.T * (w * self.h)) @ self.d + SCHEDULER_PENALTY * np.eye(self.n)
        cov = np.linalg.inv(info)
        f, s = self.first, self.second
        sd = np.sqrt(cov[f, f] + cov[s, s] - 2.0 * cov[f, s])
        return float(scipy.special.ndtr(-self.gap / sd).sum())

    def best(self, votes: float) -> float:
        """The least expected discordance of any allocation of ``votes`` votes."""
        pairs = len(self.first)
        starts = [np.zeros(pairs), -2.0 * self.gap / self.gap.std()]  # uniform; close first

        def objective(x: np.ndarray) -> float:
            return self.discordance(votes * scipy.special.softmax(x))

        return min(scipy.optimize.minimize(objective, x0, method="L-BFGS-B").fun for x0 in starts)

    def votes_to_match(self, target: float, votes: float) -> float:
        """The fewest votes (to 0.5%) with which the best allocation reaches ``target``."""
        low, high = 0.2 * votes, votes
        while high - low > 0.005 * votes:
            middle = (low + high) / 2
            low, high = (low, middle) if self.best(middle) <= target else (middle, high)
        return high


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", default="20")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--votes", type=int, default=0, help="default: 13 per system pair")
    args = parser.parse_args(argv)
    for n in (int(x) for x in args.systems.split(",")):
        kappa = measured_kappa(n)
        votes = args.votes or 13 * n * (n - 1) // 2
        ratios = []
        for draw in range(args.draws):
            rng = np.random.default_rng([draw, n])
            design = Design(kappa * sim.draw_systems(n, rng=rng).strengths)
            uniform = design.discordance(np.full(len(design.first), votes / len(design.first)))
            ratios.append(design.votes_to_match(uniform, votes) / votes)
        r = np.array(ratios)
        print(
            f"{n} systems, kappa {kappa:.2f}, {votes} votes spread evenly: the best allocation "
            f"does as well with {r.mean():.2f}x of them (range {r.min():.2f}-{r.max():.2f}, "
            f"{args.draws} draws)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
