"""The simulated family and rater: hand-worked probabilities, a balanced design, planted
consistency recovered by rater agreement and split-half τ."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from fitting import rater_agreement, split_half_tau
from fitting import simulate as sim


def _family(n=4, cases=30, samples=1, seed=0, **kw):
    rng = np.random.default_rng(seed)
    systems = sim.draw_systems(n, rng=rng, settle_share=kw.pop("settle_share", 0.0))
    return sim.draw_family(systems, cases, rng=rng, samples=samples, **kw)


def test_choice_probabilities_match_a_hand_worked_case():
    family = _family(2, 1)
    family.difficulty[:] = 0.0
    family.quality[0] = [1.0, 0.0]
    family.length[0] = [300, 100]  # d = 0.5
    rater = sim.RaterTraits(tie=0.1, both_bad=0.1, side_bias=0.25, length_preference=0.5)
    probs = sim.choice_probabilities(family, rater, [0], [0], [1])[0]
    # margin = 1 + 0.25 + 0.5 * 0.5 = 1.5; decisive = 0.8
    left = 0.8 / (1 + math.exp(-1.5))
    assert probs == pytest.approx([left, 0.8 - left, 0.1, 0.1])
    random = sim.RaterTraits(tie=0.1, both_bad=0.1, inconsistency=1.0)
    assert sim.choice_probabilities(family, random, [0], [0], [1])[0] == pytest.approx([0.25] * 4)
    one = sim.SimulatedRater(family, rater, rng=np.random.default_rng(0))
    assert one.probabilities(0, 0, 1) == pytest.approx(probs)


def test_the_rater_answers_with_its_probabilities_and_remembers_recent_pairs():
    family = _family(3, 5)
    traits = sim.RaterTraits(tie=0.1, both_bad=0.05)
    rater = sim.SimulatedRater(family, traits, rng=np.random.default_rng(1))
    draws = [rater.choose(2, 0, 1) for _ in range(20_000)]
    expected = sim.choice_probabilities(family, traits, [2], [0], [1])[0]
    found = [draws.count(c) / len(draws) for c in sim.CHOICES]
    assert found == pytest.approx(expected, abs=0.015)
    remembering = sim.SimulatedRater(
        family, sim.RaterTraits(memory=1.0, memory_span=5), rng=np.random.default_rng(2)
    )
    first = remembering.choose(0, 0, 1)
    mirrored = {"left": "right", "right": "left"}.get(first, first)
    assert remembering.choose(0, 1, 0) == mirrored  # the same answer, sides swapped
    assert len(remembering.answers) == 2


def test_the_stand_in_scheduler_spreads_votes_over_pairs_sides_and_cases():
    family = _family(6, 40, samples=2, settle_share=0.2, identical_share=0.02)
    settled, pending = sim.settled_pairs(family)
    votes = sim.simulate_votes(family, sim.RaterTraits(), 600, rng=np.random.default_rng(3))
    n = 6
    pair = np.minimum(votes.a, votes.b) * n + np.maximum(votes.a, votes.b)
    counts = np.bincount(pair, minlength=n * n)[
        np.triu_indices(n, 1)[0] * n + np.triu_indices(n, 1)[1]
    ]
    assert counts.max() - counts.min() <= 1
    for p in np.unique(pair):  # within a system pair each system sits left as often (±1)
        mine = pair == p
        assert abs(int(np.sum(votes.a[mine] < votes.b[mine])) * 2 - int(mine.sum())) <= 1
        cases = votes.case[mine]
        seen = np.bincount(cases, minlength=family.n_cases)
        assert seen.max() - seen[seen > 0].min() <= 1 or seen.max() <= 2
    # Settled: a failing output loses to a passing one; two failing, or identical, tie.
    assert set(np.unique(settled.y)) <= {0.0, 0.5, 1.0}
    assert np.all(settled.w == 0.25)
    assert len(pending) + len(settled.y) == family.n_cases * (12 * 11 // 2 - 6)


def test_ten_thousand_simulated_votes_take_well_under_a_second():
    family = _family(20, 300, samples=2, settle_share=0.3)
    started = time.perf_counter()
    votes = sim.simulate_votes(family, sim.RaterTraits(), 10_000, rng=np.random.default_rng(4))
    vectorised = time.perf_counter() - started
    rater = sim.SimulatedRater(family, sim.RaterTraits(memory=0.3), rng=np.random.default_rng(5))
    started = time.perf_counter()
    for c, left, right in zip(
        votes.case.tolist(), votes.left.tolist(), votes.right.tolist(), strict=True
    ):
        rater.choose(c, left, right)
    one_by_one = time.perf_counter() - started
    assert votes.y.size == 10_000
    assert vectorised < 0.5 and one_by_one < 0.5, (vectorised, one_by_one)


@pytest.mark.parametrize(
    ("inconsistency", "memory"), [(0.0, 0.0), (0.3, 0.0), (0.3, 0.6), (1.0, 0.0)]
)
def test_rater_agreement_recovers_the_planted_consistency(inconsistency, memory):
    family = _family(5, 200, seed=6)
    traits = sim.RaterTraits(inconsistency=inconsistency, memory=memory)
    rng = np.random.default_rng(7)
    votes = sim.simulate_votes(family, traits, 2000, rng=rng, repeat_share=0.2)
    r = votes.repeat_of
    found = rater_agreement(
        [sim.CHOICES[c] for c in votes.choice[r]], [sim.CHOICES[c] for c in votes.repeat_choice]
    )
    # Planted: the chance each repeat agrees, from the rater's own probabilities (gaps of
    # 3-10 presentations: all within the memory span).
    planted = sim.agreement_probability(
        family, traits, votes.case[r], votes.left[r], votes.right[r], 5
    )
    se = math.sqrt(planted.mean() * (1 - planted.mean()) / r.size)
    assert abs(found.share - planted.mean()) < 3.5 * se
    # A hand-worked point: a rater choosing at random agrees a quarter of the time.
    if inconsistency == 1.0:
        assert planted == pytest.approx(np.full(r.size, 0.25))


def test_split_half_tau_falls_with_planted_inconsistency():
    taus = {}
    for inconsistency in (0.0, 0.5, 1.0):
        found = []
        for seed in range(30):
            rng = np.random.default_rng(seed)
            systems = sim.draw_systems(8, rng=rng, spread=1.5)
            family = sim.draw_family(systems, 60, rng=rng, difficulty_sd=0.0, quality_sd=0.1)
            votes = sim.simulate_votes(
                family,
                sim.RaterTraits(inconsistency=inconsistency),
                800,
                rng=rng,
                session_votes=100,
            )
            found.append(
                split_half_tau(votes.a, votes.b, votes.y, session=votes.session, n_systems=8).tau
            )
        taus[inconsistency] = float(np.mean(found))
    assert taus[0.0] > 0.8
    assert taus[0.0] > taus[0.5] > taus[1.0]
    assert abs(taus[1.0]) < 0.1  # a rater choosing at random: no order survives the split


def test_balanced_expected_y_averages_the_two_sides():
    family = _family(2, 1)
    family.difficulty[:] = 0.0
    family.quality[0] = [1.0, 0.0]
    family.length[0] = [300, 100]
    rater = sim.RaterTraits(tie=0.0, both_bad=0.0, inconsistency=0.0, side_bias=0.5)
    # margin 1 + 0.5 on the left, -1 + 0.5 with the sides swapped; no ties, no strays
    forward = 1 / (1 + math.exp(-1.5))
    backward = 1 / (1 + math.exp(0.5))  # system 1 on the left wins
    found = sim.balanced_expected_y(family, rater, [0], [0], [1])[0]
    assert found == pytest.approx((forward + 1 - backward) / 2)
