"""Which pair the rater sees next, and on which sides.

Pure: the family's pending pairs and its presentation history in, one
choice out. Everything is derived from the ledger's rows and the session's
recorded seed, so a restart (or a crash) resumes exactly where it stopped:

- Coverage first: among the pairs with no vote in force, those whose system
  pair and case have the fewest votes (skipped pairs last). Among the equally
  low, in a fixed order (``pair_order``), one draw of a generator seeded from
  the session seed and the presentation count picks: a single draw, so the
  rating session's index (``arena.pairs.pair_index``) picks without visiting them all.
- Never the same case twice in a row when another case is available.
- Sides: within a system pair each system sits left as often as right
  (difference at most 1); on a tie, the system placed left less often overall
  goes left; on a tie again, the generator decides.
- Repeats: a voted pair is chosen for a repeat when a hash of its vote id falls
  under the repeat share; it comes back 3–10 presentations later (or at the
  end), sides swapped, indistinguishable from a first showing.

This class states the rule from scratch over the whole history; the rating
session keeps the same rule up to date vote by vote (``arena.pairs.live_scheduler``),
and a test holds the two to the same choices.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from arena.records import CaseId, OutputId, PresentationId, SystemId, VoteId

DEFAULT_REPEAT_SHARE = 0.10
REPEAT_GAP = (3, 10)


@dataclass(frozen=True)
class Shown:
    """One past presentation and the vote in force on it (None: no vote, or retracted)."""

    presentation_id: PresentationId
    case_id: CaseId
    left_output: OutputId
    right_output: OutputId
    repeat_of: PresentationId | None
    vote_id: VoteId | None
    choice: str | None


@dataclass(frozen=True)
class Candidate:
    """A pair the settling rules left for the rater."""

    case_id: CaseId
    output_a: OutputId
    output_b: OutputId


@dataclass(frozen=True)
class NextPair:
    case_id: CaseId
    left_output: OutputId
    right_output: OutputId
    repeat_of: PresentationId | None = None
    # Set when this is a presentation already recorded but never voted: show it again.
    resume: PresentationId | None = None


def _unit(text: str) -> float:
    """A number in [0, 1) fixed by ``text``: the same on every machine and every run."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2**64


def is_repeat_chosen(vote_id: str, share: float) -> bool:
    return _unit("repeat:" + vote_id) < share


def repeat_gap(vote_id: str) -> int:
    low, high = REPEAT_GAP
    return low + int(_unit("gap:" + vote_id) * (high - low + 1))


class Presented(Protocol):
    """What ``resumed`` reads of a past presentation (``Shown``, or a live history entry)."""

    @property
    def presentation_id(self) -> PresentationId: ...
    @property
    def case_id(self) -> CaseId: ...
    @property
    def left_output(self) -> OutputId: ...
    @property
    def right_output(self) -> OutputId: ...
    @property
    def repeat_of(self) -> PresentationId | None: ...
    @property
    def vote_id(self) -> VoteId | None: ...


def check_repeat_share(repeat_share: float) -> None:
    if not 0.0 <= repeat_share <= 1.0:
        raise ValueError(f"repeat_share must be within [0, 1], not {repeat_share}")


def resumed(history: Sequence[Presented]) -> NextPair | None:
    """The oldest of the presentations at the end with no vote in force, shown again.

    They were cut short by a crash or undone: showing them again, oldest first,
    makes undo walk back step by step.
    """
    start = len(history)
    while start > 0 and history[start - 1].vote_id is None:
        start -= 1
    if start == len(history):
        return None
    again = history[start]
    return NextPair(
        again.case_id,
        again.left_output,
        again.right_output,
        again.repeat_of,
        resume=again.presentation_id,
    )


def _key(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def system_pair(a: SystemId, b: SystemId) -> tuple[SystemId, SystemId]:
    return (a, b) if a <= b else (b, a)


def pair_order(candidate: Candidate, systems: Mapping[OutputId, SystemId]) -> tuple:
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
        candidates: Iterable[Candidate],
        systems: Mapping[OutputId, SystemId],
        history: Sequence[Shown],
        *,
        seed: int,
        repeat_share: float = DEFAULT_REPEAT_SHARE,
    ) -> None:
        check_repeat_share(repeat_share)
        self.candidates = list(candidates)
        self.systems = systems
        self.history = list(history)
        self.seed = seed
        self.repeat_share = repeat_share

    # -- progress --------------------------------------------------------------

    def _voted_pairs(self) -> set[frozenset[str]]:
        return {
            _key(s.left_output, s.right_output)
            for s in self.history
            if s.vote_id is not None and s.choice != "skip" and s.repeat_of is None
        }

    def progress(self) -> tuple[int, int]:
        """(pairs with a vote in force, pairs for the rater) of this family."""
        voted = self._voted_pairs()
        keys = {_key(c.output_a, c.output_b) for c in self.candidates}
        return len(keys & voted), len(keys)

    # -- choosing ----------------------------------------------------------------

    def next(self) -> NextPair | None:
        """The next pair to show, or None when nothing is left."""
        again = resumed(self.history)
        if again is not None:
            return again
        rng = np.random.default_rng([self.seed, len(self.history)])
        last_case = self.history[-1].case_id if self.history else None
        fresh = self._fresh(rng, last_case)
        repeat = self._due_repeat(last_case, finished=fresh is None)
        if repeat is not None:
            return repeat
        return fresh

    def _fresh(self, rng: np.random.Generator, last_case: CaseId | None) -> NextPair | None:
        voted = self._voted_pairs()
        open_ = [c for c in self.candidates if _key(c.output_a, c.output_b) not in voted]
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
        pool = other_case or open_
        ranks = [
            (
                skips[_key(c.output_a, c.output_b)],
                pair_votes[self._system_pair(c.output_a, c.output_b)],
                case_votes[c.case_id],
            )
            for c in pool
        ]
        lowest = min(ranks)
        tied = sorted(
            (c for c, rank in zip(pool, ranks, strict=True) if rank == lowest),
            key=lambda c: pair_order(c, self.systems),
        )
        chosen = tied[int(rng.integers(len(tied)))]
        left, right = self._sides(chosen.output_a, chosen.output_b, rng)
        return NextPair(chosen.case_id, left, right)

    def _system_pair(self, a: OutputId, b: OutputId) -> frozenset[str]:
        return _key(self.systems[a], self.systems[b])

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

    def _due_repeat(self, last_case: CaseId | None, *, finished: bool) -> NextPair | None:
        repeated = {
            s.repeat_of for s in self.history if s.repeat_of is not None and s.vote_id is not None
        }
        position = len(self.history)
        due: list[NextPair] = []
        for index, s in enumerate(self.history):
            if (
                s.vote_id is None
                or s.choice == "skip"
                or s.repeat_of is not None
                or s.presentation_id in repeated
                or not is_repeat_chosen(s.vote_id, self.repeat_share)
            ):
                continue
            if finished or position - index >= repeat_gap(s.vote_id):
                due.append(
                    NextPair(s.case_id, s.right_output, s.left_output, repeat_of=s.presentation_id)
                )
        if not due:
            return None
        other_case = [d for d in due if d.case_id != last_case]
        if other_case:
            return other_case[0]
        return due[0] if finished or len({c.case_id for c in self.candidates}) <= 1 else None
