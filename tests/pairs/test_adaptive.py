"""Adaptive pair choice keeps every promise of the coverage-first rule, and spends the
votes where the order is in doubt."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from arena.pairs.adaptive import PAIR_CHOICES
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy, system_pair
from arena.pairs.settling import PendingPair
from tests.pairs.reference_scheduler import Shown

SYSTEMS = 6
# Planted strengths far apart: the rater's choice is almost always the stronger system.
STRENGTH = {f"s{s}": 1.2 * s for s in range(SYSTEMS)}


def _family(cases: int, samples: int = 1):
    systems = {
        f"c{c:02d}-s{s}-{k}": f"s{s}"
        for c in range(cases)
        for s in range(SYSTEMS)
        for k in range(samples)
    }
    candidates = [
        PendingPair(a.split("-")[0], a, b, systems[a], systems[b])
        for a, b in combinations(sorted(systems), 2)
        if a.split("-")[0] == b.split("-")[0] and systems[a] != systems[b]
    ]
    return candidates, systems


def _rate(scheduler: LiveScheduler, systems, votes: int, seed: int = 0, session: str = "s"):
    """Vote ``votes`` times as a rater following the planted strengths; the shown pairs."""
    rng = np.random.default_rng(seed)
    shown = []
    for _ in range(votes):
        planned = scheduler.next()
        if planned is None:
            break
        pid = f"p{len(scheduler.history)}"
        scheduler.shown(
            pid, planned.case_id, planned.left_output, planned.right_output, planned.repeat_of
        )
        left, right = systems[planned.left_output], systems[planned.right_output]
        p_left = 1 / (1 + np.exp(STRENGTH[right] - STRENGTH[left]))
        choice = "left" if rng.random() < p_left else "right"
        scheduler.voted(pid, f"v{pid}{session}", choice, session_id=session, voted_at=None)
        shown.append(planned)
    return shown


@pytest.mark.parametrize("seed", range(3))
def test_every_system_pair_is_seen_before_any_is_seen_twice(seed):
    candidates, systems = _family(cases=20)
    scheduler = LiveScheduler(
        candidates, systems, [], seed=seed, repeats=RepeatPolicy(share=0.0), pair_choice="adaptive"
    )
    shown = _rate(scheduler, systems, 15 + 60, seed)
    pairs = [system_pair(systems[p.left_output], systems[p.right_output]) for p in shown]
    assert len(set(pairs[:15])) == 15  # the coverage phase: all 15 system pairs once


@pytest.mark.parametrize("pair_choice", PAIR_CHOICES)
@pytest.mark.parametrize("seed", range(3))
def test_sides_balance_no_case_comes_twice_in_a_row_and_repeats_still_come(seed, pair_choice):
    candidates, systems = _family(cases=12)
    scheduler = LiveScheduler(
        candidates,
        systems,
        [],
        seed=seed,
        repeats=RepeatPolicy(share=0.2, gap=3, minutes=0),
        pair_choice=pair_choice,
    )
    shown = _rate(scheduler, systems, 150, seed)
    assert all(a.case_id != b.case_id for a, b in zip(shown, shown[1:], strict=False))
    assert sum(p.repeat_of is not None for p in shown) >= 10
    left_of: Counter = Counter()
    for p in shown:
        pair = system_pair(systems[p.left_output], systems[p.right_output])
        left_of[(pair, systems[p.left_output])] += 1
        a, b = pair
        assert abs(left_of[(pair, a)] - left_of[(pair, b)]) <= 1


def test_after_coverage_the_votes_go_where_the_order_is_in_doubt():
    candidates, systems = _family(cases=60)
    votes = Counter()
    for pair_choice in ("coverage", "adaptive"):
        scheduler = LiveScheduler(
            candidates, systems, [], seed=1, repeats=RepeatPolicy(0.0), pair_choice=pair_choice
        )
        for p in _rate(scheduler, systems, 300, seed=1)[15:]:
            a, b = sorted(int(systems[o][1:]) for o in (p.left_output, p.right_output))
            votes[(pair_choice, "next" if b - a == 1 else "far" if b - a >= 3 else "mid")] += 1
    # Coverage-first spreads evenly (5 neighbouring pairs of 15); adaptive asks about
    # neighbours, whose order is in doubt, far more than about systems far apart.
    assert votes[("coverage", "next")] == pytest.approx(285 * 5 / 15, abs=3)
    assert votes[("adaptive", "next")] > 2 * votes[("coverage", "next")]
    assert votes[("adaptive", "far")] < votes[("coverage", "far")] / 3


def _history(scheduler: LiveScheduler) -> list[Shown]:
    return [
        Shown(
            e.presentation_id,
            e.case_id,
            e.left_output,
            e.right_output,
            e.repeat_of,
            e.vote_id,
            e.choice,
            e.session_id,
        )
        for e in scheduler.history.values()
    ]


def test_with_halves_a_session_is_steered_by_the_votes_of_its_own_half_alone():
    candidates, systems = _family(cases=60)
    halves = {"s1": 1, "s2": 0, "s3": 1}

    def scheduler(history, session, halves):
        return LiveScheduler(
            candidates,
            systems,
            history,
            seed=4,
            repeats=RepeatPolicy(0.0),
            session=session,
            halves=halves,
        )

    first = scheduler([], "s1", halves)
    _rate(first, systems, 40, seed=4, session="s1")  # every system pair, then 25 steered
    second = scheduler(_history(first), "s2", halves)
    _rate(second, systems, 30, seed=5, session="s2")
    history = _history(second)
    # The odd session's answers drawn again: the same pairs shown, other choices.
    rng = np.random.default_rng(6)
    redrawn = [
        h._replace(choice=str(rng.choice(["left", "right"]))) if h.session_id == "s1" else h
        for h in history
    ]

    def upcoming(history, session, halves):
        shown = _rate(scheduler(history, session, halves), systems, 20, seed=7, session=session)
        return [(p.left_output, p.right_output) for p in shown]

    assert upcoming(history, "s2", halves) == upcoming(redrawn, "s2", halves)
    # Steered by every vote, or in an odd session, the odd session's answers tell.
    assert upcoming(history, "s2", None) != upcoming(redrawn, "s2", None)
    assert upcoming(history, "s3", halves) != upcoming(redrawn, "s3", halves)


def test_a_tests_then_votes_family_gets_one_vote_per_case_and_system_pair():
    candidates, systems = _family(cases=4, samples=2)
    for pair_choice in ("coverage", "adaptive"):
        scheduler = LiveScheduler(
            candidates,
            systems,
            [],
            seed=3,
            repeats=RepeatPolicy(0.0),
            pair_choice=pair_choice,
            once_per_case=True,
        )
        shown = _rate(scheduler, systems, 1000)
        groups = Counter(
            (p.case_id, system_pair(systems[p.left_output], systems[p.right_output])) for p in shown
        )
        assert len(groups) == 4 * 15 and set(groups.values()) == {1}
        assert scheduler.next() is None
        assert scheduler.progress() == (60, 60)


def test_the_order_settles_only_after_coverage_and_enough_votes():
    candidates, systems = _family(cases=60)
    scheduler = LiveScheduler(candidates, systems, [], seed=2, repeats=RepeatPolicy(0.0))
    assert not scheduler.order_settled() and scheduler.votes_to_settle() is None
    _rate(scheduler, systems, 14, seed=2)
    assert not scheduler.order_settled()  # one system pair still has no vote
    assert scheduler.votes_to_settle() is None
    _rate(scheduler, systems, 1, seed=2)
    assert scheduler.votes_to_settle() > 0
    _rate(scheduler, systems, 400, seed=2)
    assert scheduler.order_settled() and scheduler.votes_to_settle() == 0


def test_an_unknown_pair_choice_is_refused():
    candidates, systems = _family(cases=2)
    with pytest.raises(ValueError, match="pair_choice"):
        LiveScheduler(candidates, systems, [], seed=0, pair_choice="greedy")
