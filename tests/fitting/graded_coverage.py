"""Coverage of the graded interval in simulation: runs with known true scores.

The true score is the one docs/graded.md defines: the expected score over the task
population of each category. A simulated run draws a fresh suite of tasks from
those populations (6 tasks in each of 4 categories, as the starter suite), so
the headline varies from suite to suite around the known truth, and counts how
often the 95% interval holds it.

A category's population: a task passes with probability ``p`` (the category's
true score); one task in five is a ``json_fields``-like task whose credit is
Binomial(4, p) / 4 instead (same mean, partial credit). With unequal weights,
each task's weight is 1, 2 or 3 (equally likely) and heavier tasks are harder:
``p(w) = p + 0.1 (2 - w)``, so weight and credit are correlated and the weighted
truth ``E[w credit] / E[w]`` differs from the unweighted one.

Reproduce the figures of docs/graded.md with::

    .venv/bin/python -m tests.fitting.graded_coverage --runs 1000
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from fitting.bootstrap import bootstrap_macro_score

# True category scores (mean task credit) of the simulated runs.
SCENARIOS = {
    "mid-table": (0.35, 0.5, 0.65, 0.8),
    "spread": (0.2, 0.4, 0.6, 0.8),
    "weak": (0.1, 0.2, 0.15, 0.3),
    "near the ceiling": (0.85, 0.9, 0.9, 0.95),
}
TASKS_PER_CATEGORY = 6
PARTIAL_SHARE = 0.2
WEIGHTS = np.array([1.0, 2.0, 3.0])


def _pass_probability(p: float, weight: np.ndarray) -> np.ndarray:
    return np.clip(p + 0.1 * (2.0 - weight), 0.0, 1.0)


def true_score(scores: tuple[float, ...], weighted: bool) -> float:
    """The expected headline over the task populations."""
    if not weighted:
        return float(np.mean(scores))
    per_category = [
        float(np.dot(WEIGHTS, _pass_probability(p, WEIGHTS)) / WEIGHTS.sum()) for p in scores
    ]
    return float(np.mean(per_category))


def draw_suite(
    rng: np.random.Generator, scores: tuple[float, ...], weighted: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Credits, weights and categories of one run over a freshly drawn suite."""
    n = TASKS_PER_CATEGORY
    credits, weights = [], []
    for p in scores:
        w = rng.choice(WEIGHTS, size=n) if weighted else np.ones(n)
        chance = _pass_probability(p, w) if weighted else np.full(n, p)
        binary = (rng.random(n) < chance).astype(float)
        partial = rng.binomial(4, chance) / 4.0
        credits.append(np.where(rng.random(n) < PARTIAL_SHARE, partial, binary))
        weights.append(w)
    category = np.repeat(np.arange(len(scores)), n)
    return np.concatenate(credits), np.concatenate(weights), category


@dataclass(frozen=True)
class Coverage:
    runs: int
    covered: int
    mean_width: float

    @property
    def share(self) -> float:
        return self.covered / self.runs


def coverage(
    scores: tuple[float, ...],
    *,
    weighted: bool,
    runs: int,
    seed: int,
    interval: str = "smoothed_t",
    n_resamples: int = 9999,
) -> Coverage:
    """How many of ``runs`` simulated runs' 95% intervals hold the true score."""
    # The suites drawn depend on ``seed`` alone (not on the interval or the resamples);
    # each run's bootstrap gets its own integer seed, as a round records one.
    rng = np.random.default_rng(seed)
    truth = true_score(scores, weighted)
    covered, width = 0, 0.0
    for run in range(runs):
        credit, weight, category = draw_suite(rng, scores, weighted)
        result = bootstrap_macro_score(
            credit,
            category,
            weight=weight,
            rng=run,
            interval=interval,  # type: ignore[arg-type]
            n_resamples=n_resamples,
        )
        ci = result.confidence_interval
        covered += ci.low <= truth <= ci.high
        width += ci.high - ci.low
    return Coverage(runs, covered, width / runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--resamples", type=int, default=9999)
    args = parser.parse_args()
    print(f"{args.runs} runs per line, {args.resamples} resamples, seed {args.seed}")
    print("scenario           weights   percentile        smoothed_t")
    for name, scores in SCENARIOS.items():
        for weighted in (False, True):
            found = [
                coverage(
                    scores,
                    weighted=weighted,
                    runs=args.runs,
                    seed=args.seed,
                    interval=interval,
                    n_resamples=args.resamples,
                )
                for interval in ("percentile", "smoothed_t")
            ]
            cells = "  ".join(f"{100 * c.share:5.1f}% (w {c.mean_width:.3f})" for c in found)
            print(f"{name:18} {'unequal' if weighted else 'equal':9} {cells}", flush=True)


if __name__ == "__main__":
    main()
