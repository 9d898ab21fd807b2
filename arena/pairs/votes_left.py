"""What the status line says about the votes left until the order is unlikely to change.

The model's guess (``fitting.information.votes_to_settle``: the means kept, every variance
shrinking as one over the votes) swings with every vote, since it hangs on how far apart
the closest systems stand, and it can name more votes than the family has pairs. What is
shown is read from it (``OrderModel.outlook``) and then held steady (``Gauge``):

- ``TOO_EARLY``: some system pair has no vote yet, or there are fewer than two votes a
  system pair: "cannot tell yet".
- ``ALIKE``: two systems look alike to the rater (most of their votes are ties or "both
  bad", ``OrderModel.alike``), or no number of votes would order the closest two: said in
  words, with no promise of an order.
- ``BEYOND``: more votes than the pairs left: even every pair left may not settle it.
- ``ABOUT``: a figure of two significant digits, never more than the pairs left. The pairs
  left are those with no vote in force (a repeat, shown on top of them, does not count
  toward the order: ``arena.pairs.adaptive`` counts ordinary votes only).
- ``SETTLED``: the stop suggestion holds; ``DONE``: no pair is left.

The ``Gauge`` keeps the last reading shown. A figure stays while the model's guess is within
±20% of it; once the guess has been outside that band for ``HOLD`` votes in a row, the figure
moves toward it, by 20% at most a vote. A change of kind among ``ABOUT``, ``BEYOND`` and
``ALIKE`` waits ``HOLD`` votes too; ``TOO_EARLY``, ``SETTLED`` and ``DONE`` are shown at
once, and the figure is cut to the pairs left at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from arena.records import SystemId

TOO_EARLY, ALIKE, BEYOND, ABOUT, SETTLED, DONE = (
    "too_early",
    "alike",
    "beyond",
    "about",
    "settled",
    "done",
)
# Shown as soon as the model reads them: they follow from counts, not from a guess.
AT_ONCE = frozenset({TOO_EARLY, SETTLED, DONE})
#: Votes in a row the model's guess must stay outside the band before the shown figure moves.
HOLD = 3
#: How far (a share of the shown figure) the guess may stray before it counts as outside.
BAND = 0.2


@dataclass(frozen=True)
class VotesLeft:
    """A reading of the votes left: its kind, and for ``ABOUT`` the figure; ``pairs_left``
    the pairs with no vote in force; ``alike`` the two systems of ``ALIKE``."""

    kind: str
    pairs_left: int
    votes: int | None = None
    alike: tuple[SystemId, SystemId] | None = None

    def note(self) -> str:
        """The status line's words (the window never names a system)."""
        if self.kind == SETTLED:
            return "more votes are unlikely to change the order"
        if self.kind == TOO_EARLY:
            return "votes until the order settles: cannot tell yet"
        if self.kind == ALIKE:
            return "two systems look alike to you: more votes may not order them"
        if self.kind == BEYOND:
            return f"the {self.pairs_left:,} pairs left may not settle the order"
        if self.kind == ABOUT:
            return f"about {self.votes:,} more votes until the order is unlikely to change"
        return ""


def _unit(value: int) -> int:
    """The step of two significant digits at ``value`` (1 under 100)."""
    return 10 ** max(len(str(value)) - 2, 0)


def floor2(value: int) -> int:
    """``value`` rounded down to two significant digits."""
    return value - value % _unit(value)


def ceil2(value: int) -> int:
    """``value`` rounded up to two significant digits."""
    step = _unit(value)
    return -(-value // step) * step


def round2(value: int) -> int:
    """``value`` rounded to the nearest number of two significant digits."""
    step = _unit(value)
    return (value + step // 2) // step * step


def figure(guess: float, pairs_left: int) -> int:
    """A first figure for ``guess`` votes: two significant digits, at most ``pairs_left``."""
    return min(round2(math.ceil(guess)), floor2(pairs_left))


class Gauge:
    """Holds the reading shown steady from vote to vote (see the module's docstring); one
    per rating session, told each reading of the model in turn."""

    def __init__(self) -> None:
        self.shown: VotesLeft | None = None
        # Readings in a row of another kind than the one shown; of its kind, with a guess
        # outside the band.
        self.other = 0
        self.astray = 0

    def update(self, read: VotesLeft) -> VotesLeft:
        """What to show now that the model reads ``read``."""
        shown = self.shown
        same = shown is not None and read.kind == shown.kind
        self.other = 0 if same else self.other + 1
        if read.kind in AT_ONCE or shown is None or shown.kind in AT_ONCE or self.other >= HOLD:
            self.other = self.astray = 0
            self.shown = self._first(read)
            return self.shown
        if not same:
            self.astray = 0
        elif read.kind == ABOUT:
            assert read.votes is not None and shown.votes is not None
            held = shown.votes
            self.astray = 0 if abs(read.votes - held) <= BAND * held else self.astray + 1
            if self.astray >= HOLD:
                shown = replace(shown, votes=_toward(held, read.votes))
        else:
            shown = read
        if shown.kind == ABOUT:
            assert shown.votes is not None
            shown = replace(
                shown, votes=min(shown.votes, floor2(read.pairs_left)), pairs_left=read.pairs_left
            )
        else:
            shown = replace(shown, pairs_left=read.pairs_left)
        self.shown = shown
        return shown

    @staticmethod
    def _first(read: VotesLeft) -> VotesLeft:
        if read.kind != ABOUT:
            return read
        assert read.votes is not None
        return replace(read, votes=figure(read.votes, read.pairs_left))


def _toward(held: int, guess: int) -> int:
    """One step from the figure ``held`` toward ``guess``: 20% at most, two significant
    digits, rounded toward ``held`` so the step stays within 20%."""
    if guess > held:
        return max(held, floor2(min(guess, math.floor(held * (1 + BAND)))))
    return min(held, ceil2(max(guess, math.ceil(held * (1 - BAND)))))
