"""The round summary: how far the rater's votes can be trusted, each figure with its
uncertainty (rater agreement, split-half τ of both kinds, the side preference, length
bias), the votes left out of the fit and how much was settled without a vote."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from arena import fit
from arena.pairs.settling import RULE_GROUPS
from arena.records import SystemId
from arena.rounds.comparison_table import Comparisons
from arena.rounds.model import RoundSettings, RoundSummary
from arena.rounds.round_records import RaterFigures, Settled, SplitHalves
from arena.rounds.scoring import sides
from arena.rounds.split_halves import SplitFigure, split_figure, vote_halves
from arena.rounds.uncertainty import case_clusters
from arena.texts import counted


def _number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _agreement(comparisons: Comparisons, actor: int | None = None) -> fit.AgreementResult:
    """Rater agreement over the repeats whose first vote is in force and was cast by the
    same rater (by ``actor`` alone, when given): a repeat of another rater's vote says
    nothing of one's own consistency."""
    repeated = comparisons.mask("status", "repeat")
    if actor is not None:
        repeated &= comparisons["actor"].codes == actor
    repeats = np.flatnonzero(repeated)
    targets = comparisons.values("repeat_of", repeats)
    actors = comparisons["actor"].codes
    votes = np.flatnonzero(comparisons.votes)
    # The newest vote of an id wins, should a bundle list one twice. Only the votes
    # repeated are kept: a dictionary of a million votes costs more than the look-ups.
    wanted = set(targets)
    by_vote = {
        vote_id: row
        for vote_id, row in zip(comparisons.values("vote_id", votes), votes.tolist(), strict=True)
        if vote_id in wanted
    }
    pairs = [
        (by_vote[target], row)
        for target, row in zip(targets, repeats.tolist(), strict=True)
        if target in by_vote and actors[by_vote[target]] == actors[row]
    ]
    first, again = (
        (np.array(rows, dtype=np.intp) for rows in zip(*pairs, strict=True))
        if pairs
        else (np.array([], np.intp),) * 2
    )
    return fit.rater_agreement(
        [str(c) for c in comparisons.values("choice", first)],
        [str(c) for c in comparisons.values("choice", again)],
        swapped=True,
    )


def _left_out(comparisons: Comparisons) -> dict[str, int]:
    """Votes left out of the fit, counted by reason (in the order the reasons first occur);
    a pooled round's judges count theirs in its settings (``with_judges``)."""
    reasons = comparisons["reason"]
    rows = comparisons.mask("status", "left_out") & comparisons.votes & ~reasons.isin(None, "")
    codes, first, counts = np.unique(reasons.codes[rows], return_index=True, return_counts=True)
    return {
        reasons.values[code]: int(count)
        for _, code, count in sorted(
            zip(first.tolist(), codes.tolist(), counts.tolist(), strict=True)
        )
    }


# Fewest repeats for rater agreement, and fewest human votes in each half (with three
# systems ranked in both) for split-half τ: below them the figure is not reported
# (docs/fitting.md, "When a figure cannot be told").
# Fewest repeats for rater agreement: below it the figure is not reported (docs/fitting.md,
# "When a figure cannot be told").
MIN_REPEATS = 10
LENGTH_REASONS = {
    "no_length_spread": "the outputs voted on never differ in length",
    "too_few_comparisons": "{n} votes on outputs of different lengths; it needs {m}",
    "separable": "every vote went to the longer output, or every one to the shorter: "
    "the lean has no finite estimate",
    "not_converged": "the fit did not converge",
}
# The random streams of the split-half intervals under the round's seed (the board's
# intervals use 0 and one per category: arena.rounds.uncertainty.stream).
SESSIONS_STREAM, WITHIN_STREAM = 0x5E55, 0x7713


@dataclass(frozen=True)
class _Figures:
    """The figures worked out on one set of votes (all the fit's, or one rater's)."""

    agreement: fit.AgreementResult
    agreed_share: float | None
    agreed_ci: list[float] | None
    between: SplitFigure | None
    within: SplitFigure | None
    bias: float | None
    error: float | None
    left: int
    decisive: int
    unavailable: dict[str, str]


def _figures(
    comparisons: Comparisons,
    weights: np.ndarray,
    index: dict[SystemId, int],
    rows: np.ndarray,
    *,
    reference: SystemId | None,
    settings: RoundSettings,
    bias_key: str,
    actor: int | None = None,
) -> _Figures:
    """Agreement, split-half τ, length bias and side preference over the votes in ``rows``
    (the repeats of ``actor`` alone, when given)."""
    agreement = _agreement(comparisons, actor)
    unavailable: dict[str, str] = {}
    agreed_share: float | None = _number(agreement.share)
    agreed_ci: list[float] | None = [agreement.low, agreement.high]
    if agreement.count < MIN_REPEATS:
        unavailable["rater_agreement"] = (
            f"{counted(agreement.count, 'repeat')} "
            f"({agreement.agreed} agreed); it needs {MIN_REPEATS}"
        )
        agreed_share = agreed_ci = None
    human = np.flatnonzero(rows & (weights > 0))
    a, b = (side[human] for side in sides(comparisons, index))
    y, w = comparisons["y"][human], weights[human]
    between = within = None
    bias = error = None
    if len(human):
        session = comparisons["session"].map(lambda s: s or 1, np.int64)[human]
        if actor is not None:  # one rater's halves: the parity of their own sessions
            session = np.unique(session, return_inverse=True)[1] + 1
        split = functools.partial(
            split_figure,
            a,
            b,
            y,
            w,
            cluster=case_clusters(comparisons)[human],
            index=index,
            reference=reference,
            penalty=settings.penalty,
        )
        between = split(
            halves=session,
            rng=np.random.default_rng([settings.seed, SESSIONS_STREAM]),
            named="{odd} votes in odd and {even} in even sessions",
        )
        within = split(
            halves=vote_halves(session),
            rng=np.random.default_rng([settings.seed, WITHIN_STREAM]),
            named="{odd} odd- and {even} even-numbered votes",
        )
        for key, found in (("split_half_tau", between), ("within_session_tau", within)):
            if found.why:
                unavailable[key] = found.why
        length = fit.length_bias(
            a,
            b,
            y,
            comparisons["len_a"][human],
            comparisons["len_b"][human],
            w,
            n_systems=len(index),
            penalty=settings.penalty,
        )
        if length.identified:
            bias, error = _number(length.points_per_sd), _number(length.standard_error)
        else:
            spread = int(
                np.count_nonzero(comparisons["len_a"][human] != comparisons["len_b"][human])
            )
            unavailable[bias_key] = LENGTH_REASONS[str(length.reason)].format(
                n=spread, m=fit.MIN_LENGTH_COMPARISONS
            )
    else:
        unavailable["split_half_tau"] = unavailable[bias_key] = "no human votes in the fit"
        unavailable["within_session_tau"] = "no human votes in the fit"
    left, decisive = _sides_chosen(comparisons, human)
    if not decisive:
        unavailable["left_share"] = "no decisive votes in the fit"
    return _Figures(
        agreement,
        agreed_share,
        agreed_ci,
        between,
        within,
        bias,
        error,
        left,
        decisive,
        unavailable,
    )


def summary(
    comparisons: Comparisons,
    weights: np.ndarray,
    systems: Sequence[SystemId],
    *,
    reference: SystemId | None,
    settings: RoundSettings,
    diff_family: bool,
    raters: bool = False,
) -> RoundSummary:
    """The round summary: agreement, split-half τ, side preference and length bias, each
    with its uncertainty (None where n/a, or where the votes cannot tell: ``unavailable``
    then says why). Where the fit holds the votes of two raters or more (or ``raters``),
    each rater's own figures too."""
    index = {s: i for i, s in enumerate(systems)}
    bias_key = "diff_length_bias_points_per_sd" if diff_family else "length_bias_points_per_sd"
    figures = functools.partial(
        _figures,
        comparisons,
        weights,
        index,
        reference=reference,
        settings=settings,
        bias_key=bias_key,
    )
    found = figures(comparisons.votes)
    between = found.between
    halves = (
        SplitHalves(between.points["odd"], between.points["even"]) if between else SplitHalves()
    )
    left, decisive = found.left, found.decisive
    left_ci = fit.proportion_interval(left, decisive)
    return RoundSummary(
        rater_agreement=found.agreed_share,
        rater_agreement_ci95=found.agreed_ci,
        repeats=found.agreement.count,
        split_half_tau=between.tau if between else None,
        split_half_tau_ci95=between.ci95 if between else None,
        split_half_tau_null_p=between.null_p if between else None,
        split_half_points=halves,
        within_session_tau=found.within.tau if found.within else None,
        within_session_tau_ci95=found.within.ci95 if found.within else None,
        within_session_tau_null_p=found.within.null_p if found.within else None,
        left_share=left / decisive if decisive else None,
        left_share_ci95=list(left_ci) if decisive else None,
        decisive_votes=decisive,
        left_out=_left_out(comparisons),
        length_bias_points_per_sd=None if diff_family else found.bias,
        diff_length_bias_points_per_sd=found.bias if diff_family else None,
        length_bias_standard_error=found.error,
        unavailable=found.unavailable,
        settled=settled_summary(comparisons, weights),
        raters=rater_figures(comparisons, weights, figures, diff_family, every=raters),
    )


def rater_figures(
    comparisons: Comparisons,
    weights: np.ndarray,
    figures: Callable[..., _Figures],
    diff_family: bool,
    *,
    every: bool = False,
) -> list[RaterFigures] | None:
    """Each rater's votes in the fit, their weight and their own figures, in the order of
    their first vote; None where the fit holds one rater's votes (unless ``every``)."""
    fitted = comparisons.votes & (weights > 0)
    actor = comparisons["actor"]
    codes, first = np.unique(actor.codes[fitted], return_index=True)
    if len(codes) < 2 and not every:
        return None
    found = []
    for code in codes[np.argsort(first)].tolist():
        mine = comparisons.votes & (actor.codes == code)
        own = figures(mine, actor=code)
        split = own.between
        left_ci = fit.proportion_interval(own.left, own.decisive)
        found.append(
            RaterFigures(
                rater=str(actor.values[code]),
                votes=int(np.count_nonzero(mine & fitted)),
                weight=float(np.sum(weights[mine & fitted])),
                repeats=own.agreement.count,
                rater_agreement=own.agreed_share,
                rater_agreement_ci95=own.agreed_ci,
                split_half_tau=split.tau if split else None,
                split_half_tau_ci95=split.ci95 if split else None,
                left_share=own.left / own.decisive if own.decisive else None,
                left_share_ci95=list(left_ci) if own.decisive else None,
                decisive_votes=own.decisive,
                length_bias_points_per_sd=None if diff_family else own.bias,
                diff_length_bias_points_per_sd=own.bias if diff_family else None,
                length_bias_standard_error=own.error,
                unavailable=own.unavailable,
            )
        )
    return found


def _sides_chosen(comparisons: Comparisons, rows: np.ndarray) -> tuple[int, int]:
    """How many of the votes at ``rows`` chose the left side, of those that chose a side."""
    chosen = np.array(comparisons.values("choice", rows), dtype=object)
    left = int(np.count_nonzero(chosen == "left"))
    return left, left + int(np.count_nonzero(chosen == "right"))


def settled_summary(comparisons: Comparisons, weights: np.ndarray) -> Settled:
    """How much of the fit was decided without a vote (``Settled``)."""
    by_rule = dict.fromkeys(("gate", "identical", "tests", "overruled"), 0)
    rows = np.flatnonzero(comparisons.mask("source", "settled") & (weights > 0))
    groups = comparisons["rule"].map(lambda rule: RULE_GROUPS.get(str(rule), ""), object)
    for overruled, group in zip(
        comparisons["overruled"][rows].tolist(), groups[rows].tolist(), strict=True
    ):
        by_rule["overruled" if overruled else group] += 1
    settled_weight = 0.0
    # Added one by one, in order: the share is the same to the last digit in every round.
    for w in weights[rows].tolist():
        settled_weight += w
    total = float(np.sum(weights))
    return Settled(by_rule, settled_weight / total if total > 0 else None)
