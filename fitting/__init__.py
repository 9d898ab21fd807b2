"""Arena's numerics: point scores and round-summary diagnostics.

A small library: numpy and SciPy only, arrays in and result dataclasses out.
It never imports from ``arena``.

Each name is loaded from its module when first used (PEP 562), so reading the
defaults does not load numpy and SciPy (a second of a window's start).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .defaults import (
    DEFAULT_PENALTY,
    DEFAULT_THRESHOLD,
    MIN_LENGTH_COMPARISONS,
    POINTS_PER_LOGIT,
)

if TYPE_CHECKING:
    from .agreement import AgreementResult, rater_agreement
    from .bootstrap import ConfidenceInterval, MacroScoreResult, bootstrap_macro_score
    from .judge_agreement import (
        Estimate,
        PairAgreement,
        PositionResult,
        krippendorff_alpha,
        pair_agreement,
        position_bias,
    )
    from .judge_board import CaseComparisons, board_tau, board_taus, length_bias_interval
    from .length_bias import LengthBiasResult, length_bias
    from .points import PointsResult, fit_points
    from .points_interval import PointsInterval, bootstrap_points
    from .prediction_powered import PredictionPoweredResult, fit_prediction_powered
    from .proportion import proportion_interval
    from .split_half import SplitHalfResult, split_half_interval, split_half_tau

# Where each name that needs numpy is defined.
_MODULES = {
    "AgreementResult": "agreement",
    "rater_agreement": "agreement",
    "ConfidenceInterval": "bootstrap",
    "MacroScoreResult": "bootstrap",
    "bootstrap_macro_score": "bootstrap",
    "Estimate": "judge_agreement",
    "PairAgreement": "judge_agreement",
    "PositionResult": "judge_agreement",
    "krippendorff_alpha": "judge_agreement",
    "pair_agreement": "judge_agreement",
    "position_bias": "judge_agreement",
    "CaseComparisons": "judge_board",
    "board_tau": "judge_board",
    "board_taus": "judge_board",
    "length_bias_interval": "judge_board",
    "LengthBiasResult": "length_bias",
    "length_bias": "length_bias",
    "PointsResult": "points",
    "fit_points": "points",
    "PointsInterval": "points_interval",
    "bootstrap_points": "points_interval",
    "PredictionPoweredResult": "prediction_powered",
    "fit_prediction_powered": "prediction_powered",
    "proportion_interval": "proportion",
    "SplitHalfResult": "split_half",
    "split_half_interval": "split_half",
    "split_half_tau": "split_half",
}

__all__ = [
    "DEFAULT_PENALTY",
    "DEFAULT_THRESHOLD",
    "MIN_LENGTH_COMPARISONS",
    "POINTS_PER_LOGIT",
    "AgreementResult",
    "CaseComparisons",
    "ConfidenceInterval",
    "Estimate",
    "LengthBiasResult",
    "MacroScoreResult",
    "PairAgreement",
    "PointsInterval",
    "PointsResult",
    "PositionResult",
    "PredictionPoweredResult",
    "SplitHalfResult",
    "board_tau",
    "board_taus",
    "bootstrap_macro_score",
    "bootstrap_points",
    "fit_points",
    "fit_prediction_powered",
    "krippendorff_alpha",
    "length_bias",
    "length_bias_interval",
    "pair_agreement",
    "position_bias",
    "proportion_interval",
    "rater_agreement",
    "split_half_interval",
    "split_half_tau",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
