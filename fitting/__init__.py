"""Arena's numerics: point scores and round-summary diagnostics.

A small library: numpy and SciPy only, arrays in and result dataclasses out.
It never imports from ``arena``.
"""

from .agreement import AgreementResult, rater_agreement
from .bootstrap import ConfidenceInterval, MacroScoreResult, bootstrap_macro_score
from .length_bias import LengthBiasResult, length_bias
from .points import (
    DEFAULT_PENALTY,
    DEFAULT_THRESHOLD,
    POINTS_PER_LOGIT,
    PointsResult,
    fit_points,
)
from .split_half import SplitHalfResult, split_half_tau

__all__ = [
    "DEFAULT_PENALTY",
    "DEFAULT_THRESHOLD",
    "POINTS_PER_LOGIT",
    "AgreementResult",
    "ConfidenceInterval",
    "LengthBiasResult",
    "MacroScoreResult",
    "PointsResult",
    "SplitHalfResult",
    "bootstrap_macro_score",
    "fit_points",
    "length_bias",
    "rater_agreement",
    "split_half_tau",
]
