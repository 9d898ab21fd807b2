"""Repeats measure consistency, not memory: a simulated rater who remembers every pair for
ten minutes, voting every few seconds, driven through the real rating session and
scheduler. Its measured agreement (the round summary's) is its true consistency when the
repeats are spaced as by default, and its memory when they come back soon."""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from arena.intake.outputs import import_file
from arena.ledger import Ledger, voting
from arena.pairs.scheduling import RepeatPolicy
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.conftest import native_line
from tests.pairs.fake_clock import FakeClock

SYSTEMS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
CASES = 16  # 15 system pairs x 16 cases: 240 pairs
MEMORY = timedelta(minutes=10)
CONSISTENCY = 0.7
OTHERS = {
    "left": ("right", "tie", "both_bad"),
    "right": ("left", "tie", "both_bad"),
    "tie": ("left", "right", "both_bad"),
    "both_bad": ("left", "right", "tie"),
}
SWAPPED = {"left": "right", "right": "left", "tie": "tie", "both_bad": "both_bad"}


class Rater:
    """Remembers each pair it judged (by its outputs) and when, for ``MEMORY``.

    A pair seen again within that time gets the same answer (sides mapped); one
    seen longer ago is judged again and agrees with the first judgment at the rate
    ``consistency``, spread evenly over the re-judgments (so sampling noise does not
    hide or fake a bias: the only way to measure more agreement is to remember).
    """

    def __init__(self, consistency: float, clock: FakeClock, rng: random.Random) -> None:
        self.consistency = consistency
        self.clock = clock
        self.rng = rng
        self.seen: dict[frozenset[str], tuple[str, str, datetime]] = {}
        self.credit = 0.0
        self.remembered = self.judged_again = 0

    def choose(self, left: str, right: str) -> str:
        now = self.clock.at
        key = frozenset((left, right))
        if key not in self.seen:
            choice = self.rng.choice(("left", "right", "tie", "both_bad"))
            self.seen[key] = (left, choice, now)
            return choice
        first_left, first, when = self.seen[key]
        # The first answer as it reads on the sides shown now.
        same = first if first_left == left else SWAPPED[first]
        if now - when < MEMORY:
            self.remembered += 1
            return same
        self.judged_again += 1
        self.credit += self.consistency
        if self.credit >= 1.0:
            self.credit -= 1.0
            return same
        return self.rng.choice(OTHERS[same])


def _family(ledger: Ledger, folder: Path) -> None:
    lines = [
        native_line(f"c{c:02d}", s, f"{s} on case {c}: a plain, helpful and distinct answer {c}.")
        for c in range(CASES)
        for s in SYSTEMS
    ]
    path = folder / "f.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family="f", fmt="native")


def _measured(
    ledger: Ledger, policy: RepeatPolicy | None, consistency: float = CONSISTENCY
) -> tuple[float, Rater]:
    """Sittings of up to 40 minutes, a vote every 2 to 6 seconds, a day apart, until
    nothing is left; the round's rater agreement."""
    clock = FakeClock()
    rng = random.Random(7)
    rater = Rater(consistency, clock, rng)
    for sitting in range(10):
        session = RatingSession(
            ledger, "f", seed=sitting, repeat_share=0.5, repeats=policy, wall_clock=clock
        )
        start, voted = clock.at, 0
        while clock.at - start < timedelta(minutes=40) and (view := session.current()):
            clock.advance(rng.uniform(2.0, 6.0))
            session.vote(rater.choose(view.left.output_id, view.right.output_id))
            voted += 1
        if not voted:
            break
        clock.advance(24 * 3600)
    summary = close_round(ledger, "f", RoundSettings()).summary
    # Half the votes are chosen for a repeat (about 120); those that would tip their pair's
    # sides once every pair is voted never come back.
    assert summary.rater_agreement is not None and summary.repeats >= 90
    return summary.rater_agreement, rater


@pytest.fixture
def family(tmp_path: Path, monkeypatch):
    # Ids in sequence, not random: which votes come back as repeats follows from their
    # ids, so a random id made the count of repeats vary from run to run.
    numbers = itertools.count()
    monkeypatch.setattr(voting, "new_id", lambda: f"{next(numbers):032x}")
    with Ledger.open(tmp_path / "memory.sqlite") as ledger:
        _family(ledger, tmp_path)
        yield ledger


@pytest.mark.parametrize("consistency", [0.55, CONSISTENCY, 0.9])
def test_the_default_spacing_measures_consistency_not_memory(family, consistency):
    agreement, rater = _measured(family, None, consistency)  # the family's: the defaults
    assert rater.remembered == 0
    assert abs(agreement - consistency) <= 0.05


@pytest.mark.parametrize(
    "soon",
    [
        RepeatPolicy(share=0.5, gap=3, minutes=0),  # the former spacing: 3–10 pairs later
        RepeatPolicy(share=0.5, gap=30, minutes=0),  # 30 pairs alone: 2 minutes at this pace
    ],
    ids=["3-pairs", "30-pairs"],
)
def test_repeats_that_come_back_soon_measure_memory(family, soon):
    agreement, rater = _measured(family, soon)
    assert rater.remembered > rater.judged_again
    assert agreement > CONSISTENCY + 0.15
