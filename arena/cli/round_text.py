"""A round as `arena round close` and `arena round show` print it: the board, its notes
(a mixed family's warning among them), the summary, the "Round settings" section and the
known limits at the foot."""

from __future__ import annotations

from typing import Any

from arena.cli import output
from arena.cli.board_text import board_table, fmt, told, uncertainty_line
from arena.rounds import summary_text
from arena.rounds.anchor_words import anchor_why, unranked_entry
from arena.rounds.board_vocabulary import (
    AGENT_TIME,
    COST_SOLUTION,
    FAR_BEHIND,
    marks,
    preliminary_rule,
    solutions,
)
from arena.rounds.known_limits import known_limits
from arena.rounds.model import BoardRow, Round
from arena.rounds.preview import NOT_A_ROUND, Preview
from arena.rounds.round_records import PooledJudge
from arena.rounds.settings_text import settings_lines
from arena.texts import counted


def agents_warning(found: Round) -> str | None:
    """A tests family whose systems do not share one agent, unless the family allows it."""
    agents = found.settings_record.agents if found.settings_record else None
    if agents is None or not agents.reported:
        return None
    return "warning: " + agents.warning(found.family)


def solutions_note(ranked: list[BoardRow]) -> str | None:
    """On a tested board, what its agent p50 and cost per solution are of, where some
    solutions report neither."""
    partial = [
        f"{r.label} {r.solutions_timed} timed, {r.solutions_costed} costed of {answered}"
        for r in ranked
        if r.solutions_timed is not None
        and r.solutions_costed is not None
        and (answered := solutions(r)) > min(r.solutions_timed, r.solutions_costed)
    ]
    if not partial:
        return None
    return (
        f"{AGENT_TIME.header.lower()} and {COST_SOLUTION.header.lower()} are of the solutions "
        "that report them: " + ", ".join(partial)
    )


def footer(found: Round) -> list[str]:
    """The "Round settings" section and the known limits, as printed last."""
    lines = ["", "Round settings"]
    settings = settings_lines(found.kind, found)
    lines += [f"  {name}: {text}" for name, text in settings]
    lines += ["", "Known limits"]
    lines += [f"  - {limit}" for limit in known_limits(found.kind)]
    return lines


def pooled_line(judge: PooledJudge) -> str:
    """One pooled judge: its verdicts, how many were fitted and at what weight (a model
    judge's: its prediction-powered weight lam and the rater votes the board is worth)."""
    fitted = (
        f"{judge.fitted} fitted at weight {judge.weight:.4g}" if judge.fitted else "none fitted"
    )
    worth = summary_text.judge_worth(judge)
    if worth is not None:
        fitted = f"{judge.fitted} predicting the rater's, {worth}"
    left = sum(judge.left_out.values())
    return (
        f"pooled: {judge.judge} ({judge.kind}), {counted(judge.verdicts, 'verdict')}, {fitted}"
        + (f", {left} left out" if left else "")
        + (f", {judge.unmatched} unmatched (no single output)" if judge.unmatched else "")
    )


def print_preview(shown: Preview, category: str | None = None) -> None:
    """A preview as `round show --preview` prints it: its board, marked as not a round."""
    board = shown.categories[category] if category else shown.board
    settings = shown.settings
    print(
        f"{shown.family}: {NOT_A_ROUND}, the fit of {counted(shown.votes, 'vote')} so far"
        + (f", category {category}" if category else "")
        + f", fitted {shown.fitted_at} in {shown.seconds:.1f} s; stored nowhere"
    )
    if board.anchor is not None:
        anchor = board.anchor
        print(f"anchor: {anchor.label} ({anchor_why(anchor.reason, anchor.fallback)})")
    ranked = [r for r in board.systems if not r.unranked]
    headers, cells, right = board_table(shown.kind, ranked, category=bool(category))
    print(output.table(headers, cells, right=right))
    sure = board.uncertainty
    if sure is not None and sure.available:
        print("intervals: at close (the preview skips the bootstrap of the cases)")
    elif (line := uncertainty_line(sure)) is not None:
        print(line)
    others = [r for r in board.systems if r.unranked]
    if others:
        print("unranked: " + ", ".join(unranked_entry(r.label, r.status) for r in others))
    shown_marks = {m for r in ranked for m in marks(r, shown.kind)}
    if "preliminary" in shown_marks:
        print(f"preliminary: {preliminary_rule(settings.threshold)}")
    if "far behind" in shown_marks:
        print(f"far behind: {FAR_BEHIND}")
    print(
        f"fitted as a round closed now with the defaults would be ({settings.weighting} "
        f"weighting, penalty λ {settings.penalty:g}, threshold {settings.threshold:g}, "
        "the rater's votes alone), on the gate verdicts as last read; the summary and the "
        "intervals come with a round (`arena round close`)"
    )


def print_round(
    found: Round,
    category: str | None = None,
    *,
    rater: str | None = None,
    between: dict[str, Any] | None = None,
) -> None:
    """A round as `round close` and `round show` print it: the family's board, or the
    board of its ``category``'s refit."""
    board = found.categories[category] if category else found.board
    anchor = board.anchor
    title = f"round {found.round_id[:12]} of {found.family}, closed {found.closed_at}"
    if anchor is None:  # a graded family: scores, not points
        from arena.cli.graded_cmd import print_graded

        print(title)
        print(f"bootstrap seed {found.settings.seed}")
        print_graded([r.to_json() for r in board.systems])
        print("\n".join(footer(found)))
        return
    if category:
        title += f", category {category}"
    judges = found.judges
    if judges:
        title += ", pooled with judges " + ", ".join(j.judge for j in judges)
    print(title)
    # The settings are listed whole under "Round settings", below the summary.
    print(f"anchor: {anchor.label} ({anchor_why(anchor.reason, anchor.fallback)})")
    for judge in judges or ():
        print(pooled_line(judge))
    kind = found.kind or "votes"  # rounds closed before the kind was recorded are voted
    ranked = [r for r in board.systems if not r.unranked]
    headers, cells, right = board_table(kind, ranked, category=bool(category))
    print(output.table(headers, cells, right=right))
    if (line := uncertainty_line(board.uncertainty)) is not None:
        print(line)
    others = [r for r in board.systems if r.unranked]
    if others:
        print("unranked: " + ", ".join(unranked_entry(r.label, r.status) for r in others))
    if any(r.no_output or r.untried for r in ranked):
        print(
            "failed trials counted for tasks not answered (no output) and outputs never "
            "tested: "
            + ", ".join(
                f"{r.label} {r.no_output or 0} + {r.untried or 0}"
                for r in ranked
                if r.no_output or r.untried
            )
        )
    for note in (solutions_note(ranked), agents_warning(found)):
        if note is not None:
            print(note)
    shown_marks = {m for r in ranked for m in marks(r, kind)}
    if "preliminary" in shown_marks:
        print(f"preliminary: {preliminary_rule(found.settings.threshold)}")
    if "far behind" in shown_marks:
        print(f"far behind: {FAR_BEHIND}")
    summary = found.summary
    print()
    agreement = fmt(summary.rater_agreement, percent=True) or "—"
    spread = summary_text.interval(summary.rater_agreement_ci95, percent=True)
    print(
        "rater agreement: "
        + told(
            summary,
            "rater_agreement",
            f"{agreement} over {counted(summary.repeats, 'repeat')}"
            + (f" ({spread})" if spread else ""),
        )
    )
    for key, name, tau, ci95, null_p in (
        (
            "split_half_tau",
            "split-half τ",
            summary.split_half_tau,
            summary.split_half_tau_ci95,
            summary.split_half_tau_null_p,
        ),
        (
            "within_session_tau",
            "split-half τ within sessions (odd/even votes by time, same sittings: reads higher)",
            summary.within_session_tau,
            summary.within_session_tau_ci95,
            summary.within_session_tau_null_p,
        ),
    ):
        shown = fmt(tau, 2) or "—"
        detail = summary_text.tau_detail(ci95, null_p) if tau is not None else ""
        print(f"{name}: {told(summary, key, f'{shown} {detail}'.strip())}")
    side = summary_text.side_preference(summary)
    if side:
        print(f"side preference: {side}")
    error = summary.length_bias_standard_error
    for key, name, bias in (
        ("length_bias_points_per_sd", "length bias", summary.length_bias_points_per_sd),
        (
            "diff_length_bias_points_per_sd",
            "diff length bias",
            summary.diff_length_bias_points_per_sd,
        ),
    ):
        if bias is not None:
            print(
                f"{name}: {bias:+.0f}"
                + (f" ± {error:.0f} (standard error)" if error is not None else "")
                + " points per SD (positive favours longer)"
            )
        elif key in (summary.unavailable or {}):
            print(f"{name}: {told(summary, key, '')}")
    if summary.raters:  # each rater's own figures, the one at the keyboard (``rater``) first
        print("raters, each on their own votes:")
        for figures in summary_text.in_order(summary.raters, rater):
            print("  " + summary_text.rater_line(figures, at_keyboard=figures.rater == rater))
    if between:  # the agreement between them, on the items two raters both voted
        from arena.judges.figures import between_text

        print(between_text(between))
    left = summary.left_out
    print("left out of the fit: " + (", ".join(f"{k} {v}" for k, v in left.items()) or "none"))
    if summary.settled is not None:  # rounds closed before settled shares were recorded lack it
        from arena.rounds.scoring import describe_settled

        pooled = [j.judge for j in judges or ()]
        print("settled without a vote: " + describe_settled(summary.settled, kind, pooled))
    print("\n".join(footer(found)))
