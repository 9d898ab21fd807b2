"""Prediction-powered Bradley–Terry: ppi-python's estimate, the rater-only fit at lam = 0,
calibrated intervals with a position-biased judge, never wider than the rater's alone."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from fitting import POINTS_PER_LOGIT, fit_points, fit_prediction_powered

SYSTEMS = 6
PAIRS = np.array([(i, j) for i in range(SYSTEMS) for j in range(i + 1, SYSTEMS)])


def _items(rng, strengths, pair_index, *, left_bias, accuracy, ties=0.0):
    """Items on the pairs ``pair_index``, the first system shown left half the time: the
    rater's outcome (Bradley–Terry, ``ties`` of them ties) and a judge that is right with
    probability ``accuracy`` and, with probability ``left_bias``, says "left" whatever."""
    n = pair_index.size
    first, second = PAIRS[pair_index, 0], PAIRS[pair_index, 1]
    left = rng.random(n) < 0.5
    a, b = np.where(left, first, second), np.where(left, second, first)  # a is shown left
    y = (rng.random(n) < expit(strengths[a] - strengths[b])).astype(np.float64)
    y = np.where(rng.random(n) < ties, 0.5, y)
    honest = np.where(rng.random(n) < accuracy, y, 1.0 - y)
    y_hat = np.where(rng.random(n) < left_bias, 1.0, honest)
    return a, b, y, y_hat


def _design_matrix(a, b, anchor):
    x = np.zeros((a.size, SYSTEMS))
    x[np.arange(a.size), a] += 1.0
    x[np.arange(a.size), b] -= 1.0
    return np.delete(x, anchor, axis=1)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # sklearn, inside ppi_py
@pytest.mark.parametrize("lam", [0.0, 0.3, 0.6, 1.0])
def test_point_estimate_equals_ppi_python(lam):
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(3)
    strengths = rng.normal(0.0, 1.0, SYSTEMS)
    # Each pair's own number of votes; the judge judged each voted item and k - 1 others
    # like it (a proportional design, so one unstratified lam is our stratified one).
    k = 4
    votes = np.repeat(np.arange(len(PAIRS)), rng.integers(20, 60, len(PAIRS)))
    a, b, y, y_hat = _items(rng, strengths, votes, left_bias=0.5, accuracy=0.8)
    ua, ub, _, u_hat = _items(rng, strengths, np.repeat(votes, k - 1), left_bias=0.5, accuracy=0.8)
    anchor = 0
    ours = fit_prediction_powered(
        a,
        b,
        y,
        y_hat,
        unlabeled_a=ua,
        unlabeled_b=ub,
        unlabeled_y_hat=u_hat,
        n_systems=SYSTEMS,
        lam=lam,
        penalty=0.0,
        anchor=anchor,
        tol=1e-13,
    )
    # ppi_py minimises (1/n) sum_lab [l(y) - lam' l(y_hat)] + (lam'/N') sum_unlab l(y_hat)
    # over disjoint sets (N' = (k-1) n items the rater did not vote on). Ours sums the
    # judge term over all k n_s items of each stratum with weight lam n_s / (k n_s): the
    # voted items' part of it moves into the rectifier, leaving lam' = lam (1 - 1/k) on
    # l(y_hat) there and lam / k = lam' / (k - 1) on each other item. Divided by n, the
    # two objectives are the same; x = e_a - e_b without the anchor's column, no
    # intercept, no penalty, unit weights: theta_i = s_i - s_anchor.
    theirs = ppi_py.ppi_logistic_pointestimate(
        _design_matrix(a, b, anchor),
        y,
        y_hat,
        _design_matrix(ua, ub, anchor),
        u_hat,
        lam=lam * (1 - 1 / k),
    )
    s = ours.board.strengths
    assert np.max(np.abs(np.delete(s - s[anchor], anchor) - theirs)) < 1e-6
    assert ours.lam == lam


def _draw(rng, strengths, *, votes, judged, left_bias=0.72, accuracy=0.8, ties=0.0):
    """The rater's votes on pairs a skewed design chose (the later pairs more often) and a
    judge's verdicts on as many items again spread evenly: a board whose pairs the design
    picked, which stratifying must undo."""
    skew = np.arange(1, len(PAIRS) + 1, dtype=np.float64)
    chosen = rng.choice(len(PAIRS), votes, p=skew / skew.sum())
    even = rng.integers(0, len(PAIRS), judged)
    kw = {"left_bias": left_bias, "accuracy": accuracy, "ties": ties}
    a, b, y, y_hat = _items(rng, strengths, chosen, **kw)
    ua, ub, _, u_hat = _items(rng, strengths, even, **kw)
    return {
        "a": a,
        "b": b,
        "y": y,
        "y_hat": y_hat,
        "unlabeled_a": ua,
        "unlabeled_b": ub,
        "unlabeled_y_hat": u_hat,
    }


def test_lam_zero_is_the_rater_only_fit_to_the_last_digit():
    rng = np.random.default_rng(5)
    data = _draw(rng, rng.normal(0, 1, SYSTEMS), votes=400, judged=2000, ties=0.2)
    # Settled pairs (weights 1/(k_a k_b)) first, as a round fits them.
    fixed_a, fixed_b = np.array([1, 2, 3]), np.array([4, 5, 0])
    fixed_y, fixed_w = np.array([1.0, 0.0, 1.0]), np.array([0.25, 1 / 3, 0.5])
    found = fit_prediction_powered(
        **data,
        fixed_a=fixed_a,
        fixed_b=fixed_b,
        fixed_y=fixed_y,
        fixed_w=fixed_w,
        n_systems=SYSTEMS,
        lam=0.0,
        anchor=2,
    )
    today = fit_points(
        np.concatenate([fixed_a, data["a"]]),
        np.concatenate([fixed_b, data["b"]]),
        np.concatenate([fixed_y, data["y"]]),
        np.concatenate([fixed_w, np.ones(data["a"].size)]),
        n_systems=SYSTEMS,
        anchor=2,
    )
    np.testing.assert_array_equal(found.board.points, today.points)
    np.testing.assert_array_equal(found.board.strengths, today.strengths)
    assert found.effective_votes == 400 and found.effective_votes_ci == (400.0, 400.0)


def _coverage(draws, *, seed, votes=600, judged=3000, left_bias=0.72, accuracy=0.8):
    rng = np.random.default_rng(seed)
    strengths = np.linspace(-1.0, 1.0, SYSTEMS)
    rng.shuffle(strengths)
    truth = 1000.0 + POINTS_PER_LOGIT * (strengths - strengths[0])
    held, total, ratios, lams = 0, 0, [], []
    for _ in range(draws):
        data = _draw(
            rng, strengths, votes=votes, judged=judged, left_bias=left_bias, accuracy=accuracy
        )
        found = fit_prediction_powered(**data, n_systems=SYSTEMS, anchor=0, n_resamples=20)
        others = slice(1, None)
        held += int(
            np.sum((found.low[others] <= truth[others]) & (truth[others] <= found.high[others]))
        )
        total += SYSTEMS - 1
        ratios.append(found.standard_error[others] / found.rater_only_standard_error[others])
        lams.append(found.lam)
    return held / total, np.array(ratios), np.array(lams)


def test_intervals_hold_the_rater_board_with_a_position_biased_judge():
    # A judge that says "left" 86% of the time (72% whatever it read, else 80% right).
    coverage, ratios, lams = _coverage(200, seed=11)
    assert 0.93 <= coverage <= 0.97
    assert np.all(ratios <= 1.0 + 1e-9)  # never wider than the rater's board alone
    assert np.mean(lams > 0) > 0.5  # and the judge is used in most draws


@pytest.mark.slow
@pytest.mark.parametrize(
    ("left_bias", "accuracy"),
    [(0.72, 0.8), (0.0, 0.83), (0.0, 0.6)],
    ids=["biased", "good", "noisy"],
)
def test_intervals_are_calibrated_over_many_draws(left_bias, accuracy):
    coverage, ratios, _ = _coverage(1000, seed=17, left_bias=left_bias, accuracy=accuracy)
    assert 0.93 <= coverage <= 0.97
    assert np.all(ratios <= 1.0 + 1e-9)


def test_a_good_judge_is_worth_more_votes_than_the_rater_cast():
    rng = np.random.default_rng(23)
    data = _draw(
        rng, rng.normal(0, 1, SYSTEMS), votes=600, judged=5000, left_bias=0.0, accuracy=0.83
    )
    found = fit_prediction_powered(**data, n_systems=SYSTEMS)
    assert 0.0 < found.lam <= found.lam_tuned <= 1.0
    assert found.qualified[list(found.lam_tried).index(found.lam)]
    low, high = found.effective_votes_ci
    assert 600 < low < found.effective_votes < high
    ranked = found.board.ranked & (np.arange(SYSTEMS) != found.board.anchor)
    assert np.all(found.standard_error[ranked] < found.rater_only_standard_error[ranked])


def test_a_judge_that_knows_nothing_gets_no_weight():
    rng = np.random.default_rng(29)
    data = _draw(rng, rng.normal(0, 1, SYSTEMS), votes=500, judged=3000)
    data["y_hat"] = rng.random(500)
    data["unlabeled_y_hat"] = rng.random(3000)
    found = fit_prediction_powered(**data, n_systems=SYSTEMS)
    # Whatever weight was tried, the board kept is no wider than the rater's alone.
    assert found.lam <= found.lam_tuned < 0.2
    ranked = found.board.ranked
    assert np.all(found.standard_error[ranked] <= found.rater_only_standard_error[ranked] + 1e-9)


def test_votes_without_a_prediction_and_unjudged_pairs_enter_as_votes():
    rng = np.random.default_rng(31)
    data = _draw(rng, rng.normal(0, 1, SYSTEMS), votes=300, judged=1000)
    data["y_hat"] = np.where(np.arange(300) % 3 == 0, np.nan, data["y_hat"])
    found = fit_prediction_powered(**data, n_systems=SYSTEMS, lam=0.5)
    alone = fit_points(data["a"], data["b"], data["y"], n_systems=SYSTEMS)
    # Same graph, same anchor, different points: the judge moved them.
    assert found.board.anchor == alone.anchor
    assert not np.allclose(found.board.points, alone.points)
    assert found.votes == 300


def test_selection_probabilities_reweight_the_rater_votes():
    rng = np.random.default_rng(37)
    data = _draw(rng, rng.normal(0, 1, SYSTEMS), votes=300, judged=1000)
    even = fit_prediction_powered(
        **data, n_systems=SYSTEMS, lam=0.0, selection_probability=np.full(300, 0.1)
    )
    alone = fit_points(data["a"], data["b"], data["y"], n_systems=SYSTEMS)
    np.testing.assert_allclose(even.board.points, alone.points, rtol=0, atol=1e-9)
    uneven = fit_prediction_powered(
        **data, n_systems=SYSTEMS, lam=0.0, selection_probability=np.linspace(0.05, 1, 300)
    )
    assert not np.allclose(uneven.board.points, alone.points)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"y_hat": np.full(5, 1.5)}, "`y_hat`"),
        ({"unlabeled_y_hat": np.array([np.nan])}, "`unlabeled_y_hat`"),
        ({"lam": 2.0}, "`lam`"),
        ({"selection_probability": np.zeros(5)}, "`selection_probability`"),
        ({"cluster": np.array([0, 1])}, "`cluster`"),
        ({"confidence_level": 1.0}, "`confidence_level`"),
    ],
)
def test_bad_input_names_the_argument(change, named):
    data = {
        "a": np.array([0, 1, 2, 0, 1]),
        "b": np.array([1, 2, 0, 2, 0]),
        "y": np.array([1.0, 0.0, 0.5, 1.0, 0.0]),
        "y_hat": np.array([0.5, 0.0, 1.0, 1.0, 0.5]),
        "unlabeled_a": np.array([0]),
        "unlabeled_b": np.array([1]),
        "unlabeled_y_hat": np.array([1.0]),
        "n_systems": 3,
    }
    with pytest.raises(ValueError, match=named):
        fit_prediction_powered(**{**data, **change})
