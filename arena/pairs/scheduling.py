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

The rating session keeps this rule up to date vote by vote
(``arena.pairs.live_scheduler``); the tests state it again from scratch over the whole
history (``tests/pairs/reference_scheduler.py``) and hold the two to the same choices.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

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
