"""Do a pooled board's 95% intervals cover? Two bootstraps against two targets, in simulation.

A pooled round (`arena round close --with-judges`) fits the rater's votes with judges'
verdicts. Two ways to resample it, both through ``fitting.bootstrap_points`` (200
resamples, Student t, penalty 0.01, as a rater's board):

- ``cases`` (what Arena does): the cases, each bringing the rater's votes on it and every
  judge's verdicts on it;
- ``judge clusters``: the rater's cases, each bringing her votes, and each judge as one
  cluster bringing all its verdicts, drawn together with replacement.

And two targets:

- ``these judges``: the points the pooled fit gives with every compared pair's outcome at
  its expected value over the population of cases (the same design, judges and weights):
  what a rater's own interval covers (docs/fitting.md), with these judges beside her;
- ``judges like these``: the same with each judge's own stray averaged out (every source
  judging by the true strengths): a population of judges, of which these are a draw.

Each simulated round: ``systems`` strengths evenly from 0 to -1.2 logits; ``cases`` cases,
each with its own effect on every system (normal, SD 0.3, shared by everyone who judges
that case) and 10% ties. The rater votes once a case, on a random pair (random sides); each
of ``judges`` judges answers the same pair, judging by the true strengths plus its own
normal stray of SD ``tau`` per system; an ``llm`` judge (optional, its own stray too)
answers two random pairs a case in both orders, four verdicts a case, so its verdicts are
capped to the rater's weight (0.25 each). Each row prints the share of the non-anchor
intervals holding each target.

    .venv/bin/python benchmarks/pooled_intervals.py            # 500 rounds a row (~2 minutes)
    .venv/bin/python benchmarks/pooled_intervals.py --sims 100
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.special import expit

from fitting import bootstrap_points, fit_points

CASE_SD = 0.3
TIES = 0.1
NODES, MASSES = hermegauss(41)
MASSES = MASSES / MASSES.sum()


class Setting(NamedTuple):
    systems: int
    cases: int
    judges: int
    tau: float
    llm: bool


SETTINGS = (
    Setting(3, 60, 1, 0.3, False),
    Setting(3, 300, 2, 0.6, False),
    Setting(5, 300, 2, 0.0, False),
    Setting(5, 300, 2, 0.3, False),
    Setting(5, 300, 2, 0.0, True),
    Setting(5, 300, 0, 0.3, True),
    Setting(8, 120, 2, 0.3, True),
    Setting(20, 600, 5, 0.3, False),
)


class Round(NamedTuple):
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    w: np.ndarray
    case: np.ndarray
    source: np.ndarray  # 0 the rater, 1.. the judges
    expected: np.ndarray  # each comparison's expected outcome over cases: these judges
    unstrayed: np.ndarray  # the same, judged by the true strengths: judges like these


def _over_cases(d: np.ndarray) -> np.ndarray:
    """E[y] of a comparison of strength difference ``d`` over the cases' effects and ties."""
    effect = NODES * np.sqrt(2.0) * CASE_SD  # the difference of two cases' effects
    return TIES * 0.5 + (1 - TIES) * (expit(d[:, None] + effect[None, :]) @ MASSES)


def simulate(rng: np.random.Generator, s: Setting) -> Round:
    theta = np.linspace(0.0, -1.2, s.systems)
    pairs = np.array([(i, j) for i in range(s.systems) for j in range(i + 1, s.systems)])
    effects = rng.normal(0.0, CASE_SD, (s.cases, s.systems))
    cases = np.arange(s.cases)
    rater_pairs = pairs[rng.integers(len(pairs), size=s.cases)]
    # (strengths, its pairs a case, both orders?, weight)
    sources = [(theta, [rater_pairs], False, 1.0)]
    for _ in range(s.judges):
        sources.append((theta + rng.normal(0.0, s.tau, s.systems), [rater_pairs], False, 1.0))
    if s.llm:
        drawn = [pairs[rng.integers(len(pairs), size=s.cases)] for _ in range(2)]
        sources.append((theta + rng.normal(0.0, s.tau, s.systems), drawn, True, 0.25))
    parts: list[tuple[np.ndarray, ...]] = []
    for number, (strengths, picks, both, weight) in enumerate(sources):
        for pick in picks:
            swap = rng.random(s.cases) < 0.5
            first = np.where(swap, pick[:, 1], pick[:, 0])
            second = np.where(swap, pick[:, 0], pick[:, 1])
            for a, b in [(first, second), (second, first)] if both else [(first, second)]:
                p = expit(strengths[a] - strengths[b] + effects[cases, a] - effects[cases, b])
                tie = rng.random(s.cases) < TIES
                y = np.where(tie, 0.5, (rng.random(s.cases) < p).astype(float))
                parts.append(
                    (
                        a,
                        b,
                        y,
                        np.full(s.cases, weight),
                        cases,
                        np.full(s.cases, number),
                        _over_cases(strengths[a] - strengths[b]),
                        _over_cases(theta[a] - theta[b]),
                    )
                )
    return Round(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def _target(r: Round, outcome: np.ndarray, systems: int) -> np.ndarray:
    """The penalized fit with each comparison's outcome at its expected value."""
    ones = np.ones_like(outcome)
    return fit_points(
        np.r_[r.a, r.a],
        np.r_[r.b, r.b],
        np.r_[ones, 0 * ones],
        np.r_[r.w * outcome, r.w * (1 - outcome)],
        n_systems=systems,
        anchor=0,
    ).points


def coverage(s: Setting, sims: int, seed: int) -> dict[tuple[str, str], float]:
    rng = np.random.default_rng(seed)
    held: dict[tuple[str, str], list[np.ndarray]] = {}
    for _ in range(sims):
        r = simulate(rng, s)
        targets = {
            "these judges": _target(r, r.expected, s.systems),
            "judges like these": _target(r, r.unstrayed, s.systems),
        }
        for scheme in ("cases", "judge clusters"):
            cluster = (
                r.case if scheme == "cases" else np.where(r.source == 0, r.case, s.cases + r.source)
            )
            found = bootstrap_points(
                r.a, r.b, r.y, r.w, cluster=cluster, n_systems=s.systems, rng=rng, anchor=0
            )
            for name, target in targets.items():
                inside = (found.low[1:] <= target[1:]) & (target[1:] <= found.high[1:])
                held.setdefault((scheme, name), []).append(inside)
    return {key: float(np.mean(np.concatenate(found))) for key, found in held.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=500, help="rounds a row (500)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    columns = [
        ("cases", "these judges"),
        ("cases", "judges like these"),
        ("judge clusters", "these judges"),
        ("judge clusters", "judges like these"),
    ]
    print("| systems | cases | judges | τ | " + " | ".join(f"{a}: {b}" for a, b in columns) + " |")
    print("|---|---|---|---|" + "---|" * len(columns))
    for s in SETTINGS:
        found = coverage(s, args.sims, args.seed)
        judges = f"{s.judges}" + (" + LLM (capped)" if s.llm else "")
        print(
            f"| {s.systems} | {s.cases} | {judges} | {s.tau} | "
            + " | ".join(f"{100 * found[c]:.1f}%" for c in columns)
            + " |",
            flush=True,
        )


if __name__ == "__main__":
    main()
