"""Comparisons in, point scores and round-summary figures out.

It turns a family's comparisons (``arena.rounds.comparison_table.Comparisons``,
column by column) into the index arrays ``arena.fit`` takes, applies the round's weighting
policy, and turns the results back into plain values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena import fit
from arena.errors import BadInput
from arena.intake.battles import read_battles
from arena.pairs.settling import RULE_GROUPS
from arena.records import SystemId
from arena.rounds.comparison_table import Comparisons
from arena.rounds.model import RoundSettings, RoundSummary
from arena.rounds.within_session import within_session_tau


def fitted_weights(comparisons: Comparisons, settings: RoundSettings) -> np.ndarray:
    """The weight each comparison enters the fit with (0 when it is not fitted).

    ``ledger`` weighting scales each actor's whole-family contribution down to
    the cap, before any category or component is taken out of it.
    """
    weights = np.where(comparisons.mask("status", "fitted"), comparisons["weight"], 0.0)
    if settings.weighting == "ledger":
        assert settings.cap is not None  # set by RoundSettings
        actors = comparisons["actor"]
        totals = np.bincount(actors.codes, weights=weights, minlength=len(actors.values))
        scale = np.array([min(1.0, settings.cap / t) if t > 0 else 1.0 for t in totals.tolist()])
        weights = weights * scale[actors.codes]
    return weights


@dataclass(frozen=True)
class SystemScore:
    points: float | None
    rank: int | None
    status: str
    preliminary: bool
    decisive_votes: int


@dataclass(frozen=True)
class BoardFit:
    scores: dict[SystemId, SystemScore]
    anchor: SystemId | None
    anchor_reason: str
    mle_exists: bool
    iterations: int
    converged: bool


def sides(comparisons: Comparisons, index: dict[SystemId, int]) -> tuple[np.ndarray, ...]:
    """Each comparison's systems as positions in the board's list (-1: not on it)."""
    return tuple(
        comparisons[side].map(lambda s: index.get(s, -1), np.intp)
        for side in ("system_a", "system_b")
    )


def fit_board(
    comparisons: Comparisons,
    weights: np.ndarray,
    systems: Sequence[SystemId],
    *,
    reference: SystemId | None,
    settings: RoundSettings,
) -> BoardFit:
    """Points, ranks and marks of every system from the weighted comparisons."""
    index = {s: i for i, s in enumerate(systems)}
    live = weights > 0
    a, b = (side[live] for side in sides(comparisons, index))
    result = fit.fit_points(
        a,
        b,
        comparisons["y"][live],
        weights[live],
        n_systems=len(systems),
        penalty=settings.penalty,
        anchor=index.get(reference) if reference is not None else None,
        base=settings.base,
        decisive=comparisons.decisive[live],
        threshold=settings.threshold,
    )
    scores = {}
    for s, i in index.items():
        ranked = bool(result.ranked[i])
        scores[s] = SystemScore(
            points=float(result.points[i]) if ranked else None,
            rank=int(result.ranks[i]) if ranked else None,
            status=str(result.status[i]),
            preliminary=bool(result.preliminary[i]),
            decisive_votes=int(result.decisive_votes[i]),
        )
    anchor = systems[result.anchor] if result.anchor is not None else None
    return BoardFit(
        scores, anchor, result.anchor_reason, result.mle_exists, result.iterations, result.converged
    )


def _number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _agreement(comparisons: Comparisons) -> tuple[float | None, int, int]:
    """Rater agreement over the repeats whose first vote is in force, their number, and
    how many agreed."""
    repeats = np.flatnonzero(comparisons.mask("status", "repeat"))
    targets = comparisons.values("repeat_of", repeats)
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
        if target in by_vote
    ]
    if not pairs:
        return None, 0, 0
    first, again = (np.array(rows) for rows in zip(*pairs, strict=True))
    result = fit.rater_agreement(
        [str(c) for c in comparisons.values("choice", first)],
        [str(c) for c in comparisons.values("choice", again)],
        swapped=True,
    )
    return _number(result.share), len(pairs), result.agreed


def _left_out(comparisons: Comparisons) -> dict[str, int]:
    """Votes left out of the fit, counted by reason (in the order the reasons first occur)."""
    reasons = comparisons["reason"]
    rows = comparisons.mask("status", "left_out") & ~reasons.isin(None, "")
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
MIN_REPEATS = 10
MIN_HALF_VOTES = 20
LENGTH_REASONS = {
    "no_length_spread": "the outputs voted on never differ in length",
    "too_few_comparisons": "{n} votes on outputs of different lengths; it needs {m}",
    "separable": "every vote went to the longer output, or every one to the shorter: "
    "the lean has no finite estimate",
    "not_converged": "the fit did not converge",
}


def summary(
    comparisons: Comparisons,
    weights: np.ndarray,
    systems: Sequence[SystemId],
    *,
    reference: SystemId | None,
    settings: RoundSettings,
    diff_family: bool,
) -> RoundSummary:
    """The round summary: agreement, split-half τ and length bias (None where n/a, or where
    the votes cannot tell: ``unavailable`` then says why)."""
    index = {s: i for i, s in enumerate(systems)}
    agreement, repeats, agreed = _agreement(comparisons)
    unavailable: dict[str, str] = {}
    if repeats < MIN_REPEATS:
        unavailable["rater_agreement"] = (
            f"{repeats} repeat{'' if repeats == 1 else 's'} ({agreed} agreed); "
            f"it needs {MIN_REPEATS}"
        )
        agreement = None
    human = np.flatnonzero(comparisons.votes & (weights > 0))
    a, b = (side[human] for side in sides(comparisons, index))
    y, w = comparisons["y"][human], weights[human]
    tau = within_tau = None
    halves: dict[str, dict[str, float | None]] = {"odd": {}, "even": {}}
    bias = error = None
    bias_key = "diff_length_bias_points_per_sd" if diff_family else "length_bias_points_per_sd"
    if len(human):
        session = comparisons["session"].map(lambda s: s or 1, np.int64)[human]
        split = fit.split_half_tau(
            a,
            b,
            y,
            w,
            session=session,
            n_systems=len(systems),
            penalty=settings.penalty,
            anchor=index.get(reference) if reference is not None else None,
        )
        tau = _number(split.tau)
        for name, half in (("odd", split.odd), ("even", split.even)):
            halves[name] = {s: _number(half.points[i]) for s, i in index.items()}
        within_tau, why = within_session_tau(
            a,
            b,
            y,
            w,
            session=session,
            index=index,
            reference=reference,
            penalty=settings.penalty,
            least=MIN_HALF_VOTES,
        )
        if why:
            unavailable["within_session_tau"] = why
        odd = int(np.count_nonzero(session % 2 == 1))
        if split.n_systems < 3 or min(odd, len(human) - odd) < MIN_HALF_VOTES:
            unavailable["split_half_tau"] = (
                f"{odd} votes in odd and {len(human) - odd} in even sessions, "
                f"{split.n_systems} systems ranked in both; it needs {MIN_HALF_VOTES} votes "
                "in each half and 3 systems"
            )
            tau = None
        length = fit.length_bias(
            a,
            b,
            y,
            comparisons["len_a"][human],
            comparisons["len_b"][human],
            w,
            n_systems=len(systems),
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
    return RoundSummary(
        rater_agreement=agreement,
        repeats=repeats,
        split_half_tau=tau,
        split_half_points=halves,
        within_session_tau=within_tau,
        left_out=_left_out(comparisons),
        length_bias_points_per_sd=None if diff_family else bias,
        diff_length_bias_points_per_sd=bias if diff_family else None,
        length_bias_standard_error=error,
        unavailable=unavailable,
        settled=settled_summary(comparisons, weights),
    )


def settled_summary(comparisons: Comparisons, weights: np.ndarray) -> dict[str, Any]:
    """How much of the fit was decided without a vote.

    ``by_rule`` counts the fitted settled comparisons by the kind of rule
    (gate, identical, tests; ``overruled`` when a verdict on one of its
    outputs was set aside); ``weight_share`` is their share of the fit's
    total weight (None when nothing is fitted).
    """
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
    return {"by_rule": by_rule, "weight_share": settled_weight / total if total > 0 else None}


VOTED_KINDS = ("votes", "tests_then_votes")


def describe_settled(settled: dict[str, Any], kind: str) -> str:
    """One or two plain sentences on how much of the board was decided without a vote."""
    share = settled["weight_share"]
    counts = settled["by_rule"]
    total = sum(counts.values())
    if share is None:
        return "Nothing was fitted in this round."
    if not total:
        return "Every fitted comparison is a vote by the rater."
    parts = ", ".join(f"{n} by {rule}" for rule, n in counts.items() if n)
    text = (
        f"{total} fitted comparison{'s' if total != 1 else ''} settled without a vote "
        f"({parts}): {100 * share:.0f}% of the fit's weight."
    )
    if kind in VOTED_KINDS and share > 0.5:
        text += (
            " Most of this board rests on automatic decisions, not on the rater's votes: "
            "review them with `arena gate --list` or the Gates page."
        )
    return text


def fit_battles(
    path: str,
    *,
    fmt: str = "fastchat-battles",
    penalty: float = fit.DEFAULT_PENALTY,
    anchor: str | None = None,
    base: float = 1000.0,
) -> dict[str, Any]:
    """Fit a battles file; the JSON-ready leaderboard ``arena fit`` prints.

    Returns ``{"anchor", "anchor_reason", "penalty", "systems": [...]}`` with
    one ``{"system", "points", "rank", "unranked", "status",
    "decisive_votes"}`` per system: ranked systems by rank (then name), then
    the rest by name; ``points`` and ``rank`` are None without points.
    """
    battles = read_battles(path, fmt=fmt)
    requested = battles.names.index(anchor) if anchor in battles.names else None
    try:
        result = fit.fit_points(
            battles.a,
            battles.b,
            battles.y,
            battles.w,
            n_systems=len(battles.names),
            penalty=penalty,
            anchor=requested,
            base=base,
            decisive_votes=battles.decisive,
        )
    except ValueError as error:
        raise BadInput(str(error), path=str(path)) from error
    systems = []
    for index, name in enumerate(battles.names):
        ranked = bool(result.ranked[index])
        systems.append(
            {
                "system": name,
                "points": float(result.points[index]) if ranked else None,
                "rank": int(result.ranks[index]) if ranked else None,
                "unranked": not ranked,
                "status": str(result.status[index]),
                "decisive_votes": int(battles.decisive[index]),
            }
        )
    systems.sort(key=lambda s: (s["unranked"], s["rank"] or 0, s["system"]))
    reason = result.anchor_reason
    if anchor is not None and requested is None and result.anchor is not None:
        reason = "requested_has_no_comparisons"  # named, but absent from the file
    return {
        "anchor": None if result.anchor is None else battles.names[result.anchor],
        "anchor_reason": reason,
        "penalty": float(penalty),
        "systems": systems,
    }
