"""The family's own order in ``benchmarks/scheduler_sim.py``: the board every vote of
every case would give, each its expected outcome, against a loop over the rater's
probabilities one presentation at a time."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from fitting import simulate as sim

REPO = Path(__file__).resolve().parents[2]


def _scheduler_sim():
    sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
    from benchmarks import scheduler_sim

    return scheduler_sim


def test_family_board_fits_the_expected_outcome_of_every_vote():
    scheduler_sim = _scheduler_sim()
    rng = np.random.default_rng(3)
    family = sim.draw_family(sim.draw_systems(4, rng=rng), 25, rng=rng)
    traits = sim.RaterTraits(side_bias=0.3, length_preference=0.4)
    rater = sim.SimulatedRater(family, traits, rng=rng)
    wins = np.zeros((4, 4))
    for case in range(25):
        for a in range(4):
            for b in range(a + 1, 4):
                # each side of the pair half the time, as the scheduler balances them
                for left, right in ((a, b), (b, a)):
                    p_left, p_right, tie, both_bad = rater.probabilities(case, left, right)
                    wins[left, right] += (p_left + (tie + both_bad) / 2) / 2
                    wins[right, left] += (p_right + (tie + both_bad) / 2) / 2
    np.testing.assert_allclose(
        scheduler_sim.family_board(family, traits), scheduler_sim.board(wins), atol=1e-9
    )


def test_the_family_top_can_differ_from_the_true_top():
    # Two systems a hair apart on a few cases of noisy outputs: the cases decide.
    scheduler_sim = _scheduler_sim()
    rng = np.random.default_rng(0)
    systems = sim.draw_systems(3, rng=rng)
    systems.strengths[:] = [1.0, 0.999, -1.0]
    flips = 0
    for seed in range(20):
        family = sim.draw_family(systems, 10, rng=np.random.default_rng(seed))
        flips += int(np.argmax(scheduler_sim.family_board(family, sim.RaterTraits()))) != 0
    assert 0 < flips < 20
