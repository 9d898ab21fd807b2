"""One disagreement opened side by side: the pair as the rater first saw it, rendered as
the rating page renders it (its own ``PairView``), under the rater's and the judge's
answers. Read-only: no key here records anything."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from arena.judges.disagreements import Disagreement, pair_shown
from arena.ledger import Ledger
from arena.ui.rating.pair_view import PairView
from arena.ui.rating.render_cache import RenderCache
from arena.ui.theme import Theme


def _named(answer: str, d: Disagreement) -> str:
    """An answer with the system it chose: ``left (gpt-4)``."""
    label = {"left": d.left.label, "right": d.right.label}.get(answer)
    return f"{answer} ({label})" if label else answer


def _answers(answers: tuple[str, ...], d: Disagreement) -> str:
    return ", ".join(_named(a, d) for a in answers)


def answers_html(d: Disagreement, judge: str) -> str:
    """What each said on the pair, on its sides as shown below."""
    h = html.escape
    games = [
        f"{_answers(answers, d)} {how}"
        for answers, how in ((d.judge_in_order, "as shown"), (d.judge_swapped, "sides swapped"))
        if answers
    ]
    return (
        f"<b>Case {h(d.case_id)}</b> · left {h(d.left.label)}, right {h(d.right.label)} "
        "(as you first saw it)<br>"
        f"<b>You</b>: {h(_answers(d.rater, d))} → {h(_named(d.rater_answer, d))}<br>"
        f"<b>{h(judge)}</b>: {h('; '.join(games))} → {h(_named(d.judge_answer, d))}<br>"
        "<i>Read-only: nothing is recorded here. Esc goes back to the list.</i>"
    )


class JudgePair(QWidget):
    def __init__(self, theme: Theme, point_size: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.point_size = point_size
        # Its own cache: a pair view lays out its cache's documents for its own panes.
        self.cache = RenderCache(theme, point_size, self)
        self.answers = QLabel()
        self.answers.setObjectName("judge-answers")
        self.answers.setTextFormat(Qt.TextFormat.RichText)
        self.answers.setWordWrap(True)
        self.view = PairView(self.cache, theme, point_size, split=True, sync=True)
        self.shown: Disagreement | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.answers)
        layout.addWidget(self.view, 1)
        self.setFocusProxy(self.view)

    def show_disagreement(self, ledger: Ledger, family: str, d: Disagreement, judge: str) -> bool:
        """Show ``d``'s pair; False when its outputs or vote are not in ``ledger``."""
        pair = pair_shown(ledger, family, d)
        if pair is None:
            return False
        self.shown = d
        self.answers.setText(answers_html(d, judge))
        self.view.left.title.setText(f"Left: {d.left.label}")
        self.view.right.title.setText(f"Right: {d.right.label}")
        self.view.show_pair(pair)
        return True

    def set_theme(self, theme: Theme) -> None:
        self.cache.set_theme(theme)
        self.view.set_theme(theme, self.point_size)

    def set_point_size(self, size: float) -> None:
        self.point_size = size
        self.view.set_point_size(size)
