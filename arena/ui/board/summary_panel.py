"""The round summary beside the board: each figure with one plain sentence saying what it means."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from arena.graded.board_rows import failure_count, failure_text
from arena.rounds import summary_text
from arena.rounds.known_limits import known_limits
from arena.rounds.model import Round, RoundSummary
from arena.rounds.round_records import PooledJudge
from arena.rounds.scoring import describe_settled
from arena.ui.board.split_plot import SplitPlot, split_points
from arena.ui.keys import NEXT_RATER_KEY
from arena.ui.theme import Theme

LEFT_OUT = {
    "retired_case": "on retired cases",
    "removed_output": "on removed outputs",
    "failing_gate": "on outputs that now fail a gate",
    "settled_pair": "on pairs that now settle without a vote",
}


@dataclass(frozen=True)
class SummaryItem:
    title: str
    figure: str
    sentence: str


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


NOT_TOLD = "Not enough votes to tell"


def _not_told(summary: RoundSummary, figure: str, title: str, what: str) -> SummaryItem | None:
    """A figure the votes cannot tell: said so, with why, instead of a number."""
    reason = (summary.unavailable or {}).get(figure)
    if reason is None:
        return None
    return SummaryItem(title, "—", f"{NOT_TOLD}: {reason}. {what}")


def _agreement(summary: RoundSummary) -> SummaryItem:
    share, repeats = summary.rater_agreement, summary.repeats
    told = _not_told(
        summary,
        "rater_agreement",
        "Rater agreement",
        "It is the share of pairs shown again, sides swapped, that get the same answer.",
    )
    if told is not None and repeats:
        return told
    if share is None:
        return SummaryItem(
            "Rater agreement",
            "—",
            "No pair has been shown a second time with "
            "sides swapped yet, so consistency cannot be measured.",
        )
    same = round(share * repeats)
    pairs = "pair" if repeats == 1 else "pairs"
    spread = summary_text.interval(summary.rater_agreement_ci95, percent=True)
    return SummaryItem(
        "Rater agreement",
        f"{100 * share:.0f}%",
        f"On {repeats} {pairs} shown twice with sides swapped, the rater chose "
        f"the same output {_times(same)}" + (f" ({spread})." if spread else "."),
    )


def _split_half(summary: RoundSummary) -> SummaryItem:
    tau = summary.split_half_tau
    told = _not_told(
        summary,
        "split_half_tau",
        "Split-half τ",
        "It compares the orders fitted to odd- and to even-numbered sessions.",
    )
    if told is not None:
        return told
    halves = summary.split_half_points
    both = sum(v is not None and halves.even.get(s) is not None for s, v in halves.odd.items())
    if tau is None:
        return SummaryItem(
            "Split-half τ",
            "—",
            "Needs votes from at least two sessions that "
            "rank two or more of the same systems in each half.",
        )
    return SummaryItem(
        "Split-half τ",
        f"{tau:.2f}",
        f"Kendall's τ-b between the orders fitted to odd- and to even-numbered "
        f"sessions, over the {both} systems ranked in both: 1 = the same order, "
        "0 = unrelated, −1 = reversed."
        + _uncertainty(summary.split_half_tau_ci95, summary.split_half_tau_null_p),
    )


def _uncertainty(ci95: list[float] | None, null_p: float | None) -> str:
    """`` 95% interval 0.21–0.85; random votes reach this 12% of the time.``"""
    detail = summary_text.tau_detail(ci95, null_p)
    return f" {detail[0].upper()}{detail[1:]}." if detail else ""


def _side_preference(summary: RoundSummary) -> list[SummaryItem]:
    text = summary_text.side_preference(summary)
    if not text:
        return []
    return [
        SummaryItem(
            "Side preference",
            f"{100 * (summary.left_share or 0):.0f}% left",
            f"{text[0].upper()}{text[1:]}.",
        )
    ]


def _within_sessions(summary: RoundSummary) -> SummaryItem:
    title = "Split-half τ within sessions"
    what = (
        "The same τ between the odd- and the even-numbered votes of each session, by "
        "time: it exists after a single long sitting, but both halves share every "
        "sitting, so it reads higher than the split between sessions."
    )
    told = _not_told(summary, "within_session_tau", title, what)
    if told is not None:
        return told
    tau = summary.within_session_tau
    if tau is None:  # a round closed before it was recorded
        return SummaryItem(title, "—", "Not recorded in this round. " + what)
    sure = _uncertainty(summary.within_session_tau_ci95, summary.within_session_tau_null_p)
    return SummaryItem(title, f"{tau:.2f}", what + sure)


def _left_out(summary: RoundSummary) -> SummaryItem:
    counts = summary.left_out
    total = sum(counts.values())
    if not total:
        return SummaryItem("Left out of the fit", "0", "Every vote in force entered the fit.")
    parts = ", ".join(f"{n} {LEFT_OUT.get(reason, reason)}" for reason, n in counts.items())
    votes = "vote stays" if total == 1 else "votes stay"
    return SummaryItem(
        "Left out of the fit",
        str(total),
        f"{total} {votes} in the ledger but out of the fit: {parts}.",
    )


def _length_bias(summary: RoundSummary, kind: str) -> SummaryItem:
    diff = summary.diff_length_bias_points_per_sd is not None or kind == "tests_then_votes"
    title = "Diff length bias" if diff else "Length bias"
    value = summary.diff_length_bias_points_per_sd if diff else summary.length_bias_points_per_sd
    what = "A diff" if diff else "An output"
    key = "diff_length_bias_points_per_sd" if diff else "length_bias_points_per_sd"
    told = _not_told(summary, key, title, "Positive = favours longer.")
    if told is not None:
        return told
    if value is None:
        return SummaryItem(
            title,
            "—",
            "Needs human votes on pairs of different lengths; positive = favours longer.",
        )
    moves = "gains" if value >= 0 else "loses"
    figure = f"{value:+.0f}".replace("-", "−")  # a true minus sign
    error = summary.length_bias_standard_error
    if error is not None:
        figure += f" ± {error:.0f}"
    return SummaryItem(
        title,
        f"{figure} points per SD",
        f"Positive = favours longer. {what} one standard deviation longer than "
        f"its rival (relative to the pair's total length) {moves} about "
        f"{abs(value):.0f} points in the rater's votes"
        + (f" (± {error:.0f}: one standard error)." if error is not None else "."),
    )


def _settled(summary: RoundSummary, kind: str, pooled: tuple[str, ...]) -> list[SummaryItem]:
    """How much of the fit was decided without a vote; rounds closed before this was
    recorded say nothing rather than a guess."""
    settled = summary.settled
    if settled is None:
        return []
    share = settled.weight_share
    figure = "—" if share is None else f"{100 * share:.0f}% of the weight"
    return [SummaryItem("Settled without a vote", figure, describe_settled(settled, kind, pooled))]


def _pooled(found: Round) -> list[SummaryItem]:
    """A pooled round's judges: who, and how much of each was fitted at what weight."""
    if not found.judges:
        return []
    return [
        SummaryItem(
            "Pooled with judges",
            ", ".join(found.pooled),
            "The board fits the rater's votes with these judges' verdicts: a person's as "
            "votes (weighing at most what the rater does), a model's as predictions the "
            "rater's votes correct (the board estimates the rater's own). The figures below "
            "are the rater's alone. "
            + " ".join(f"{j.judge}: {_judge_part(j)}." for j in found.judges),
        )
    ]


def _judge_part(judge: PooledJudge) -> str:
    worth = summary_text.judge_worth(judge)
    if worth is not None:
        return f"{judge.verdicts} verdicts, {worth}"
    return f"{judge.verdicts} verdicts, {judge.fitted} fitted" + (
        f" at weight {judge.weight:.4g}" if judge.fitted else ""
    )


def _graded_runs(found: Round) -> list[SummaryItem]:
    """A graded round: each run's failures by status and its category scores."""
    items = []
    for row in found.systems:
        shown = row.to_json()
        failures = failure_text(shown)
        count = failure_count(shown)
        categories = ", ".join(
            f"{name} {100 * score:.1f}%" for name, score in (row.categories or {}).items()
        )
        sentence = (
            f"Passed {row.passed} of {row.tasks} tasks, {100 * (row.coverage or 0):.0f}% "
            "attempted. "
            + ("Failures by status were not recorded in this round. " if failures is None else "")
            + (f"Failures: {failures}. " if count else "")
            + (f"Categories: {categories}." if categories else "")
        )
        figure = "—" if count is None else f"{count} failure{'' if count == 1 else 's'}"
        items.append(SummaryItem(f"{row.label} (rank {row.rank})", figure, sentence.strip()))
    return items


def rater_item(found: Round, rater: str, keyboard: str | None, key: str) -> SummaryItem:
    """One rater's votes, weight and own figures (``rater`` of a round shared by several);
    ``key`` shows the next rater's."""
    raters = found.summary.raters or []
    (figures,) = [r for r in raters if r.rater == rater]
    own = summary_text.rater_figures(figures)
    return SummaryItem(
        f"Rater {figures.rater}" + (" (at the keyboard)" if rater == keyboard else ""),
        f"{figures.votes} vote{'' if figures.votes == 1 else 's'}",
        f"Weight {figures.weight:g}; {own}. The figures below are those of all "
        f"{len(raters)} raters' votes; {key} shows the next rater's own.",
    )


def summary_items(found: Round, kind: str) -> list[SummaryItem]:
    """The round summary of ``found`` as titled figures with a sentence each."""
    if kind == "graded":
        return _graded_runs(found)
    summary = found.summary
    if kind == "tests":
        return [
            SummaryItem(
                "No votes",
                "—",
                "The round summary describes the rater's votes; "
                "a tests family is scored by its tests alone.",
            ),
            *_settled(summary, kind, found.pooled),
        ]
    return [
        *_pooled(found),
        *_settled(summary, kind, found.pooled),
        _agreement(summary),
        _split_half(summary),
        _within_sessions(summary),
        *_side_preference(summary),
        _left_out(summary),
        _length_bias(summary, kind),
    ]


class SummaryPanel(QFrame):
    """The summary figures, then the split-half plot."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summary")
        self.heading = QLabel("Round summary")
        self.heading.setObjectName("summary-heading")
        self.items = QWidget()
        self.item_layout = QVBoxLayout(self.items)
        self.item_layout.setContentsMargins(0, 0, 0, 0)
        self.item_layout.setSpacing(10)
        self.plot_title = QLabel("Split halves: points from odd against even sessions")
        self.plot_title.setObjectName("summary-title")
        self.plot_title.setWordWrap(True)
        self.plot_caption = QLabel(
            "Each dot is a system; on the dashed diagonal both halves gave it the same points."
        )
        self.plot_caption.setObjectName("muted")
        self.plot_caption.setWordWrap(True)
        self.plot = SplitPlot(theme)
        self.labels: list[QLabel] = []
        # A round shared by several raters: whose figures are shown (the one at the
        # keyboard first; ``next_rater`` cycles), and the round and kind shown.
        self.keyboard: str | None = None
        self.rater_order: list[str] = []
        self.rater_shown = 0
        self.shown: tuple[Round, str, str | None] | None = None
        # What no figure of the board can say, below its figures.
        self.limits_title = QLabel("Known limits")
        self.limits_title.setObjectName("summary-title")
        self.limits = QLabel()
        self.limits.setObjectName("muted")
        self.limits.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.items)
        layout.addSpacing(8)
        for widget in (self.plot_title, self.plot_caption, self.plot):
            layout.addWidget(widget)
        layout.addSpacing(8)
        layout.addWidget(self.limits_title)
        layout.addWidget(self.limits)
        layout.addStretch(1)

    @property
    def rater(self) -> str | None:
        """The rater whose own figures are shown (None: the round has one rater)."""
        return self.rater_order[self.rater_shown] if self.rater_order else None

    def next_rater(self) -> None:
        """Show the next rater's own figures (after the last, the first's again)."""
        if not self.rater_order or self.shown is None:
            return
        self.rater_shown = (self.rater_shown + 1) % len(self.rater_order)
        found, kind, category = self.shown
        self._fill(found, kind, category)

    def show_round(
        self,
        found: Round | None,
        kind: str,
        *,
        category: str | None,
        keyboard: str | None = None,
    ) -> None:
        """``found``'s summary; in a round of several raters, the one at the keyboard's
        own figures first."""
        raters = found.summary.raters if found is not None and kind != "graded" else None
        self.keyboard = keyboard
        self.rater_order = [r.rater for r in summary_text.in_order(raters or [], keyboard)]
        self.rater_shown = 0
        self.shown = None if found is None else (found, kind, category)
        self._fill(found, kind, category)

    def _fill(self, found: Round | None, kind: str, category: str | None) -> None:
        while self.item_layout.count():
            taken = self.item_layout.takeAt(0)
            assert taken is not None  # count() > 0
            child = taken.widget()
            if child is not None:
                child.deleteLater()
        self.labels = []
        self.limits_title.setText("Known limits")
        self.limits.setText("\n".join(f"• {line}" for line in known_limits(kind)))
        self.limits_title.setVisible(found is not None)
        self.limits.setVisible(found is not None)
        if found is None:
            self.heading.setText("Round summary")
            for widget in (self.plot_title, self.plot, self.plot_caption):
                widget.hide()
            return
        # The summary is always the whole family's, even beside a category's board.
        heading = "Runs: failures and categories" if kind == "graded" else "Round summary"
        self.heading.setText(heading + (" (all categories)" if category else ""))
        own = (
            []
            if self.rater is None
            else [rater_item(found, self.rater, self.keyboard, NEXT_RATER_KEY)]
        )
        for item in [*own, *summary_items(found, kind)]:
            title, figure, sentence = map(html.escape, (item.title, item.figure, item.sentence))
            label = QLabel(
                f"<span style='font-weight:600'>{title}</span>&nbsp;&nbsp;"
                f"<span style='font-size:large'>{figure}</span><br>{sentence}"
            )
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
            self.labels.append(label)
            self.item_layout.addWidget(label)
        labels: dict[str, str] = {r.system: r.label for r in found.systems}
        self.plot.set_points(*split_points(found.summary.split_half_points, labels))
        voted = kind not in ("tests", "graded")
        for widget in (self.plot_title, self.plot, self.plot_caption):
            widget.setVisible(voted)

    def set_theme(self, theme: Theme) -> None:
        self.plot.set_theme(theme)
