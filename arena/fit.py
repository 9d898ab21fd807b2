"""The one door from the app to ``fitting/``: the numerics Arena uses, by name.

``fitting`` is pure numpy/scipy and knows nothing of ledgers or rounds. Everything in
``arena`` that fits points, measures the rater or bootstraps a score goes through this
module, so what the app relies on is one short list (an import-linter contract keeps it so).
"""

from __future__ import annotations

from collections.abc import Sequence

from fitting import (
    DEFAULT_PENALTY,
    DEFAULT_THRESHOLD,
    bootstrap_macro_score,
    fit_points,
    length_bias,
    rater_agreement,
    split_half_tau,
)

__all__ = [
    "DEFAULT_PENALTY",
    "DEFAULT_THRESHOLD",
    "fit_points",
    "length_bias",
    "macro_interval",
    "rater_agreement",
    "split_half_tau",
]


def macro_interval(
    credits: Sequence[float], categories: Sequence[str], *, seed: int
) -> tuple[float, float]:
    """The seeded 95% percentile bootstrap interval of a graded run's headline."""
    result = bootstrap_macro_score(credits, categories, rng=seed)
    return result.confidence_interval.low, result.confidence_interval.high
