"""Rating one family: the pair, the vote buttons, and the session's life.

A session starts when the page opens a family and ends when the page closes,
the window closes, or after 15 minutes without input; the next vote key then
starts a new one (the pair on screen stays and is voted in the new session).
Every write goes through ``LedgerOps``: when one fails, the page keeps the
same pair and nothing advances.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from arena.ledger import Ledger
from arena.rating.raters import DEFAULT_RATER
from arena.rating.session import PairView as Pair
from arena.rating.session import RatingSession, sitting
from arena.records import Choice, PresentationId, Vote
from arena.texts import counted
from arena.ui import dialogs
from arena.ui.keys import BOARD_KEY, CLOSE_ROUND_KEY, display
from arena.ui.operations import Changes, LedgerOps
from arena.ui.rating.after_paint import AfterPaint
from arena.ui.rating.pair_view import PairView
from arena.ui.rating.render_cache import RenderCache
from arena.ui.theme import Theme

Result = TypeVar("Result")
IDLE_SECONDS = 15 * 60
VOTE_BUTTONS = (
    ("left", "Left is better"),
    ("right", "Right is better"),
    ("tie", "Tie"),
    ("both_bad", "Both bad"),
    ("skip", "Skip…"),
    ("flag", "Flag…"),
    ("undo", "Undo"),
)
# What the rater read on the buttons, for "Undid your vote on …".
CHOICE_TEXT = {name: label.rstrip("…") for name, label in VOTE_BUTTONS}
# The end of a family: what to do next, each a button (and its key).
NEXT_STEPS = (
    ("close_round", f"Close the round…   [{display([CLOSE_ROUND_KEY])}]"),
    ("board", f"Open the board   [{BOARD_KEY}]"),
    ("families", "Another family   [Esc]"),
)


class RatingPage(QWidget):
    # Something the status bar shows has changed.
    status_changed = Signal()

    def __init__(
        self,
        ops: LedgerOps,
        cache: RenderCache,
        theme: Theme,
        point_size: float,
        *,
        split: bool,
        sync: bool,
        break_minutes: int,
        clock: Callable[[], float] = time.monotonic,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.ops, self.cache, self.clock = ops, cache, clock
        self.break_minutes = break_minutes
        self.ledger: Ledger | None = None
        self.family = ""
        self.rater = DEFAULT_RATER
        self.session: RatingSession | None = None
        self.session_votes = 0
        self.progress: tuple[int, int] = (0, 0)
        # The rater's own votes in the family, and how many raters it has.
        self.own_votes = 0
        self.raters = 1
        self.stop_note = ""
        self.ended_note = ""
        self._started = 0.0
        self._next_break = 0.0
        self.last_input = clock()

        self.pair_view = PairView(cache, theme, point_size, split=split, sync=sync)
        # Once the pair is on screen: the counts and the guess at the next pair.
        self.after_paint = AfterPaint(self.pair_view, self._after_paint)
        self.notice = QLabel()
        self.notice.setObjectName("banner")
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.notice_close = QPushButton("Hide")
        self.notice_close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.notice_close.clicked.connect(self.hide_notice)
        self.notice_close.hide()
        # The pair a notice is about ("Pair flagged", "Undid your vote…"): it goes with it.
        self.notice_pair: PresentationId | None = None
        # This session's flags, by pair: the note comes back if the pair does (after an undo).
        self.flagged: dict[PresentationId, str] = {}
        notice_row = QHBoxLayout()
        notice_row.addWidget(self.notice, 1)
        notice_row.addWidget(self.notice_close)
        self.buttons: dict[str, QPushButton] = {}
        self.button_row = QHBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.next_steps: dict[str, QPushButton] = {}
        self.end_row = QHBoxLayout()
        self.end_row.addStretch(1)
        for name, label in NEXT_STEPS:
            button = QPushButton(label)
            button.setObjectName("vote")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.hide()
            self.next_steps[name] = button
            self.end_row.addWidget(button)
        self.end_row.addStretch(1)
        layout.addLayout(notice_row)
        layout.addWidget(self.pair_view, 1)
        layout.addLayout(self.end_row)
        layout.addLayout(self.button_row)
        self.setFocusProxy(self.pair_view)

        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self.tick)
        ops.changed.connect(self._ledger_changed)

    def bind(self, actions: dict[str, QAction]) -> None:
        """Buttons for the vote actions; their keys come from the window's key map."""
        for name, _label in VOTE_BUTTONS:
            button = QPushButton()
            button.setObjectName("vote")
            # Buttons never take focus: Space must scroll, never press a vote button.
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(actions[name].trigger)
            self.buttons[name] = button
            self.button_row.addWidget(button)
            if name == "both_bad":
                self.button_row.addStretch(1)
        self.label_buttons(actions)

    def offer_next(
        self,
        close_round: Callable[[], object],
        board: Callable[[], object],
        families: Callable[[], object],
    ) -> None:
        """What the end-of-family buttons do: the window's own actions."""
        for name, slot in (("close_round", close_round), ("board", board), ("families", families)):
            self.next_steps[name].clicked.connect(lambda _checked=False, s=slot: s())
        # B acts only while the button shows: elsewhere on this page it is no key.
        self.next_steps["board"].setShortcut(BOARD_KEY)

    def label_buttons(self, actions: dict[str, QAction]) -> None:
        for name, label in VOTE_BUTTONS:
            keys = [s.toString() for s in actions[name].shortcuts()]
            self.buttons[name].setText(f"{label}   [{display(keys)}]")

    # -- session --------------------------------------------------------------

    def start(self, ledger: Ledger, family: str, rater: str = DEFAULT_RATER) -> bool:
        """Rate ``family`` as ``rater`` (a session of that name)."""
        self.ledger, self.family, self.rater = ledger, family, rater
        self.session_votes = 0
        if not self._new_session():
            return False
        self.timer.start()
        return True

    def _new_session(self) -> bool:
        assert self.ledger is not None
        ledger, family, rater = self.ledger, self.family, self.rater

        def opened(session: RatingSession) -> None:
            self.session = session
            self.session_votes = 0
            self._started = self.clock()
            self._next_break = self._started + self.break_minutes * 60
            self.last_input = self._started
            self.ended_note = ""
            self.hide_notice()
            if session.untested:
                self.show_notice(
                    f"{session.untested} outputs of this tests family have no test result: "
                    "they count as failing until `arena tests run --family "
                    f"{family}` records their trials."
                )

        started = self.ops.run(self._own, lambda: sitting(ledger, family, rater), opened)
        return started and self.show_current()

    def stop(self) -> None:
        """End the session (the ledger keeps it; nothing more is written)."""
        self.session = None
        self.timer.stop()
        self.pair_view.show_pair(None)
        self._show_end(False)
        self.flagged = {}

    @property
    def _own(self) -> Changes:
        """What the session's writes change: rows it keeps in memory itself."""
        return Changes(family=self.family, session=True)

    def _ledger_changed(self, changes: Changes) -> None:
        # The session keeps its own writes in memory; anything else (an import, a
        # correction, the gates re-run at round close) may change its pairs.
        if self.session is not None and changes.pairs:
            self.session.refresh()
            if changes.outputs and self.current_pair() is None:  # new answers, new pairs
                self.show_current()

    def _awake(self) -> bool:
        """A session to act in: a new one when the last ended while idle."""
        if self.session is None and self.ledger is not None:
            return self._new_session()
        return self.session is not None

    def touch(self) -> None:
        self.last_input = self.clock()

    def tick(self) -> None:
        """Once a second: end an idle session, remind of breaks, refresh the clock."""
        now = self.clock()
        if self.session is not None and now - self.last_input >= IDLE_SECONDS:
            number = self.session.session.number
            self.session = None
            self.ended_note = (
                f"Session {number} ended after {IDLE_SECONDS // 60} idle minutes;"
                " the next key starts a new session."
            )
            self.show_notice(self.ended_note)
        elif self.session is not None and now >= self._next_break:
            self._next_break = now + self.break_minutes * 60
            minutes = int((now - self._started) // 60)
            self.show_notice(
                f"You have been rating for {minutes} minutes. A short break keeps "
                "judgements steady; your place is kept."
            )
        self.status_changed.emit()

    def elapsed(self) -> float:
        return self.clock() - self._started if self.session is not None else 0.0

    def status_text(self) -> str:
        if self.session is None:
            return self.ended_note or ""
        voted, total = self.progress
        pairs = f"{voted}/{total} pairs voted"
        if self.raters > 1 or self.rater != DEFAULT_RATER:
            # Someone else votes here too: the rater's own, and the board's beside them.
            pairs = (
                f"voting as {self.rater}  ·  {counted(self.own_votes, 'vote')} of yours  ·  "
                f"{pairs} by {counted(self.raters, 'rater')}"
            )
        return (
            f"{self.family}: {pairs}  ·  session "
            f"{self.session.session.number}: {counted(self.session_votes, 'vote')}  ·  "
            f"{clock_text(self.elapsed())}{self.stop_note}"
        )

    # -- the pair -------------------------------------------------------------

    def show_current(self) -> bool:
        session = self.session
        assert session is not None
        shown = self.ops.run(self._own, session.current, self._display)
        if not shown:
            # The next pair could not be recorded as shown: show none rather than the
            # pair already voted, so no key can vote on something unseen.
            self.pair_view.show_pair(None)
            self._show_end(False)
            self.pair_view.done.setText(
                "The next pair could not be shown. Press any vote key to try again."
            )
        return shown

    def _display(self, pair: Pair | None) -> None:
        self.pair_view.done.setText(
            f"Every pair of {self.family} is voted: nothing is left to rate.\n\n"
            "Close a round to fit the board on these votes, read the board, or choose "
            "another family.\nUndo (Ctrl+Z) takes back the last vote."
        )
        self.pair_view.show_pair(pair)
        self._show_end(pair is None)
        shown_id = pair.presentation.presentation_id if pair is not None else None
        if self.notice_pair is not None and self.notice_pair != shown_id:
            self.hide_notice()  # it was about another pair
        if shown_id in self.flagged and self.notice_pair is None:
            self.show_notice(f"This pair is flagged: “{self.flagged[shown_id]}”.", pair=pair)
        self.status_changed.emit()
        self.after_paint.request()

    def _after_paint(self) -> None:
        if self.ledger is not None:
            # The key's head-file write, held until the pair was on screen (``_key``).
            self.ops.run(Changes(), self.ledger.write_heads)
        session = self.session
        if session is None:
            return
        self.progress = session.progress()
        self.own_votes, self.raters = session.own_votes(), len(session.raters)
        self.stop_note = stop_note(session)
        self.status_changed.emit()
        # With adaptive choice the next pair depends on the vote: one per outcome.
        upcoming = session.peek_next()
        self.cache.prefetch(
            [side for u in upcoming for side in ((u.left, "left"), (u.right, "right"))],
            [u.case.prompt for u in upcoming],
        )

    def current_pair(self) -> Pair | None:
        return self.pair_view.pair

    def _show_end(self, ended: bool) -> None:
        """The end of the family: what to do next instead of vote buttons (Undo stays)."""
        for button in self.next_steps.values():
            button.setVisible(ended)
        for name, button in self.buttons.items():
            button.setEnabled(name == "undo" or not ended)

    # -- what the keys do -----------------------------------------------------

    def _ready(self) -> RatingSession | None:
        if not self._awake():
            return None
        session = self.session
        if session is not None and self.pair_view.pair is None:
            # A pair that failed to show, or none left: try to show one now.
            self.show_current()
            return None
        return session

    def _key(self, op: Callable[[], Result]) -> Callable[[], Result]:
        """``op`` with its commit's head-file write held until the next pair is painted
        (``_after_paint``): before the pair shows, a key costs its one durable commit."""
        ledger = self.ledger
        assert ledger is not None

        def held() -> Result:
            with ledger.heads_held():
                return op()

        return held

    def vote(self, choice: Choice) -> None:
        session = self._ready()
        if session is not None:
            self.ops.run(self._own, self._key(lambda: session.vote(choice)), self._voted)

    def skip(self) -> None:
        session = self._ready()
        if session is None:
            return
        comment = dialogs.ask_text(self, "Skip this pair", "Why skip? (optional)")
        if comment is not None:
            self.ops.run(self._own, self._key(lambda: session.skip(comment)), self._voted)

    def _voted(self, vote: Vote) -> None:
        if vote.choice != "skip":
            self.session_votes += 1
        self.show_current()

    def undo(self) -> None:
        if not self._awake():
            return
        session = self.session
        assert session is not None

        def undone(vote: Vote | None) -> None:
            if vote is None:
                self.show_notice("Nothing to undo.")
                return
            if vote.session_id == session.session.session_id and vote.choice != "skip":
                self.session_votes -= 1
            self.show_current()
            what = "skip" if vote.choice == "skip" else f"vote “{CHOICE_TEXT[vote.choice]}”"
            again = self.current_pair()
            note = self.flagged.get(again.presentation.presentation_id) if again else None
            self.show_notice(
                f"Undid your {what} on case {vote.case_id}"
                + ("; the pair is shown again." if again is not None else ".")
                + (f" It is flagged: “{note}”." if note else ""),
                pair=again,
            )

        self.ops.run(self._own, self._key(session.undo), undone)

    def flag(self) -> None:
        session = self._ready()
        if session is None:
            return
        ask = "What is wrong with it? (a broken prompt, a leak…)"
        note = dialogs.ask_text(self, "Flag this pair", ask, required=True)
        if note is not None:
            pair = self.current_pair()

            def flagged(_id: str) -> None:
                if pair is not None:
                    self.flagged[pair.presentation.presentation_id] = note
                self.show_notice(
                    "Pair flagged (Shift+F lists the flags). Vote on it, or skip it.", pair=pair
                )

            self.ops.run(self._own, lambda: session.flag(note), flagged)

    def show_notice(self, text: str, *, pair: Pair | None = None) -> None:
        """A banner above the pair; with ``pair``, it goes when another pair is shown."""
        self.notice.setText(text)
        self.notice_pair = pair.presentation.presentation_id if pair is not None else None
        self.notice.show()
        self.notice_close.show()

    def hide_notice(self) -> None:
        self.notice_pair = None
        self.notice.hide()
        self.notice_close.hide()


def stop_note(session: RatingSession) -> str:
    """The suggestion to stop (no claim about a system), or what can be said of the votes
    until it: held steady by the session, never more than the pairs left, in words where
    no figure can be believed (``arena.pairs.votes_left``)."""
    note = session.votes_left().note()
    return f"  ·  {note}" if note else ""


def clock_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
