"""fitting.points: hand-worked fits, anchor, unranked, unbounded, ranks, flags."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitting import DEFAULT_PENALTY, POINTS_PER_LOGIT, fit_points


def _votes(*triples: tuple[int, int, float], repeat: int = 1):
    a, b, y = zip(*triples, strict=True)
    return (
        np.repeat(np.array(a), repeat),
        np.repeat(np.array(b), repeat),
        np.repeat(np.array(y, dtype=float), repeat),
    )


def test_three_wins_to_one_is_ln3_apart_unpenalized():
    a, b, y = _votes((0, 1, 1), (0, 1, 1), (0, 1, 1), (0, 1, 0))
    result = fit_points(a, b, y, n_systems=2, penalty=0.0, anchor=1)
    assert result.strengths[0] - result.strengths[1] == pytest.approx(math.log(3), abs=1e-9)
    assert result.points[0] - result.points[1] == pytest.approx(400 * math.log10(3), abs=1e-7)
    assert result.points[1] == 1000.0
    assert result.converged and 0 < result.iterations < 10


def test_chain_of_two_three_to_one_records_adds_up():
    # 0 beat 1 three times to one, 1 beat 2 three to one, 0 and 2 never met:
    # the likelihood factorises, so 0 is 2*ln 3 above 2.
    a, b, y = _votes((0, 1, 1), (0, 1, 1), (0, 1, 1), (1, 0, 1), (1, 2, 1), (1, 2, 1))
    a, b, y = np.append(a, [1, 2]), np.append(b, [2, 1]), np.append(y, [1, 1])
    result = fit_points(a, b, y, n_systems=3, penalty=0.0, anchor=2)
    assert result.points[0] - result.points[2] == pytest.approx(800 * math.log10(3), abs=1e-6)
    assert result.points[1] - result.points[2] == pytest.approx(400 * math.log10(3), abs=1e-6)


def test_cycle_of_three_gives_equal_points():
    a, b, y = _votes((0, 1, 1), (1, 2, 1), (2, 0, 1))
    result = fit_points(a, b, y, n_systems=3, penalty=0.0)
    np.testing.assert_allclose(result.points, 1000.0, atol=1e-9)
    assert list(result.ranks) == [1, 1, 1]


def test_ties_count_half_a_win_to_each_side():
    # Two ties and one win for 0: 0 has 2 wins' worth, 1 has 1.
    a, b, y = _votes((0, 1, 0.5), (1, 0, 0.5), (0, 1, 1))
    result = fit_points(a, b, y, n_systems=2, penalty=0.0)
    assert result.strengths[0] - result.strengths[1] == pytest.approx(math.log(2), abs=1e-9)


def test_weight_equals_repeating_the_comparison():
    a, b, y = _votes((0, 1, 1), (1, 2, 1), (2, 0, 0), (0, 2, 0.5))
    weighted = fit_points(a, b, y, [3.0, 1.0, 2.0, 1.0], n_systems=3, penalty=0.5)
    repeated = fit_points(
        np.repeat(a, [3, 1, 2, 1]),
        np.repeat(b, [3, 1, 2, 1]),
        np.repeat(y, [3, 1, 2, 1]),
        n_systems=3,
        penalty=0.5,
    )
    np.testing.assert_allclose(weighted.points, repeated.points, atol=1e-9)


def test_side_order_of_a_comparison_does_not_matter():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 5, 200)
    b = (a + rng.integers(1, 5, 200)) % 5
    y = rng.choice([0.0, 0.5, 1.0], 200)
    one = fit_points(a, b, y, n_systems=5, anchor=0)
    other = fit_points(b, a, 1.0 - y, n_systems=5, anchor=0)
    np.testing.assert_allclose(one.points, other.points, atol=1e-9)


def test_penalty_keeps_a_system_that_only_wins_finite():
    # 0 beat 1 once, never lost: sigma(-2t) = penalty * t with s = (t, -t).
    result = fit_points([0], [1], [1.0], n_systems=2, penalty=DEFAULT_PENALTY)
    t = result.strengths[0]
    assert result.strengths[1] == pytest.approx(-t)
    assert 1.0 / (1.0 + math.exp(2 * t)) == pytest.approx(DEFAULT_PENALTY * t, rel=1e-6)
    assert result.mle_exists and list(result.status) == ["ranked", "ranked"]


def test_penalty_matters_only_for_sparse_data(simulate_rater):
    rng = np.random.default_rng(11)
    shifts = []
    for n_votes in (20_000, 60):  # 4,000 and 12 votes per system
        sim = simulate_rater(rng, n_systems=10, n_votes=n_votes)
        exact = fit_points(sim.a, sim.b, sim.y, n_systems=10, penalty=0.0, anchor=0)
        shrunk = fit_points(sim.a, sim.b, sim.y, n_systems=10, anchor=0)
        ranked = exact.ranked
        shifts.append(np.max(np.abs(exact.points[ranked] - shrunk.points[ranked])))
    dense, sparse = shifts
    assert dense < 0.1
    assert sparse > 10 * dense
    # Where it matters most: a system that never lost gets finite points.
    alone = fit_points([0, 0, 1], [1, 2, 2], [1.0, 1.0, 1.0], n_systems=3, anchor=1)
    assert alone.ranked.all() and np.isfinite(alone.points).all()


def test_unpenalized_fit_reports_systems_that_never_lose_or_never_win():
    # 0 beats 1 and 2; 1 and 2 trade wins; 3 loses to everyone.
    a, b, y = _votes((0, 1, 1), (0, 2, 1), (1, 2, 1), (2, 1, 1), (1, 3, 1), (2, 3, 1))
    result = fit_points(a, b, y, n_systems=4, penalty=0.0, anchor=1)
    assert not result.mle_exists
    assert list(result.status) == ["unbounded_above", "ranked", "ranked", "unbounded_below"]
    assert np.isnan(result.points[[0, 3]]).all()
    assert list(result.ranks) == [0, 1, 1, 0]
    # The ranked part is the exact fit of the comparisons within it.
    assert result.points[2] == pytest.approx(1000.0)


def test_unbounded_system_not_ordered_against_the_anchor_is_reported_as_such():
    # 0 and 1 both beat 2 and never lose; 0 and 1 never met.
    a, b, y = _votes((0, 2, 1), (1, 2, 1))
    result = fit_points(a, b, y, n_systems=3, penalty=0.0, anchor=0)
    assert list(result.status) == ["ranked", "unbounded", "unbounded_below"]


def test_penalized_fit_of_the_same_data_ranks_everyone():
    a, b, y = _votes((0, 1, 1), (0, 2, 1), (1, 2, 1), (2, 1, 1), (1, 3, 1), (2, 3, 1))
    result = fit_points(a, b, y, n_systems=4, penalty=0.1, anchor=1)
    assert result.mle_exists and result.ranked.all()
    assert result.points[0] > result.points[1] > result.points[3]


def test_systems_outside_the_anchors_component_are_unranked():
    a, b, y = _votes((0, 1, 1), (1, 0, 1), (2, 3, 1), (3, 2, 0.5))
    result = fit_points(a, b, y, n_systems=5, penalty=0.0, anchor=0)
    assert list(result.status) == ["ranked", "ranked", "unranked", "unranked", "no_comparisons"]
    assert np.isnan(result.points[2:]).all()
    assert list(result.ranks) == [1, 1, 0, 0, 0]
    assert result.component[0] == result.component[1] != result.component[2]


def test_anchor_falls_back_to_the_most_voted_system_with_reason():
    a, b, y = _votes((0, 1, 1), (1, 2, 1), (1, 2, 0), (2, 0, 0.5))
    missing = fit_points(a, b, y, n_systems=4, anchor=3)
    assert (missing.anchor, missing.anchor_requested) == (1, 3)
    assert missing.anchor_reason == "requested_has_no_comparisons"
    assert missing.points[1] == 1000.0
    unset = fit_points(a, b, y, n_systems=4)
    assert (unset.anchor, unset.anchor_reason) == (1, "none_requested")
    given = fit_points(a, b, y, n_systems=4, anchor=2, base=1500.0)
    assert (given.anchor, given.anchor_reason, given.points[2]) == (2, "requested", 1500.0)


def test_most_voted_counts_weight_and_breaks_ties_by_lowest_index():
    result = fit_points([0, 2], [1, 3], [1.0, 1.0], [1.0, 2.5], n_systems=4)
    assert (result.anchor, list(result.anchor_tie), result.anchor_candidates) == (2, [2, 3], 4)
    assert list(result.weight) == [1.0, 1.0, 2.5, 2.5]
    tied = fit_points([0, 2], [1, 3], [1.0, 1.0], n_systems=4)
    assert (tied.anchor, list(tied.anchor_tie)) == (0, [0, 1, 2, 3])
    # 0.1 + 0.2 is not 0.3 in floating point: weights that close still tie.
    close = fit_points([0, 2, 2], [1, 3, 3], [1.0, 1.0, 1.0], [0.3, 0.1, 0.2], n_systems=4)
    assert (close.anchor, list(close.anchor_tie)) == (0, [0, 1, 2, 3])


def test_without_a_penalty_an_unrankable_reference_gives_way_to_a_rankable_system():
    # R (0) beats S (1) 5-0 and T (2) 5-0, S beats T 3-2: R's points are infinite, S and T
    # have finite points against each other.
    a, b, y = _votes(*[(0, 1, 1)] * 5, *[(0, 2, 1)] * 5, *[(1, 2, 1)] * 3, *[(1, 2, 0)] * 2)
    result = fit_points(a, b, y, n_systems=3, penalty=0.0, anchor=0)
    assert (result.anchor, result.anchor_reason) == (1, "requested_unrankable")
    assert list(result.status) == ["unbounded_above", "ranked", "ranked"]
    assert result.points[1] - result.points[2] == pytest.approx(400 * math.log10(1.5), abs=1e-6)
    # S and T, the only two that can be ranked, have 10 comparisons each: S comes first.
    assert (list(result.anchor_tie), result.anchor_candidates) == ([1, 2], 2)
    unset = fit_points(a, b, y, n_systems=3, penalty=0.0)
    assert (unset.anchor, unset.anchor_reason, list(unset.ranks)) == (
        1,
        "none_requested",
        [0, 1, 2],
    )
    # With a penalty every compared system has finite points: the reference stays.
    assert fit_points(a, b, y, n_systems=3, anchor=0).anchor_reason == "requested"


def test_without_a_penalty_and_nobody_rankable_the_reference_stays():
    # 0 beats 1 beats 2: every system is alone in its group, no anchor ranks another.
    a, b, y = _votes((0, 1, 1), (1, 2, 1))
    result = fit_points(a, b, y, n_systems=3, penalty=0.0, anchor=2)
    assert (result.anchor, result.anchor_reason, result.anchor_candidates) == (2, "requested", 0)
    unset = fit_points(a, b, y, n_systems=3, penalty=0.0)
    assert (unset.anchor, unset.anchor_candidates, list(unset.anchor_tie)) == (1, 3, [])


def test_no_comparisons_at_all_ranks_nobody():
    result = fit_points([], [], [], n_systems=3)
    assert result.anchor is None and result.anchor_reason == "no_comparisons"
    assert list(result.status) == ["no_comparisons"] * 3
    assert np.isnan(result.points).all()


def test_equal_displayed_points_share_a_rank():
    # 1 and 2 are symmetric, so equal; 0 is clearly ahead, 3 clearly behind.
    a, b, y = _votes((0, 1, 1), (0, 2, 1), (1, 2, 1), (2, 1, 1), (1, 3, 1), (2, 3, 1), repeat=2)
    a = np.append(a, [1, 2, 3, 3])
    b = np.append(b, [0, 0, 1, 2])
    y = np.append(y, [1.0] * 4)
    result = fit_points(a, b, y, n_systems=4, penalty=0.0, anchor=3)
    assert result.mle_exists
    assert list(result.ranks) == [1, 2, 2, 4]


def test_ranks_use_whole_displayed_points():
    # Different strengths that display as the same whole number share a rank.
    # 0 wins 1001 of 2000: ln(1001/999) logits, about 0.35 points ahead.
    a, b, y = np.zeros(2000, int), np.ones(2000, int), np.repeat([1.0, 0.0], [1001, 999])
    result = fit_points(a, b, y, n_systems=2, penalty=0.0)
    assert 0 < result.points[0] - result.points[1] < 0.5
    assert list(result.ranks) == [1, 1]


def test_preliminary_below_the_decisive_vote_threshold():
    a, b, y = _votes((0, 1, 1), (0, 1, 0.5), (1, 2, 0), (0, 2, 1))
    default = fit_points(a, b, y, n_systems=3, threshold=2)
    np.testing.assert_array_equal(default.decisive_votes, [2, 2, 2])
    assert not default.preliminary.any()
    human = np.array([True, True, False, False])
    masked = fit_points(a, b, y, n_systems=3, decisive=human, threshold=2)
    np.testing.assert_array_equal(masked.decisive_votes, [2, 2, 0])
    np.testing.assert_array_equal(masked.preliminary, [False, False, True])
    given = fit_points(a, b, y, n_systems=3, decisive_votes=[5, 1, 9], threshold=2)
    np.testing.assert_array_equal(given.preliminary, [False, True, False])


def test_result_records_settings():
    result = fit_points([0], [1], [1.0], n_systems=2, penalty=0.25, base=900.0, threshold=3)
    assert (result.penalty, result.base, result.threshold) == (0.25, 900.0, 3.0)
    assert result.tol == 1e-10 and result.max_iter == 100
    assert result.gradient_norm <= 1e-10


def test_points_scale_is_400_over_ln10_per_logit():
    result = fit_points([0, 1], [1, 0], [1.0, 0.0], n_systems=2, penalty=1.0, anchor=1)
    difference = result.strengths[0] - result.strengths[1]
    assert result.points[0] - 1000.0 == pytest.approx(POINTS_PER_LOGIT * difference)


def test_large_fit_converges_to_the_gradient_tolerance(simulate_rater):
    sim = simulate_rater(np.random.default_rng(5), n_systems=100, n_votes=100_000, tie_rate=0.1)
    result = fit_points(sim.a, sim.b, sim.y, n_systems=100, penalty=0.0)
    assert result.converged and result.iterations <= 10
    assert result.gradient_norm <= 1e-10 * sim.a.size


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"a": [0.5], "b": [1], "y": [1]}, "`a`"),
        ({"a": [0], "b": [2], "y": [1]}, "`b`"),
        ({"a": [0], "b": [0], "y": [1]}, "`a` and `b`"),
        ({"a": [0], "b": [1], "y": [2.0]}, "`y`"),
        ({"a": [0], "b": [1], "y": [1, 0]}, "`y`"),
        ({"a": [0], "b": [1], "y": [1], "w": [-1.0]}, "`w`"),
        ({"a": [0], "b": [1], "y": [1], "w": [np.nan]}, "`w`"),
        ({"a": [0], "b": [1], "y": [1], "n_systems": 0}, "`n_systems`"),
        ({"a": [0], "b": [1], "y": [1], "penalty": -1.0}, "`penalty`"),
        ({"a": [0], "b": [1], "y": [1], "anchor": 7}, "`anchor`"),
        ({"a": [0], "b": [1], "y": [1], "base": math.inf}, "`base`"),
        ({"a": [0], "b": [1], "y": [1], "tol": 0.0}, "`tol`"),
        ({"a": [0], "b": [1], "y": [1], "max_iter": 0}, "`max_iter`"),
        ({"a": [0], "b": [1], "y": [1], "decisive": [1]}, "`decisive`"),
        ({"a": [0], "b": [1], "y": [1], "decisive_votes": [1]}, "`decisive_votes`"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(kwargs, name):
    call = {"n_systems": 2, **kwargs}
    with pytest.raises(ValueError, match=name):
        fit_points(call.pop("a"), call.pop("b"), call.pop("y"), call.pop("w", None), **call)


def test_recovers_planted_strengths_despite_side_and_length_bias(simulate_rater):
    # 30k counterbalanced votes on 10 systems (about 6 points of standard
    # error each); leaving side and length bias out of the fit attenuates
    # strengths by ~2-3%, so 30 points is the stated tolerance.
    sim = simulate_rater(
        np.random.default_rng(21), n_systems=10, n_votes=30_000, side_bias=0.3, length_bias=0.3
    )
    result = fit_points(sim.a, sim.b, sim.y, n_systems=10)
    fitted = result.strengths - result.strengths.mean()
    planted = sim.strengths - sim.strengths.mean()
    assert np.max(np.abs(POINTS_PER_LOGIT * (fitted - planted))) < 30


def test_noisy_rater_with_ties_keeps_the_planted_order(simulate_rater):
    from scipy.stats import kendalltau

    sim = simulate_rater(
        np.random.default_rng(22), n_systems=10, n_votes=30_000, noise=0.1, tie_rate=0.1
    )
    result = fit_points(sim.a, sim.b, sim.y, n_systems=10)
    assert kendalltau(result.points, sim.strengths).statistic > 0.9


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), penalty=st.sampled_from([0.0, 0.01, 1.0]))
def test_relabelling_systems_relabels_the_points(seed, penalty):
    rng = np.random.default_rng(seed)
    n, m = 5, 40
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    y = rng.choice([0.0, 0.5, 1.0], m)
    w = rng.choice([0.5, 1.0, 3.0], m)
    perm = rng.permutation(n)
    one = fit_points(a, b, y, w, n_systems=n, penalty=penalty, anchor=int(a[0]))
    two = fit_points(perm[a], perm[b], y, w, n_systems=n, penalty=penalty, anchor=int(perm[a[0]]))
    np.testing.assert_allclose(two.points[perm], one.points, atol=1e-7, equal_nan=True)
    np.testing.assert_array_equal(two.status[perm], one.status)
