"""The votes-left figure can be believed: never more than the pairs left, steady from vote
to vote, and in words where no figure can be."""

from __future__ import annotations

import numpy as np
import pytest

from arena.pairs.adaptive import OrderModel
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy
from arena.pairs.votes_left import (
    ABOUT,
    ALIKE,
    BEYOND,
    DONE,
    SETTLED,
    TOO_EARLY,
    Gauge,
    VotesLeft,
    ceil2,
    floor2,
    round2,
)
from tests.pairs.test_even_pairs import FAMILIES, _family, _vote


@pytest.mark.parametrize("name", FAMILIES)
def test_the_figure_never_exceeds_the_pairs_left_and_moves_at_most_a_fifth_a_vote(name):
    strengths, tie, both_bad = FAMILIES[name]
    candidates, systems = _family(len(strengths), cases=40)
    scheduler = LiveScheduler(candidates, systems, [], seed=4, repeats=RepeatPolicy(0.0))
    rng = np.random.default_rng(4)
    gauge = Gauge()
    shown: list[VotesLeft] = []
    guesses: list[int] = []
    while _vote(scheduler, systems, strengths, tie, both_bad, rng) is not None:
        read = scheduler.votes_left()
        voted, total = scheduler.progress()
        assert read.pairs_left == total - voted
        shown.append(gauge.update(read))
        if read.kind in (ABOUT, BEYOND):
            guesses.append(scheduler.votes_to_settle())
        if shown[-1].kind == SETTLED:
            break
    kinds = [s.kind for s in shown]
    assert kinds[0] == TOO_EARLY  # before every system pair has a vote
    for before, after in zip(shown, shown[1:], strict=False):
        if after.kind == ABOUT:
            assert after.votes is not None and 0 < after.votes <= after.pairs_left
            assert after.votes in (floor2(after.votes), round2(after.votes))
            if before.kind == ABOUT:
                assert before.votes is not None
                assert abs(after.votes - before.votes) <= 0.2 * before.votes
    jumps = [abs(b - a) / a for a, b in zip(guesses, guesses[1:], strict=False) if a]
    if name != "indistinguishable":  # something to steady: guesses a fifth apart and more
        assert max(jumps) > 0.2
    if name == "distinct":
        assert ABOUT in kinds and kinds[-1] == SETTLED
    if name == "near-ties":
        assert max(guesses) > len(candidates)  # more than the family has pairs
        assert BEYOND in kinds and SETTLED not in kinds
    if name == "indistinguishable":  # said in words until no pair is left
        assert kinds[-2:] == [ALIKE, DONE] and kinds.count(ALIKE) > 100
        assert shown[-2].alike is not None and len(set(shown[-2].alike)) == 2


def test_a_figure_held_moves_only_once_the_guess_has_strayed_for_three_votes():
    gauge = Gauge()
    assert gauge.update(VotesLeft(ABOUT, 900, votes=1_234)) == VotesLeft(ABOUT, 900, votes=900)
    assert gauge.update(VotesLeft(ABOUT, 899, votes=700)).votes == 890  # cut to the pairs left
    for guess in (1_000, 760, 300, 320):  # within a fifth, then two votes out of it
        assert gauge.update(VotesLeft(ABOUT, 899, votes=guess)).votes == 890
    assert gauge.update(VotesLeft(ABOUT, 899, votes=310)).votes == 720  # a fifth down
    assert gauge.update(VotesLeft(ABOUT, 899, votes=310)).votes == 580
    # Another kind waits as long; "cannot tell yet" and the stop suggestion do not.
    assert gauge.update(VotesLeft(BEYOND, 898)).kind == ABOUT
    assert gauge.update(VotesLeft(BEYOND, 897)).kind == ABOUT
    assert gauge.update(VotesLeft(BEYOND, 896)) == VotesLeft(BEYOND, 896)
    assert gauge.update(VotesLeft(SETTLED, 895)).kind == SETTLED


def test_figures_keep_two_significant_digits():
    assert [round2(v) for v in (7, 94, 95, 765, 2_549_999)] == [7, 94, 95, 770, 2_500_000]
    assert (floor2(765), ceil2(761), floor2(99)) == (760, 770, 99)


def test_two_systems_look_alike_when_most_of_their_votes_are_even():
    model = OrderModel(["a", "b", "c"])
    model.count_all(["a", "a", "b"], ["b", "c", "c"], ["left"] * 3)
    model.count_all(["a"] * 5, ["b"] * 5, ["tie"] * 3 + ["both_bad"] * 2)
    assert model.alike() is None  # five of six: not yet, at one-sided 95%
    model.count("b", "a", "tie", +1)
    assert model.alike() == ("a", "b")  # six of seven
