"""The one door from the app to ``fitting/``: the numerics Arena uses, by name.

``fitting`` is pure numpy/scipy and knows nothing of ledgers or rounds. Everything in
``arena`` that fits points, measures the rater or bootstraps a score goes through this
module, so what the app relies on is one short list (an import-linter contract keeps it so).

The functions are loaded when first used: reading the defaults (a round's settings, the
window's board) does not load numpy and SciPy.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from fitting import DEFAULT_PENALTY, DEFAULT_THRESHOLD, MIN_LENGTH_COMPARISONS

# Raised when the same comparisons fit to another board, so a round closed on unchanged
# rows is worked out again rather than restated (arena.rounds.closing). 2: without a
# penalty, a reference that cannot be ranked gives way to the most-voted rankable system.
FIT_VERSION = 2

if TYPE_CHECKING:
    from fitting import (
        AgreementResult,
        CaseComparisons,
        Estimate,
        PointsResult,
        board_tau,
        board_taus,
        bootstrap_points,
        fit_points,
        fit_prediction_powered,
        information,
        krippendorff_alpha,
        length_bias,
        length_bias_interval,
        pair_agreement,
        position_bias,
        proportion_interval,
        rater_agreement,
        simulate,
        split_half_interval,
        split_half_tau,
    )

__all__ = [
    "AgreementResult",
    "CaseComparisons",
    "DEFAULT_PENALTY",
    "DEFAULT_THRESHOLD",
    "MIN_LENGTH_COMPARISONS",
    "Estimate",
    "PointsResult",
    "board_tau",
    "board_taus",
    "bootstrap_points",
    "fit_points",
    "fit_prediction_powered",
    "information",
    "krippendorff_alpha",
    "length_bias",
    "length_bias_interval",
    "macro_interval",
    "pair_agreement",
    "position_bias",
    "proportion_interval",
    "rater_agreement",
    "simulate",
    "split_half_interval",
    "split_half_tau",
]


def __getattr__(name: str) -> Any:
    # Only a name not yet loaded gets here: Arena's own names are always found first.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import fitting

    # The simulator and the scheduler's model are modules of their own.
    value = (
        importlib.import_module(f"fitting.{name}")
        if name in ("simulate", "information")
        else getattr(fitting, name)
    )
    globals()[name] = value
    return value


def macro_interval(
    credits: Sequence[float],
    categories: Sequence[str],
    *,
    seed: int,
    weights: Sequence[float] | None = None,
    method: Literal["percentile", "smoothed_t"] = "smoothed_t",
) -> tuple[float, float]:
    """The seeded 95% interval of a graded run's headline: a stratified bootstrap (tasks
    resampled within their categories, each with its weight), by default smoothed,
    rescaled and t-calibrated for suites of a few tasks per category
    (``method="smoothed_t"``; docs/graded.md), or the plain percentile interval that
    rounds closed before recorded (``method="percentile"``)."""
    from fitting import bootstrap_macro_score

    result = bootstrap_macro_score(
        credits,
        categories,
        weight=weights,
        rng=seed,
        interval=method,
    )
    return result.confidence_interval.low, result.confidence_interval.high
