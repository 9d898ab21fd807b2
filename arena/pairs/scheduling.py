"""Which pair the rater sees next, and on which sides.

Pure: the family's pending pairs and its presentation history in, one
choice out. Everything is derived from the ledger's rows and the session's
recorded seed, so a restart (or a crash) resumes exactly where it stopped:

- Coverage first: among the pairs with no vote in force (skipped pairs last), a
  generator seeded from the session seed and the presentation count draws one of
  the system pairs with the fewest votes, then one of its pairs on the cases with
  the fewest votes, in a fixed order (system pair, case, outputs); so the rating
  session's index (``arena.pairs.pair_index``) picks without visiting every pair. With adaptive
  choice (``arena.pairs.adaptive``), once every system pair has a vote, the system
  pair is the one whose next vote tells most about the board's order instead.
- One vote per task and system pair in ``tests_then_votes`` families: a vote on one
  of their pairs closes the others.
- Never the same case twice in a row when another case is available; then never a
  third pair of the same two systems in a row (a repeat included) when another system
  pair has a pair left, or, once no unvoted pair is left, a repeat due. A rater who
  cannot tell two systems apart is not served a run of them (with adaptive choice their
  ties also lower their value: ``arena.pairs.adaptive``).
- Sides: within a system pair each system sits left as often as right
  (difference at most 1); on a tie, the system placed left less often overall
  goes left; on a tie again, the generator decides. A repeat that would tip its
  pair's sides beyond 1 waits for a showing the other way to even them (a first
  showing, or a repeat of a vote the other way round); if none comes, it is never
  shown: sides stay within one over every presentation, repeats included.
- Repeats: a voted pair is chosen for a repeat when a hash of its vote id falls
  under the repeat share and the vote is the rater's own (a colleague's vote, imported,
  is no measure of this rater's consistency; coverage, adaptive choice and sides count
  every rater's votes: the board is one); it comes back sides swapped, indistinguishable from a
  first showing, once both hold (``RepeatPolicy``): at least ``minutes`` have
  passed since its vote, and at least ``gap`` other pairs were shown since (a
  hash of the vote id adds up to a third more), or the vote was cast in an
  earlier session, or no unvoted pair is left. A rater remembers a pair seen a
  few minutes ago: a repeat that soon measures memory, not consistency
  (``tests/pairs/test_repeat_memory.py`` simulates one).

``LiveScheduler`` keeps this rule up to date vote by vote: it starts from a summary of
the family's history (``HistorySummary``: the counts of every vote in force, and one by one
only the presentations at the end and those whose votes wait for their repeat), which the
rating session reads from the ledger's kept counts (``arena.ledger.history``), and then
the session tells it what it shows, what is voted and what is undone; each of those, and
each choice, costs the same at 100 or 100,000 past votes. A restart reads the same
summary into the same state, so it resumes exactly. The tests state the rule again from
scratch over the whole history (``tests/pairs/reference_scheduler.py``) and hold the two
to the same choices on random histories, and hold a scheduler started from the ledger's
summary to the choices of one that read every presentation
(``tests/rating/test_summary_start.py``).
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

import numpy as np

from arena.clock import now_iso
from arena.ledger import repeat_draws
from arena.pairs.adaptive import (
    ADAPTIVE,
    DEFAULT_PAIR_CHOICE,
    PAIR_CHOICES,
    OrderModel,
)
from arena.pairs.pair_index import PairIndex, PairKey, SystemPair, pair_key
from arena.pairs.settling import PendingPair, PendingPairs
from arena.pairs.votes_left import VotesLeft
from arena.records import (
    CaseId,
    HistorySummary,
    OutputId,
    PairShowings,
    PresentationId,
    SessionId,
    ShownRow,
    SystemId,
    VoteId,
)

DEFAULT_REPEAT_SHARE = 0.10
# Other pairs shown between a vote and its repeat within a session, at least.
DEFAULT_REPEAT_GAP = 30
# Minutes between a vote and its repeat, at least, whatever the session.
DEFAULT_REPEAT_MINUTES = 20.0


@dataclass(frozen=True)
class RepeatPolicy:
    """How often repeats come and how far from their vote (a family's settings, or these
    defaults); a value out of range is a ``ValueError`` naming the setting."""

    share: float = DEFAULT_REPEAT_SHARE
    gap: int = DEFAULT_REPEAT_GAP
    minutes: float = DEFAULT_REPEAT_MINUTES

    def __post_init__(self) -> None:
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"repeat_share must be within [0, 1], not {self.share}")
        if isinstance(self.gap, bool) or not isinstance(self.gap, int) or self.gap < 0:
            raise ValueError(f"repeat_gap must be a whole number of pairs ≥ 0, not {self.gap}")
        if not (math.isfinite(self.minutes) and self.minutes >= 0):
            raise ValueError(f"repeat_minutes must be a number ≥ 0, not {self.minutes}")

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> RepeatPolicy:
        """The policy of a family's repeat settings (``repeat_share``, ``repeat_gap``,
        ``repeat_minutes``; one not given keeps its default)."""
        return cls(
            share=float(settings.get("repeat_share", DEFAULT_REPEAT_SHARE)),
            gap=settings.get("repeat_gap", DEFAULT_REPEAT_GAP),
            minutes=float(settings.get("repeat_minutes", DEFAULT_REPEAT_MINUTES)),
        )


@dataclass(frozen=True)
class NextPair:
    case_id: CaseId
    left_output: OutputId
    right_output: OutputId
    repeat_of: PresentationId | None = None
    # Set when this is a presentation already recorded but never voted: show it again.
    resume: PresentationId | None = None
    # How the case was drawn within its system pair (``arena.pairs.unsure``): with this
    # probability among this many candidates, and whether a run judge was unsure of it;
    # a repeat is certain (1 of 1). Not part of what the pair is.
    probability: float = field(default=1.0, compare=False)
    candidates: int = field(default=1, compare=False)
    unsure: bool = field(default=False, compare=False)


def is_repeat_chosen(vote_id: str, share: float) -> bool:
    return repeat_draws.draw(vote_id) < share


def repeat_gap(vote_id: str, least: int = DEFAULT_REPEAT_GAP) -> int:
    """Presentations from a vote to its repeat within a session: ``least`` other pairs in
    between, and up to a third more (fixed by the vote id), so the spacing is no rhythm."""
    return least + 1 + int(repeat_draws.unit("gap:" + vote_id) * (least // 3 + 1))


def seconds(time: str | None) -> float | None:
    """The ISO 8601 ``time`` in seconds since the epoch (None: no time, or none that reads
    as one); a time without a zone is UTC, as the ledger writes them."""
    if time is None:
        return None
    try:
        read = datetime.fromisoformat(time)
    except ValueError:
        return None
    return (read if read.tzinfo else read.replace(tzinfo=UTC)).timestamp()


def repeat_due(
    policy: RepeatPolicy,
    *,
    since: int,
    gap: int,
    minutes: float | None,
    earlier_session: bool,
    finished: bool,
) -> bool:
    """Whether a repeat may come back now: ``since`` presentations after its vote's (``gap``
    needed within a session), ``minutes`` after its vote (None: unknown, long ago), its
    vote cast in an ``earlier_session``, or the family ``finished`` (no unvoted pair left)."""
    if minutes is not None and minutes < policy.minutes:
        return False
    return finished or earlier_session or since >= gap


def resumed(history: Mapping[int, Entry], count: int) -> NextPair | None:
    """The oldest of the presentations at the end with no vote in force, shown again.

    ``history``: the presentations known, by their places; ``count``: how many the family
    holds. They were cut short by a crash or undone: showing them again, oldest first,
    makes undo walk back step by step.
    """
    start = count
    while start > 0 and (before := history.get(start - 1)) is not None and before.vote_id is None:
        start -= 1
    if start == count:
        return None
    again = history[start]
    return NextPair(
        again.case_id,
        again.left_output,
        again.right_output,
        again.repeat_of,
        resume=again.presentation_id,
    )


def system_pair(a: SystemId, b: SystemId) -> tuple[SystemId, SystemId]:
    return (a, b) if a <= b else (b, a)


class Standing(NamedTuple):
    """A vote in force on a presentation: its id, choice, session, time and actor."""

    vote_id: VoteId
    choice: str
    session_id: SessionId | None = None
    voted_at: str | None = None
    actor: str | None = None


@dataclass(slots=True)
class Entry:
    """One presentation of the history and the vote in force on it."""

    presentation_id: PresentationId
    case_id: CaseId
    left_output: OutputId
    right_output: OutputId
    repeat_of: PresentationId | None
    vote_id: VoteId | None = None
    choice: str | None = None
    session_id: SessionId | None = None
    voted_at: str | None = None
    actor: str | None = None
    # Presentations from here on until it is due again, when this vote is chosen for a repeat.
    gap: int | None = None
    # ``voted_at`` in seconds, read when first needed (NaN: not read yet).
    cast: float | None = math.nan


def summarize(
    history: Iterable[ShownRow],
    systems: Mapping[OutputId, SystemId],
    halves: Mapping[SessionId, int] | None = None,
) -> HistorySummary:
    """A whole history counted as ``arena.ledger.history`` reads its summary from the
    ledger's kept counts: every presentation kept as a row. ``halves``: each session's
    half (the parity of its number)."""
    rows = tuple(enumerate(history))
    halves = halves or {}
    sides: Counter[tuple[SystemId, SystemId]] = Counter()
    first: Counter[tuple[SystemId, SystemId, str, int]] = Counter()
    by_actor: Counter[str] = Counter()
    # Each pair's [votes, skips], its outputs numbered as they come.
    pairs: dict[tuple[int, int], list[int]] = {}
    numbers: dict[OutputId, int] = {}
    cases: list[CaseId] = []
    for _, row in rows:
        _, case_id, left, right, repeat_of, vote_id, choice, session_id = row[:8]
        actor = row[9] if len(row) > 9 else None
        if vote_id is None or choice is None:
            continue
        sides[(systems[left], systems[right])] += 1
        a, b = (numbers.setdefault(o, len(numbers)) for o in pair_key(left, right))
        cases += [case_id] * (len(numbers) - len(cases))  # the case of each output numbered
        counts = pairs.setdefault((a, b), [0, 0])
        if choice == "skip":
            counts[1] += 1
            continue
        by_actor[actor or ""] += 1
        if repeat_of is None:
            half = -1 if session_id is None else halves.get(session_id, -1)
            first[(systems[left], systems[right], choice, half)] += 1
            counts[0] += 1
    keys = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    tallied = np.array(list(pairs.values()), dtype=np.int64).reshape(-1, 2)
    return HistorySummary(
        presentations=len(rows),
        rows=rows,
        sides=tuple((*k, n) for k, n in sides.items()),
        first_showings=tuple((*k, n) for k, n in first.items()),
        by_actor=tuple(by_actor.items()),
        pairs=PairShowings(
            outputs=tuple(numbers),
            cases=tuple(cases),
            first=keys[:, 0],
            second=keys[:, 1],
            votes=tallied[:, 0],
            skips=tallied[:, 1],
        ),
    )


class LiveScheduler:
    """Plans the next presentation of one family from a history kept in memory."""

    def __init__(
        self,
        candidates: Iterable[PendingPair] | PendingPairs,
        systems: Mapping[OutputId, SystemId],
        history: Iterable[ShownRow] | HistorySummary,
        *,
        seed: int,
        repeats: RepeatPolicy | None = None,
        session: SessionId | None = None,
        clock: Callable[[], str] = now_iso,
        pair_choice: str = DEFAULT_PAIR_CHOICE,
        once_per_case: bool = False,
        halves: Mapping[SessionId, int] | None = None,
        rater: str | None = None,
        unsure: Mapping[SystemPair, Collection[CaseId]] | None = None,
    ) -> None:
        """``history``: a summary of the family's history (what a rating session reads,
        ``arena.ledger.history.family_summary``), or its presentations in order, as rows
        of their fields (the vote's actor last, where it is known), summarised here.
        ``session``: the session showing the pairs now; ``clock``: the time now, as
        ISO 8601 (how long ago a vote waiting for its repeat was cast); ``pair_choice``:
        after the coverage phase, the system pair of most use to the board's order
        (``adaptive``) or the least voted (``coverage``); ``once_per_case``: one vote per
        case and system pair (``tests_then_votes``); ``halves``: each session's half
        (the parity of its number): adaptive choice then steers a session by the votes of
        its own half alone, so that the odd and the even sessions are two boards each
        chosen from its own votes, as split-half τ compares them (votes of a session
        with no half count in both); ``rater``: whose votes may come back as repeats
        and are counted as ``own_votes`` (None: every vote, as in a one-rater ledger);
        ``unsure``: the cases of each system pair a run judge is unsure of, drawn first
        more often within their system pair (``arena.pairs.unsure``; None: uniformly)."""
        if pair_choice not in PAIR_CHOICES:
            raise ValueError(f"pair_choice must be one of {PAIR_CHOICES}, not {pair_choice!r}")
        self.systems = systems
        self.seed = seed
        self.policy = repeats or RepeatPolicy()
        self.session = session
        self.clock = clock
        self.rater = rater
        self.unsure = unsure
        summary = (
            history if isinstance(history, HistorySummary) else summarize(history, systems, halves)
        )
        # The presentations it knows, by their places in the family's, and how many
        # the family holds: the next one's place.
        self.history = {at: Entry(*row) for at, row in summary.rows}
        self.position = {e.presentation_id: at for at, e in self.history.items()}
        self.count = summary.presentations
        # The place from which it knows every presentation to the end.
        self.first = self.count
        while self.first - 1 in self.history:
            self.first -= 1
        # Side counts over every vote in force, skips and repeats included.
        self.in_pair: Counter[tuple[SystemPair, SystemId]] = Counter()
        self.overall: Counter[SystemId] = Counter()
        for left, right, n in summary.sides:
            self.in_pair[(system_pair(left, right), left)] += n
            self.overall[left] += n
            self.overall[right] -= n
        # Votes in force on repeats of each presentation it knows.
        self.repeated: Counter[PresentationId] = Counter(
            e.repeat_of
            for e in self.history.values()
            if e.vote_id is not None and e.repeat_of is not None
        )
        # Kept in both modes: it also tells when the order has settled (``order_settled``).
        self.model = OrderModel(systems.values())
        self.adaptive = pair_choice == ADAPTIVE
        # With halves, a model of each half's votes chooses that half's system pairs: a
        # model of every vote would steer the even sessions by the odd ones' answers and
        # the halves would agree more than two boards voted apart (docs/fitting.md).
        self.halves: Mapping[SessionId, int] = {}
        self.steer: dict[int, OrderModel] = {}
        if halves is not None and self.adaptive:
            self.halves = halves
            self.steer = {half: OrderModel(systems.values()) for half in (0, 1)}
        # The rater's votes in force (skips apart, repeats included): "your votes".
        self.own_votes = sum(n for actor, n in summary.by_actor if rater in (None, actor))
        counted = summary.first_showings
        for model, votes in [(self.model, counted)] + [
            (model, [v for v in counted if v[3] in (-1, half)])
            for half, model in self.steer.items()
        ]:
            model.count_all(
                [v[0] for v in votes],
                [v[1] for v in votes],
                [v[2] for v in votes],
                [v[4] for v in votes],
            )
        pair_votes: Counter[SystemPair] = Counter()
        for left, right, _, _, n in counted:
            pair_votes[system_pair(left, right)] += n
        self.index = PairIndex(
            candidates if isinstance(candidates, PendingPairs) else PendingPairs.of(candidates),
            summary.pairs,
            pair_votes,
            once_per_case=once_per_case,
        )
        for entry in self.history.values():
            entry.gap = self._gap(entry)
        # Places of voted pairs chosen for a repeat and not repeated yet, in order.
        # (Most entries have no gap: that test first.)
        self.repeats = sorted(
            at for at, e in self.history.items() if e.gap is not None and self._waiting(e)
        )

    # -- what the session tells it --------------------------------------------

    def shown(
        self,
        presentation_id: PresentationId,
        case_id: CaseId,
        left: OutputId,
        right: OutputId,
        repeat_of: PresentationId | None,
    ) -> None:
        self.position[presentation_id] = self.count
        self.history[self.count] = Entry(presentation_id, case_id, left, right, repeat_of)
        self.count += 1

    def voted(
        self,
        presentation_id: PresentationId,
        vote_id: VoteId,
        choice: str,
        *,
        session_id: SessionId | None = None,
        voted_at: str | None = None,
        actor: str | None = None,
    ) -> None:
        self._set(
            self.entry(presentation_id), Standing(vote_id, choice, session_id, voted_at, actor)
        )

    def retracted(
        self, presentation_id: PresentationId, in_force: Standing | tuple | None = None
    ) -> None:
        """The vote on ``presentation_id`` was retracted; ``in_force`` is what stands now."""
        self._set(self.entry(presentation_id), Standing(*in_force) if in_force else None)

    def entry(self, presentation_id: PresentationId) -> Entry:
        return self.history[self.position[presentation_id]]

    def knows(self, presentation_id: PresentationId) -> bool:
        return presentation_id in self.position

    def short_of_history(self) -> bool:
        """Whether the presentations at the end with no vote in force (shown again first)
        may reach back past the ones it knows: read the history again (an undo past
        them)."""
        start = self.count
        while start > self.first and self.history[start - 1].vote_id is None:
            start -= 1
        return 0 < self.first == start

    def progress(self) -> tuple[int, int]:
        """(pairs with a vote in force, pairs for the rater) of this family."""
        return self.index.progress()

    def order_settled(self) -> bool:
        """Whether more votes are unlikely to change the order: every system pair with
        pairs for the rater has a vote, and the model expects at most
        ``OrderModel.stop_discordance`` of the system pairs the wrong way round (2.5% at
        most, less for fewer than 15 systems). A suggestion to
        stop, not a claim about any system."""
        return self.model.settled(self._covered())

    def votes_to_settle(self) -> int | None:
        """About how many more votes until ``order_settled`` (0: it is), or None when it
        cannot be told (a system pair with pairs for the rater has no vote yet)."""
        return self.model.votes_to_settle(self._covered())

    def votes_left(self) -> VotesLeft:
        """The model's reading of the votes left (``arena.pairs.votes_left``), before it is
        held steady: the pairs left are those with no vote in force."""
        voted, total = self.progress()
        return self.model.outlook(self._covered(), total - voted)

    def _own(self, entry: Entry) -> bool:
        return self.rater is None or entry.actor == self.rater

    def _covered(self) -> bool:
        return all(self.index.pair_votes[p] for p in self.index.system_pairs())

    def _gap(self, entry: Entry) -> int | None:
        vote_id = entry.vote_id
        if (
            vote_id is None
            or entry.choice == "skip"
            or entry.repeat_of is not None
            or not self._own(entry)
        ):
            return None
        policy = self.policy
        return repeat_gap(vote_id, policy.gap) if is_repeat_chosen(vote_id, policy.share) else None

    def _set(self, entry: Entry, vote: Standing | None, *, may_repeat: bool = True) -> None:
        if entry.vote_id is not None:
            self._count(entry, -1)
        if vote is None:
            entry.vote_id = entry.choice = entry.session_id = entry.voted_at = entry.actor = None
        else:
            entry.vote_id, entry.choice, entry.session_id, entry.voted_at, entry.actor = vote
        entry.cast = math.nan
        entry.gap = self._gap(entry) if may_repeat else None
        if entry.vote_id is not None:
            self._count(entry, +1)
        original = entry.presentation_id if entry.repeat_of is None else entry.repeat_of
        if original in self.position:
            self._file(self.position[original])

    def _pair(self, entry: Entry) -> SystemPair:
        return system_pair(self.systems[entry.left_output], self.systems[entry.right_output])

    def _count_sides(self, entry: Entry, sign: int) -> None:
        left, right = self.systems[entry.left_output], self.systems[entry.right_output]
        self.in_pair[(system_pair(left, right), left)] += sign
        self.overall[left] += sign
        self.overall[right] -= sign
        if entry.repeat_of is not None:
            self.repeated[entry.repeat_of] += sign

    def _count(self, entry: Entry, sign: int) -> None:
        self._count_sides(entry, sign)
        if entry.choice == "skip":
            self.index.skip(_key(entry), sign)
            return
        if self._own(entry):
            self.own_votes += sign
        if entry.repeat_of is None:
            self.index.vote(_key(entry), self._pair(entry), entry.case_id, sign)
            left, right = self.systems[entry.left_output], self.systems[entry.right_output]
            self.model.count(left, right, entry.choice, sign)
            for half, model in self.steer.items():
                if self._in_half(entry, half):
                    model.count(left, right, entry.choice, sign)

    def _in_half(self, entry: Entry, half: int) -> bool:
        found = None if entry.session_id is None else self.halves.get(entry.session_id)
        return found is None or found == half

    def _chooser(self) -> OrderModel:
        """The model that steers the session showing pairs now: its half's, if it has one."""
        half = self.halves.get(self.session) if self.session is not None else None
        return self.model if half is None else self.steer[half]

    def _waiting(self, entry: Entry) -> bool:
        """Whether ``entry``'s vote waits for its repeat."""
        return (
            entry.vote_id is not None
            and entry.gap is not None
            and not self.repeated[entry.presentation_id]
        )

    def _file(self, position: int) -> None:
        """Keep ``repeats`` holding exactly the voted pairs still waiting for their repeat."""
        waiting = self._waiting(self.history[position])
        at = bisect_left(self.repeats, position)
        filed = at < len(self.repeats) and self.repeats[at] == position
        if waiting and not filed:
            insort(self.repeats, position)
        elif filed and not waiting:
            del self.repeats[at]

    # -- choosing ---------------------------------------------------------------

    def next(self) -> NextPair | None:
        """The next pair to show, or None when nothing is left."""
        again = resumed(self.history, self.count)
        if again is not None:
            return again
        rng = np.random.default_rng([self.seed, self.count])
        last_case = self.history[self.count - 1].case_id if self.count else None
        avoid = self._run_of_two()
        finished = not self.index.open_count
        repeat = self._due_repeat(last_case, finished=finished, avoid=avoid)
        if repeat is not None:
            return repeat
        chosen = self.index.pick(
            last_case, rng, self._chooser().best if self.adaptive else None, avoid, self.unsure
        )
        if chosen is None:
            # Nothing else is left: a repeat of the system pair shown twice may come.
            return None if avoid is None else self._due_repeat(last_case, finished=finished)
        probability, candidates, unsure = self.index.drawn
        left, right = self._sides(chosen.output_a, chosen.output_b, rng)
        return NextPair(
            chosen.case_id,
            left,
            right,
            probability=probability,
            candidates=candidates,
            unsure=unsure,
        )

    def _run_of_two(self) -> SystemPair | None:
        """The system pair of the last two presentations, if they share one: a third in a
        row comes only when nothing else is left."""
        if self.count < 2:
            return None
        last, before = (self._pair(self.history[self.count - at]) for at in (1, 2))
        return last if last == before else None

    def peek_after(self, presentation_id: PresentationId) -> list[NextPair]:
        """The pairs that may come once ``presentation_id`` has an ordinary vote (not
        picked for a repeat: the real vote's id, which decides that, does not exist yet):
        one, or with adaptive choice one per outcome that leads elsewhere."""
        entry = self.entry(presentation_id)
        if entry.vote_id is not None:
            planned = self.next()
            return [] if planned is None else [planned]
        found: list[NextPair] = []
        # "Both bad" counts as a tie; coverage-first does not look at the outcome.
        for choice in ("left", "right", "tie") if self.adaptive else ("left",):
            self._set(
                entry,
                Standing(VoteId(""), choice, self.session, actor=self.rater),
                may_repeat=False,
            )
            try:
                planned = self.next()
            finally:
                self._set(entry, None)
            if planned is not None and planned not in found:
                found.append(planned)
        return found

    def _sides(
        self, a: OutputId, b: OutputId, rng: np.random.Generator
    ) -> tuple[OutputId, OutputId]:
        sa, sb = self.systems[a], self.systems[b]
        pair = system_pair(sa, sb)
        in_a, in_b = self.in_pair[(pair, sa)], self.in_pair[(pair, sb)]
        if in_a != in_b:
            return (a, b) if in_a < in_b else (b, a)
        if self.overall[sa] != self.overall[sb]:
            return (a, b) if self.overall[sa] < self.overall[sb] else (b, a)
        return (a, b) if rng.random() < 0.5 else (b, a)

    def _tips_sides(self, entry: Entry) -> bool:
        """Whether showing ``entry`` again, sides swapped, would put one system of its
        pair on the left twice more than the other: it waits for a showing the other way
        (a first showing, or another repeat) to even them, and is not shown if none comes,
        so sides stay within one over every presentation."""
        left, right = self.systems[entry.right_output], self.systems[entry.left_output]
        pair = system_pair(left, right)
        return self.in_pair[(pair, left)] > self.in_pair[(pair, right)]

    def _due_repeat(
        self, last_case: CaseId | None, *, finished: bool, avoid: SystemPair | None = None
    ) -> NextPair | None:
        # The oldest due repeat of another case (and not of the system pair ``avoid``);
        # only the recent ones are not due yet.
        now = self.count
        first_due: Entry | None = None
        time_now = seconds(self.clock()) if self.repeats else None
        for position in self.repeats:
            entry = self.history[position]
            assert entry.gap is not None  # filed only with a gap
            if avoid is not None and self._pair(entry) == avoid:
                continue
            if entry.cast is not None and math.isnan(entry.cast):
                entry.cast = seconds(entry.voted_at)
            if not repeat_due(
                self.policy,
                since=now - position,
                gap=entry.gap,
                minutes=None
                if entry.cast is None or time_now is None
                else (time_now - entry.cast) / 60,
                earlier_session=entry.session_id != self.session,
                finished=finished,
            ) or self._tips_sides(entry):
                continue
            if entry.case_id != last_case:
                return _swapped(entry)
            first_due = first_due or entry
        if first_due is None or not (finished or self.index.single_case):
            return None
        return _swapped(first_due)


def _swapped(entry: Entry) -> NextPair:
    return NextPair(
        entry.case_id, entry.right_output, entry.left_output, repeat_of=entry.presentation_id
    )


def _key(entry: Entry) -> PairKey:
    return pair_key(entry.left_output, entry.right_output)
