"""The scheduling rule stated from scratch over the whole history: the reference that
``arena.pairs.scheduling.LiveScheduler`` (which keeps the rule up to date vote by vote) is
held to.

The rule itself is described in ``arena/pairs/scheduling.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from arena.pairs.adaptive import ADAPTIVE, DEFAULT_PAIR_CHOICE, even_floor
from arena.pairs.scheduling import (
    Entry,
    NextPair,
    RepeatPolicy,
    is_repeat_chosen,
    repeat_gap,
    resumed,
    seconds,
    system_pair,
)
from arena.pairs.settling import PendingPair
from arena.records import CaseId, OutputId, PresentationId, SessionId, SystemId, VoteId
from fitting import information


class Shown(NamedTuple):
    """One past presentation and the vote in force on it (None: no vote, or retracted):
    a row of the history, as the ledger reads it."""

    presentation_id: PresentationId
    case_id: CaseId
    left_output: OutputId
    right_output: OutputId
    repeat_of: PresentationId | None
    vote_id: VoteId | None
    choice: str | None
    # The session the vote was cast in and when (ISO 8601): how far back a repeat's vote is.
    session_id: SessionId | None = None
    voted_at: str | None = None
    # Who cast it: only the rater's own votes come back as repeats.
    actor: str | None = None


def _key(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def minutes_between(earlier: str | None, later: str) -> float | None:
    """Minutes from the ISO 8601 time ``earlier`` to ``later`` (None: either has no time)."""
    start, end = seconds(earlier), seconds(later)
    return None if start is None or end is None else (end - start) / 60


def pair_order(candidate: PendingPair, systems: Mapping[OutputId, SystemId]) -> tuple:
    """The fixed order the tie-break draws in: system pair, case, outputs."""
    return (
        system_pair(systems[candidate.output_a], systems[candidate.output_b]),
        candidate.case_id,
        candidate.output_a,
        candidate.output_b,
    )


class Scheduler:
    """Plans the next presentation of one family."""

    def __init__(
        self,
        candidates: Iterable[PendingPair],
        systems: Mapping[OutputId, SystemId],
        history: Sequence[Shown],
        *,
        seed: int,
        repeats: RepeatPolicy | None = None,
        session: SessionId | None = None,
        now: str = "",
        pair_choice: str = DEFAULT_PAIR_CHOICE,
        once_per_case: bool = False,
        rater: str | None = None,
    ) -> None:
        """``session``: the session showing pairs now; ``now``: the time (ISO 8601);
        ``rater``: whose votes may be repeated (None: anyone's)."""
        self.rater = rater
        self.pair_choice = pair_choice
        self.once_per_case = once_per_case
        self.candidates = list(candidates)
        self.systems = systems
        self.history = list(history)
        self.seed = seed
        self.policy = repeats or RepeatPolicy()
        self.session = session
        self.now = now

    # -- progress --------------------------------------------------------------

    def _voted_pairs(self) -> set[frozenset[str]]:
        return {
            _key(s.left_output, s.right_output)
            for s in self.history
            if s.vote_id is not None and s.choice != "skip" and s.repeat_of is None
        }

    def _unit(self, c: PendingPair) -> tuple:
        """What one vote closes: the pair, or (tests_then_votes) its case and system pair."""
        if self.once_per_case:
            return (c.case_id, self._system_pair(c.output_a, c.output_b))
        return (_key(c.output_a, c.output_b),)

    def _voted_units(self) -> set[tuple]:
        voted = self._voted_pairs()
        return {self._unit(c) for c in self.candidates if _key(c.output_a, c.output_b) in voted}

    def progress(self) -> tuple[int, int]:
        """(pairs with a vote in force, pairs for the rater) of this family."""
        return len(self._voted_units()), len({self._unit(c) for c in self.candidates})

    # -- choosing ----------------------------------------------------------------

    def next(self) -> NextPair | None:
        """The next pair to show, or None when nothing is left."""
        again = resumed(dict(enumerate(Entry(*s) for s in self.history)), len(self.history))
        if again is not None:
            return again
        rng = np.random.default_rng([self.seed, len(self.history)])
        last_case = self.history[-1].case_id if self.history else None
        # A third pair of the same two systems in a row only when nothing else is left.
        last_two = {self._system_pair(s.left_output, s.right_output) for s in self.history[-2:]}
        avoid = last_two.pop() if len(self.history) >= 2 and len(last_two) == 1 else None
        fresh = self._fresh(rng, last_case, avoid)
        repeat = self._due_repeat(last_case, finished=fresh is None, avoid=avoid)
        if repeat is not None:
            return repeat
        if fresh is None and avoid is not None:
            return self._due_repeat(last_case, finished=True)
        return fresh

    def _fresh(
        self, rng: np.random.Generator, last_case: CaseId | None, avoid: frozenset[str] | None
    ) -> NextPair | None:
        voted = self._voted_units()
        open_ = [c for c in self.candidates if self._unit(c) not in voted]
        if not open_:
            return None
        skips = Counter(
            _key(s.left_output, s.right_output) for s in self.history if s.choice == "skip"
        )
        pair_votes: Counter[frozenset[str]] = Counter()
        case_votes: Counter[str] = Counter()
        for s in self.history:
            if s.vote_id is not None and s.choice != "skip" and s.repeat_of is None:
                pair_votes[self._system_pair(s.left_output, s.right_output)] += 1
                case_votes[s.case_id] += 1
        other_case = [c for c in open_ if c.case_id != last_case]
        # Another case first, then another system pair than ``avoid``, if any.
        pool = next(
            group
            for group in (
                [c for c in other_case if self._system_pair(*_outputs(c)) != avoid],
                other_case,
                [c for c in open_ if self._system_pair(*_outputs(c)) != avoid],
                open_,
            )
            if group
        )
        # The fewest skips; then a system pair drawn among the least voted (or, with
        # adaptive choice after the coverage phase, the one of most use to the order).
        fewest_skips = min(skips[_key(*_outputs(c))] for c in pool)
        level = [c for c in pool if skips[_key(*_outputs(c))] == fewest_skips]
        pairs = sorted({self._system_pair(*_outputs(c)) for c in level}, key=sorted)
        fewest = min(pair_votes[p] for p in pairs)
        if self.pair_choice == ADAPTIVE and fewest:
            drawn = [self._most_useful(pairs)]
        else:
            drawn = [p for p in pairs if pair_votes[p] == fewest]
        pair = drawn[int(rng.integers(len(drawn)))]
        # Within it, the pairs on the cases with the fewest votes, in ``pair_order``.
        in_pair = [c for c in level if self._system_pair(*_outputs(c)) == pair]
        lowest = min(case_votes[c.case_id] for c in in_pair)
        tied = sorted(
            (c for c in in_pair if case_votes[c.case_id] == lowest),
            key=lambda c: pair_order(c, self.systems),
        )
        chosen = tied[int(rng.integers(len(tied)))]
        left, right = self._sides(chosen.output_a, chosen.output_b, rng)
        return NextPair(chosen.case_id, left, right)

    def _system_pair(self, a: OutputId, b: OutputId) -> frozenset[str]:
        return _key(self.systems[a], self.systems[b])

    def _most_useful(self, pairs: list[frozenset[str]]) -> frozenset[str]:
        """The pair whose next vote the scheduler's model values most (the first in
        sorted order on a tie), from a win matrix counted here from the history."""
        names = sorted(set(self.systems.values()))
        at = {name: i for i, name in enumerate(names)}
        wins = np.zeros((len(names), len(names)))
        even = np.zeros((len(names), len(names)))
        for s in self.history:
            if s.vote_id is None or s.choice == "skip" or s.repeat_of is not None:
                continue
            i, j = at[self.systems[s.left_output]], at[self.systems[s.right_output]]
            if s.choice == "left":
                wins[i, j] += 1
            elif s.choice == "right":
                wins[j, i] += 1
            else:
                wins[i, j] += 0.5
                wins[j, i] += 0.5
                even[i, j] += 1
                even[j, i] += 1
        ordered = [tuple(sorted(p)) for p in pairs]
        first = np.array([at[a] for a, _ in ordered])
        second = np.array([at[b] for _, b in ordered])
        gains = information.order_gain(information.posterior(wins), first, second)
        # A tie tells nothing about which is ahead: the ties, as few as plausible, discount it.
        return pairs[int(np.argmax(gains * (1.0 - even_floor(wins, even)[first, second])))]

    def _sides(
        self, a: OutputId, b: OutputId, rng: np.random.Generator
    ) -> tuple[OutputId, OutputId]:
        sa, sb = self.systems[a], self.systems[b]
        in_pair: Counter[str] = Counter()
        overall: Counter[str] = Counter()
        for s in self.history:
            if s.vote_id is None:
                continue
            left, right = self.systems[s.left_output], self.systems[s.right_output]
            overall[left] += 1
            overall[right] -= 1
            if _key(left, right) == _key(sa, sb):
                in_pair[left] += 1
        if in_pair[sa] != in_pair[sb]:
            return (a, b) if in_pair[sa] < in_pair[sb] else (b, a)
        if overall[sa] != overall[sb]:
            return (a, b) if overall[sa] < overall[sb] else (b, a)
        return (a, b) if rng.random() < 0.5 else (b, a)

    def _tips_sides(self, left: OutputId, right: OutputId) -> bool:
        """Whether ``left`` on the left puts its system there twice more than the other's."""
        sl, sr = self.systems[left], self.systems[right]
        shown_left: Counter[str] = Counter()
        for s in self.history:
            if s.vote_id is not None:
                a, b = self.systems[s.left_output], self.systems[s.right_output]
                if _key(a, b) == _key(sl, sr):
                    shown_left[a] += 1
        return shown_left[sl] > shown_left[sr]

    def _due_repeat(
        self, last_case: CaseId | None, *, finished: bool, avoid: frozenset[str] | None = None
    ) -> NextPair | None:
        repeated = {
            s.repeat_of for s in self.history if s.repeat_of is not None and s.vote_id is not None
        }
        position = len(self.history)
        policy = self.policy
        due: list[NextPair] = []
        for index, s in enumerate(self.history):
            if (
                s.vote_id is None
                or s.choice == "skip"
                or s.repeat_of is not None
                or s.presentation_id in repeated
                or self.rater not in (None, s.actor)
                or not is_repeat_chosen(s.vote_id, policy.share)
                or self._system_pair(s.left_output, s.right_output) == avoid
            ):
                continue
            # Long enough ago (a vote of unknown time is), and far enough back in the
            # session, or in an earlier session, or nothing else is left to show.
            minutes = minutes_between(s.voted_at, self.now)
            if minutes is not None and minutes < policy.minutes:
                continue
            if self._tips_sides(s.right_output, s.left_output):
                continue  # it waits for a showing the other way to even the sides
            if (
                finished
                or s.session_id != self.session
                or position - index >= repeat_gap(s.vote_id, policy.gap)
            ):
                due.append(
                    NextPair(s.case_id, s.right_output, s.left_output, repeat_of=s.presentation_id)
                )
        if not due:
            return None
        other_case = [d for d in due if d.case_id != last_case]
        if other_case:
            return other_case[0]
        return due[0] if finished or len({c.case_id for c in self.candidates}) <= 1 else None


def _outputs(c: PendingPair) -> tuple[OutputId, OutputId]:
    return c.output_a, c.output_b
