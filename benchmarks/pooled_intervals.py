"""Would a pooled board's 95% intervals cover? Two bootstraps measured in simulation.

A pooled round (`arena round close --with-judges`) fits the rater's votes with judges'
verdicts. Two ways to resample it were tried, both with ``fitting.bootstrap_points`` (200
resamples, Student t, penalty 0.01, as a rater's board):

- ``judge clusters``: the rater's cases, each bringing her votes on it, and each judge as
  one cluster bringing all its verdicts, drawn together with replacement;
- ``cases``: the cases alone, each bringing the rater's vote and every judge's verdict on it.

Each simulated round: 5 systems of strengths 0, -0.25, -0.5, -0.75, -1 logits; 300 cases,
each with one system pair (random sides) that the rater and every judge answer once, by the
Bradley–Terry model; a judge's strengths are the true ones plus its own normal deviation of
SD ``tau`` per system. An interval covers when it holds the true strengths' points (judges
vary around them: the pooled board estimates the strengths of judges like these). The share
of the 4 non-anchor intervals that cover, over all simulations, is printed for each setting.

    .venv/bin/python benchmarks/pooled_intervals.py            # 500 simulations a setting
    .venv/bin/python benchmarks/pooled_intervals.py --sims 100
"""

from __future__ import annotations

import argparse

import numpy as np

from fitting import POINTS_PER_LOGIT, bootstrap_points

THETA = np.array([0.0, -0.25, -0.5, -0.75, -1.0])
PAIRS = [(i, j) for i in range(len(THETA)) for j in range(i + 1, len(THETA))]
CASES = 300
SETTINGS = ((2, 0.0), (2, 0.1), (2, 0.2), (2, 0.3), (5, 0.3), (1, 0.0), (1, 0.3))


def simulate(rng: np.random.Generator, judges: int, tau: float) -> tuple[np.ndarray, ...]:
    """One pooled round: (a, b, y, case, source) with source 0 the rater, 1.. the judges."""
    strengths = [THETA] + [THETA + rng.normal(0.0, tau, THETA.size) for _ in range(judges)]
    pair = rng.integers(len(PAIRS), size=CASES)
    swap = rng.random(CASES) < 0.5
    first = np.array([PAIRS[p][0] for p in pair])
    second = np.array([PAIRS[p][1] for p in pair])
    a, b = np.where(swap, second, first), np.where(swap, first, second)
    rows = []
    for source, s in enumerate(strengths):
        p = 1.0 / (1.0 + np.exp(-(s[a] - s[b])))
        rows.append((a, b, (rng.random(CASES) < p).astype(float), np.arange(CASES), source))
    return tuple(np.concatenate([np.broadcast_to(r[k], (CASES,)) for r in rows]) for k in range(5))


def coverage(scheme: str, judges: int, tau: float, sims: int, seed: int) -> tuple[float, float]:
    """Share of intervals holding the truth, and their median width in points."""
    rng = np.random.default_rng(seed)
    truth = 1000.0 + POINTS_PER_LOGIT * (THETA - THETA[0])
    held, widths = [], []
    for _ in range(sims):
        a, b, y, case, source = simulate(rng, judges, tau)
        cluster = case if scheme == "cases" else np.where(source == 0, case, CASES + source)
        found = bootstrap_points(
            a, b, y, cluster=cluster.astype(np.int64), n_systems=THETA.size, rng=rng, anchor=0
        )
        low, high = found.low[1:], found.high[1:]
        held.append((low <= truth[1:]) & (truth[1:] <= high))
        widths.append(high - low)
    return float(np.mean(held)), float(np.median(widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=500, help="simulations a setting (500)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("| judges | tau | judge clusters: coverage (median width) | cases: coverage (width) |")
    print("|---|---|---|---|")
    for judges, tau in SETTINGS:
        found = [coverage(s, judges, tau, args.sims, args.seed) for s in ("judges", "cases")]
        print(
            f"| {judges} | {tau} | "
            + " | ".join(f"{100 * c:.1f}% ({w:.0f})" for c, w in found)
            + " |",
            flush=True,
        )


if __name__ == "__main__":
    main()
