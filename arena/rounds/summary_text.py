"""The summary figures' uncertainty in plain words, for the CLI and the window alike."""

from __future__ import annotations

from collections.abc import Sequence

from arena.rounds.model import RoundSummary
from arena.rounds.round_records import PooledJudge, RaterFigures
from arena.texts import counted


def interval(ci: list[float] | None, *, percent: bool = False) -> str:
    """``95% 0.21–0.85`` (or ``95% 64–88%``); '' without an interval."""
    if not ci:
        return ""
    if percent:
        return f"95% {100 * ci[0]:.0f}–{100 * ci[1]:.0f}%"
    return f"95% {ci[0]:.2f}–{ci[1]:.2f}"


def random_votes(p: float | None) -> str:
    """How often random votes would reach a τ, as a sentence's end; '' unknown."""
    if p is None:
        return ""
    share = "under 1%" if p < 0.01 else f"{100 * p:.0f}%"
    return f"random votes reach this {share} of the time"


def tau_detail(ci95: list[float] | None, null_p: float | None) -> str:
    """``(95% 0.21–0.85); random votes reach this 12% of the time`` for a τ's interval
    and share of random votes reaching it ('' in a round closed before the τ's
    uncertainty was recorded)."""
    within = interval(ci95)
    chance = random_votes(null_p)
    return "; ".join(filter(None, [f"({within})" if within else "", chance]))


def side_preference(summary: RoundSummary) -> str:
    """The share of decisive votes for the left side, its interval, and a plain sentence
    when the interval leaves out one half; '' when the round has no such figure."""
    share, votes = summary.left_share, summary.decisive_votes
    if share is None or not votes:
        return ""
    ci = summary.left_share_ci95 or [0.0, 1.0]
    spread = interval(ci, percent=True)
    text = f"left side chosen in {100 * share:.0f}% of {votes} decisive votes ({spread})"
    if ci[0] > 0.5:
        return text + ": more often than chance would, a lean to the left"
    if ci[1] < 0.5:
        return text + ": less often than chance would, a lean to the right"
    return text + ": no lean to either side that the votes can tell"


def in_order(raters: Sequence[RaterFigures], first: str | None) -> list[RaterFigures]:
    """The raters with ``first`` (the one at the keyboard) ahead, the rest as recorded."""
    return sorted(raters, key=lambda r: r.rater != first)


def rater_line(figures: RaterFigures, *, at_keyboard: bool = False) -> str:
    """One rater's name, votes, weight and own figures on one line."""
    name = figures.rater + (" (at the keyboard)" if at_keyboard else "")
    return (
        f"{name}: {counted(figures.votes, 'vote')} (weight {figures.weight:g}); "
        + rater_figures(figures)
    )


def rater_figures(figures: RaterFigures) -> str:
    """One rater's own figures (— where the votes cannot tell a figure)."""
    told = figures.unavailable
    agreement = (
        f"{100 * figures.rater_agreement:.0f}% over {counted(figures.repeats, 'repeat')}"
        f" ({interval(figures.rater_agreement_ci95, percent=True)})"
        if figures.rater_agreement is not None and "rater_agreement" not in told
        else f"— over {counted(figures.repeats, 'repeat')}"
    )
    tau = (
        f"{figures.split_half_tau:.2f} ({interval(figures.split_half_tau_ci95)})"
        if figures.split_half_tau is not None
        else "—"
    )
    left = (
        f"{100 * figures.left_share:.0f}% of {figures.decisive_votes} decisive"
        f" ({interval(figures.left_share_ci95, percent=True)})"
        if figures.left_share is not None
        else "—"
    )
    bias = figures.length_bias_points_per_sd
    if bias is None:
        bias = figures.diff_length_bias_points_per_sd
    error = figures.length_bias_standard_error
    length = "—" if bias is None else f"{bias:+.0f}" + (f" ± {error:.0f}" if error else "")
    return (
        f"rater agreement {agreement}; split-half τ {tau}; left side {left}; "
        f"length bias {length} points per SD"
    )


def judge_worth(judge: PooledJudge) -> str | None:
    """A model judge's part in a prediction-powered board: its weight lam and the rater
    votes the board is worth with it, with its 95% interval; None for a pooled one."""
    if judge.lam is None or judge.effective_votes is None:
        return None
    low, high = judge.effective_votes_ci95 or (judge.effective_votes, judge.effective_votes)
    return (
        f"prediction-powered at lam {judge.lam:.3g}: worth {judge.effective_votes:,.0f} "
        f"rater votes (95% {low:,.0f}–{high:,.0f})"
    )
