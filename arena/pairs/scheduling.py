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
- Never the same case twice in a row when another case is available.
- Sides: within a system pair each system sits left as often as right
  (difference at most 1); on a tie, the system placed left less often overall
  goes left; on a tie again, the generator decides. A repeat that would tip its
  pair's sides beyond 1 waits for a showing the other way to even them (a first
  showing, or a repeat of a vote the other way round); if none comes, it is never
  shown: sides stay within one over every presentation, repeats included.
- Repeats: a voted pair is chosen for a repeat when a hash of its vote id falls
  under the repeat share; it comes back sides swapped, indistinguishable from a
  first showing, once both hold (``RepeatPolicy``): at least ``minutes`` have
  passed since its vote, and at least ``gap`` other pairs were shown since (a
  hash of the vote id adds up to a third more), or the vote was cast in an
  earlier session, or no unvoted pair is left. A rater remembers a pair seen a
  few minutes ago: a repeat that soon measures memory, not consistency
  (``tests/pairs/test_repeat_memory.py`` simulates one).

The rating session keeps this rule up to date vote by vote
(``arena.pairs.live_scheduler``); the tests state it again from scratch over the whole
history (``tests/pairs/reference_scheduler.py``) and hold the two to the same choices.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from arena.records import (
    CaseId,
    OutputId,
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
        check_repeat_share(self.share)
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
class Shown:
    """One past presentation and the vote in force on it (None: no vote, or retracted)."""

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

    def row(self) -> ShownRow:
        """Its fields in order, as the ledger reads a presentation's row."""
        return (
            self.presentation_id,
            self.case_id,
            self.left_output,
            self.right_output,
            self.repeat_of,
            self.vote_id,
            self.choice,
            self.session_id,
            self.voted_at,
        )


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


def repeat_gap(vote_id: str, least: int = DEFAULT_REPEAT_GAP) -> int:
    """Presentations from a vote to its repeat within a session: ``least`` other pairs in
    between, and up to a third more (fixed by the vote id), so the spacing is no rhythm."""
    return least + 1 + int(_unit("gap:" + vote_id) * (least // 3 + 1))


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


def system_pair(a: SystemId, b: SystemId) -> tuple[SystemId, SystemId]:
    return (a, b) if a <= b else (b, a)
