"""The kinds of board the pair-choice benchmarks run on (``--regime``).

- ``default``: true strengths N(0, 1) logits, each output's quality its system's plus
  N(0, 0.5);
- ``wide``: strengths N(0, 2), quality noise N(0, 0.2): a board with clear leaders;
- ``near-ties``: strengths N(0, 0.3), quality noise N(0, 0.5).

Everything else (case difficulty, ties, "both bad") is ``fitting.simulate``'s default.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fitting import simulate as sim  # noqa: E402


@dataclass(frozen=True)
class Regime:
    name: str
    spread: float  # standard deviation of the true strengths, logits
    quality_sd: float  # standard deviation of an output's quality around its system's

    def systems(self, n: int, rng: np.random.Generator, **traits: float) -> sim.SystemTraits:
        return sim.draw_systems(n, rng=rng, spread=self.spread, **traits)

    def family(
        self, systems: sim.SystemTraits, cases: int, rng: np.random.Generator, **traits: float
    ) -> sim.SimulatedFamily:
        return sim.draw_family(systems, cases, rng=rng, quality_sd=self.quality_sd, **traits)


REGIMES = {
    r.name: r
    for r in (Regime("default", 1.0, 0.5), Regime("wide", 2.0, 0.2), Regime("near-ties", 0.3, 0.5))
}


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--regime",
        choices=list(REGIMES),
        default="default",
        help="strengths and output noise of the simulated boards (benchmarks/regimes.py)",
    )
