"""A rating session: what the rater window (and the crash harness) calls to vote.

Each presentation is recorded as it is first shown: the first when the session
asks for it, each after it in the commit of the vote before it, so a vote is
durable before the next pair is handed out, with one commit a key. A write that
fails raises and leaves the session on the same pair. The scheduler starts from a
summary of the family's history (its kept counts and the presentations at the end,
``arena.ledger.history.family_summary``), not from every vote, and is told of every
presentation, vote and undo, so that opening a family and a key cost about the same at
100 or 100,000 past votes; ``refresh`` reads it again after changes made elsewhere (an
import, a correction) or an undo back past what it read.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from arena import cycle_gc, family_state
from arena.clock import now_iso
from arena.errors import BadInput
from arena.ledger import (
    Ledger,
    catalog,
    draws,
    events,
    family_changes,
    soundness,
    tallies,
    voting,
)
from arena.ledger.history import family_summary
from arena.pairs import adaptive, unsure
from arena.pairs.scheduling import LiveScheduler, NextPair, RepeatPolicy, Standing
from arena.pairs.votes_left import Gauge, VotesLeft
from arena.rating import raters
from arena.rating.leaks import LeakFinder
from arena.records import (
    IDLE_CAP_MS,
    VOTE_CHOICES,
    Case,
    Choice,
    Family,
    Output,
    OutputId,
    Presentation,
    PresentationId,
    Session,
    Vote,
    VoteId,
)

# Outputs kept with their texts: the pair on screen and those that may come next.
RECENT_OUTPUTS = 16


@dataclass(frozen=True)
class PairView:
    """What the window shows: never the system names."""

    presentation: Presentation
    case: Case
    left: Output
    right: Output
    # Readable warning when an output names a system of the family (``LeakFinder``), else "".
    identity_leak: str


@dataclass(frozen=True)
class Upcoming:
    """The pair most likely shown next, for rendering ahead."""

    case: Case
    left: Output
    right: Output


class RatingSession:
    """One sitting of a rater on one family."""

    def __init__(
        self,
        ledger: Ledger,
        family: str,
        *,
        seed: int | None = None,
        repeat_share: float | None = None,
        repeats: RepeatPolicy | None = None,
        pair_choice: str | None = None,
        actor: str = raters.DEFAULT_RATER,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], str] = now_iso,
    ) -> None:
        """``repeats``: how often and how far apart repeats come (default: the family's
        settings, `arena family set --repeat-…`); ``repeat_share`` overrides its share.
        ``clock`` times each vote; ``wall_clock`` stamps presentations and votes (ISO
        8601) and tells the scheduler how long ago a vote was cast. ``pair_choice``: how
        the next system pair is chosen once each has a vote (``arena.pairs.adaptive``; default:
        the family's, `arena family set --pairs`). ``actor``: the rater at the keyboard
        (``arena.rating.raters``): the session's votes carry the name, only its own votes
        come back as repeats, and its own are counted apart (``own_votes``)."""
        found = catalog.get_family(ledger, family)
        if found is None:
            raise catalog.no_such_family(ledger, family)
        if found.kind == "graded":
            raise BadInput(
                f"{family} is a graded family: graders score it, not votes", field="--family"
            )
        self.ledger = ledger
        self.family: Family = found
        policy = repeats or RepeatPolicy.of(family_changes.repeat_settings(ledger, family))
        if repeat_share is not None:
            policy = dataclasses.replace(policy, share=repeat_share)
        self.repeats = policy
        self.pair_choice = pair_choice or adaptive.choice_of(ledger, family)
        self.actor = raters.checked(actor)
        self.clock = clock
        self.wall_clock = wall_clock
        # The first presentation the scheduler read one by one: read again from there.
        self._since: int | None = None
        with cycle_gc.paused():
            state = family_state.for_rating(ledger, family)
            self.session: Session = voting.start_session(
                ledger,
                family,
                seed=secrets.randbits(31) if seed is None else seed,
                actor=self.actor,
            )
            self._read(state)
        self._current: PairView | None = None
        self._shown_clock = 0.0
        # The votes-left reading, steadied over this session's votes (not reset by a
        # refresh), and the counts it was last read at.
        self.gauge = Gauge()
        self._gauged: tuple[bytes, tuple[int, int]] | None = None
        self._votes_left: VotesLeft | None = None

    def refresh(self) -> None:
        """Re-read the family and its history: something outside this session changed them."""
        with cycle_gc.paused():
            self._read(family_state.for_rating(self.ledger, self.family.name))

    def _read(self, state: family_state.ForRating) -> None:
        name = self.family.name
        self.cases = state.cases
        self.untested = state.untested
        self._recent: OrderedDict[OutputId, Output] = OrderedDict()
        summary, self._since = family_summary(
            self.ledger,
            name,
            share=self.repeats.share,
            rater=self.actor,
            since=self._since,
            places=state.places,
        )
        self.scheduler = LiveScheduler(
            state.pending,
            state.systems,
            summary,
            seed=self.session.seed,
            repeats=self.repeats,
            session=self.session.session_id,
            clock=self.wall_clock,
            pair_choice=self.pair_choice,
            once_per_case=self.family.kind == "tests_then_votes",
            # Odd and even sessions, as split-half τ halves them: each steered by its own.
            halves={s.session_id: s.number % 2 for s in voting.sessions(self.ledger, name)},
            rater=self.actor,
            # A run judge's unsure items, read once: drawn first more often (pairs.unsure).
            unsure=unsure.for_session(self.ledger, name),
        )
        # Everyone who voted or sat a session in the family, this rater among them.
        self.raters = tallies.raters(self.ledger, name)
        self.find_leak = LeakFinder.for_systems(catalog.systems(self.ledger, name))

    def progress(self) -> tuple[int, int]:
        """(pairs voted, pairs for the rater) of the whole family, by every rater."""
        return self.scheduler.progress()

    def own_votes(self) -> int:
        """The votes in force this rater cast in the family, in any session (skips apart,
        repeats included: what `arena status` counts as the rater's votes)."""
        return self.scheduler.own_votes

    def order_settled(self) -> bool:
        """Whether more votes are unlikely to change the board's order (a suggestion that
        the rater may stop; ``LiveScheduler.order_settled``)."""
        return self.scheduler.order_settled()

    def votes_left(self) -> VotesLeft:
        """What the status line says of the votes left: the model's reading, held steady
        from vote to vote by this session's gauge (``arena.pairs.votes_left``). Asked
        again with no vote between, it says the same."""
        counted = (self.scheduler.model.wins.tobytes(), self.progress())
        if counted != self._gauged:
            self._gauged = counted
            self._votes_left = self.gauge.update(self.scheduler.votes_left())
        assert self._votes_left is not None
        return self._votes_left

    def current(self) -> PairView | None:
        """The pair on screen, recording its presentation when it is first shown."""
        if self._current is None:
            planned = self.scheduler.next()
            if planned is None:
                return None
            self._current = self._present(planned)
            self._shown_clock = self.clock()
        return self._current

    def peek_next(self) -> list[Upcoming]:
        """The pairs that may be shown after a vote on the one on screen (a guess: whether
        that vote brings a repeat depends on its id, which does not exist yet; with
        adaptive choice the next pair depends on the vote, so one per outcome). Their outputs
        are searched for system names now, as the window renders them now, so that showing
        one costs neither."""
        view = self._current
        if view is None:
            return []
        upcoming = []
        for planned in self.scheduler.peek_after(view.presentation.presentation_id):
            left, right = self.output(planned.left_output), self.output(planned.right_output)
            for output in (left, right):
                self.find_leak.find(output.text)
            upcoming.append(Upcoming(self.cases[planned.case_id], left, right))
        return upcoming

    def output(self, output_id: OutputId) -> Output:
        """An output of the family with its text. Texts are read as their pairs come up, not
        all when the session starts; the last few read are kept (peeked at, then shown)."""
        found = self._recent.pop(output_id, None) or catalog.get_output(self.ledger, output_id)
        assert found is not None, output_id  # the scheduler has only this family's outputs
        self._recent[output_id] = found
        while len(self._recent) > RECENT_OUTPUTS:
            self._recent.popitem(last=False)
        return found

    def _present(self, planned: NextPair) -> PairView:
        if planned.resume is not None:
            presentation = voting.get_presentation(self.ledger, planned.resume)
            assert presentation is not None  # it came from this ledger's history
        else:
            presentation = Presentation(
                PresentationId(voting.new_id()),
                self.session.session_id,
                self.family.name,
                planned.case_id,
                planned.left_output,
                planned.right_output,
                self.wall_clock(),
                planned.repeat_of,
            )
            with self.ledger.atomic():
                voting.record_presentation(self.ledger, presentation)
                draws.add_draw(
                    self.ledger,
                    self.family.name,
                    presentation.presentation_id,
                    planned.probability,
                    planned.candidates,
                    planned.unsure,
                )
            self.scheduler.shown(
                presentation.presentation_id,
                presentation.case_id,
                presentation.left_output,
                presentation.right_output,
                presentation.repeat_of,
            )
        left, right = self.output(planned.left_output), self.output(planned.right_output)
        case = self.cases[planned.case_id]
        return PairView(presentation, case, left, right, self.find_leak((left, right), case.prompt))

    def _record(self, choice: Choice, comment: str) -> Vote:
        view = self.current()
        if view is None:
            raise BadInput("there is no pair left to vote on", field="choice")
        p = view.presentation
        repeat_of = None
        if p.repeat_of is not None:
            repeat_of = self.scheduler.entry(p.repeat_of).vote_id
        elapsed = int((self.clock() - self._shown_clock) * 1000)
        vote = Vote(
            VoteId(voting.new_id()),
            p.presentation_id,
            self.session.session_id,
            self.family.name,
            p.case_id,
            p.left_output,
            p.right_output,
            choice,
            p.shown_at,
            self.wall_clock(),
            min(max(elapsed, 0), IDLE_CAP_MS),
            self.actor,
            repeat_of,
            comment,
            bool(view.identity_leak),
        )
        # The vote and the presentation of the pair after it commit together: one durable
        # commit, seal and head file a key instead of two.
        try:
            with self.ledger.atomic():
                try:
                    voting.record_vote(self.ledger, vote)
                except voting.AlreadyVoted as done:
                    # A press again after a failure that came after the commit: the first
                    # vote stands.
                    vote = done.standing
                self.scheduler.voted(
                    p.presentation_id,
                    vote.vote_id,
                    vote.choice,
                    session_id=vote.session_id,
                    voted_at=vote.voted_at,
                    actor=vote.actor,
                )
                planned = self.scheduler.next()
                following = None if planned is None else self._present(planned)
        except BaseException:
            # The pair stays on screen. The scheduler reads again what the ledger holds:
            # nothing of this key, or, when only the head file failed after the commit,
            # the vote, which a press again finds standing (``AlreadyVoted``).
            self.refresh()
            raise
        self._current = following
        self._shown_clock = self.clock()
        return vote

    def vote(self, choice: Choice, comment: str = "") -> Vote:
        if choice not in VOTE_CHOICES:
            raise BadInput(f"choice must be one of {', '.join(VOTE_CHOICES)}", field="choice")
        return self._record(choice, comment)

    def skip(self, comment: str = "") -> Vote:
        return self._record("skip", comment)

    def undo(self) -> Vote | None:
        """Retract the rater's newest vote in this family; its pair is shown again next."""
        undone = voting.undo_last(
            self.ledger, self.family.name, actor=self.actor, session_id=self.session.session_id
        )
        if undone is None:
            return None
        self._current = None
        if self.scheduler.knows(undone.presentation_id):
            standing = voting.vote_on(self.ledger, undone.presentation_id)
            self.scheduler.retracted(
                undone.presentation_id,
                Standing(
                    standing.vote_id,
                    standing.choice,
                    standing.session_id,
                    standing.voted_at,
                    standing.actor,
                )
                if standing
                else None,
            )
        if not self.scheduler.knows(undone.presentation_id) or (self.scheduler.short_of_history()):
            # A vote this session never read (written by someone else since), or an undo
            # back past the presentations it read.
            self.refresh()
        return undone

    def flag(self, note: str) -> str:
        """Flag the pair on screen (a broken prompt, a leak…) with a note, as an event."""
        view = self.current()
        if view is None:
            raise BadInput("there is no pair to flag", field="flag")
        return events.add_event(
            self.ledger,
            self.family.name,
            "flag",
            case_id=view.case.case_id,
            presentation_id=view.presentation.presentation_id,
            note=note,
        )


def sitting(ledger: Ledger, family: str, actor: str = raters.DEFAULT_RATER) -> RatingSession:
    """A session on ``family``, once the ledger is found sound where that costs no read of
    the family's rows (its guards, rows added outside Arena, the head file): checked as a
    sitting starts, never at a vote; closing a round and importing read them all again."""
    soundness.require_sound(ledger, family, soundness.VOTING, rows=False)
    return RatingSession(ledger, family, actor=actor)
