"""One disagreement opened side by side: the pair as the rater first saw it, rendered as
the rating page renders it (its own ``PairView``), under the rater's and the judge's
answers; for a judge run from Arena, below it the judge's full reply in each order it was
asked, as plain text (a reply is untrusted: never rendered). Read-only: no key here
records anything."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget

from arena.judges.disagreements import Disagreement, pair_shown
from arena.judges.replies import ItemReply, item_replies
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


def replies_text(replies: list[ItemReply], d: Disagreement) -> str:
    """Each reply under a line naming its order (the systems as the judge saw them) and
    its verdict, or that it named none: plain text, the replies as sent."""
    labels = {d.left.system_id: d.left.label, d.right.system_id: d.right.label}
    parts = []
    for r in replies:
        left, right = labels.get(r.left, r.left), labels.get(r.right, r.right)
        if r.parsed:
            chosen = {"left": left, "right": right}.get(r.verdict)
            said = f"{r.verdict} ({chosen})" if chosen else r.verdict
            said = f"verdict {said}{', much better' if r.strength == 2 else ''}"
        else:
            said = "unparsed: the reply named no verdict"
        order = "as you first saw it" if r.left == d.left.system_id else "sides swapped"
        parts.append(f"── Game {r.game}: left {left}, right {right} ({order}) · {said}\n\n{r.text}")
    return "\n\n".join(parts)


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
        self.replies: list[ItemReply] = []
        # A run judge's replies: plain text always (an endpoint's reply is untrusted).
        self.reply_text = QPlainTextEdit()
        self.reply_text.setObjectName("judge-replies")
        self.reply_text.setReadOnly(True)
        self.reply_text.setTabChangesFocus(True)
        self.reply_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.reply_heading = QLabel("The judge's full repl&y in each order (plain text):")
        self.reply_heading.setBuddy(self.reply_text)
        self.reply_box = QWidget()
        self.reply_box.setMinimumHeight(160)
        box = QVBoxLayout(self.reply_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.reply_heading)
        box.addWidget(self.reply_text, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.view)
        self.split.addWidget(self.reply_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        self.reply_box.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.answers)
        layout.addWidget(self.split, 1)
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
        self.replies = item_replies(
            ledger, family, judge, d.case_id, (d.left.system_id, d.right.system_id)
        )
        self.reply_text.setPlainText(replies_text(self.replies, d))
        self.reply_box.setVisible(bool(self.replies))
        if self.replies:  # a third of the height for the replies, the rest for the pair
            height = max(self.split.height(), 600)
            self.split.setSizes([height - height // 3, height // 3])
        return True

    def set_theme(self, theme: Theme) -> None:
        self.cache.set_theme(theme)
        self.view.set_theme(theme, self.point_size)

    def set_point_size(self, size: float) -> None:
        self.point_size = size
        self.view.set_point_size(size)
