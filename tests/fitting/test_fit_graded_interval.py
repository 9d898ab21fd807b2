"""fitting.bootstrap with task weights and the smoothed, t-calibrated interval; its coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from fitting.bootstrap import bootstrap_macro_score, student_quantile
from tests.fitting.graded_coverage import SCENARIOS, coverage

CREDIT = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.25]
CATEGORY = ["a", "a", "a", "b", "b", "b", "c", "c"]


def test_category_scores_are_weighted_means_and_the_headline_their_mean():
    weight = [1.0, 3.0, 1.0, 2.0, 1.0, 1.0, 1.0, 3.0]
    result = bootstrap_macro_score(CREDIT, CATEGORY, weight=weight, rng=0, n_resamples=200)
    expected = [2 / 5, 2.5 / 4, 1.75 / 4]
    np.testing.assert_allclose(result.category_scores, expected)
    assert result.score == pytest.approx(np.mean(expected))


def test_weights_travel_with_their_tasks_in_every_replicate():
    # Category "a": a heavy task with credit 1 and a light one with 0. Every
    # replicate of "a" is then 0, 0.9 or 1 (never the unweighted 0.5).
    result = bootstrap_macro_score(
        [1.0, 0.0], ["a", "a"], weight=[9.0, 1.0], rng=1, n_resamples=500, interval="percentile"
    )
    assert set(np.round(result.bootstrap_distribution, 9)) <= {0.0, 0.9, 1.0}


def test_the_percentile_interval_without_weights_is_what_it_always_was():
    # Recorded with the implementation before weights: old rounds verify again.
    result = bootstrap_macro_score(CREDIT, CATEGORY, rng=7, n_resamples=999)
    assert result.confidence_interval.low == 0.3055555555555555
    assert result.confidence_interval.high == 0.8888888888888888
    assert result.interval == "percentile"


def test_equal_weights_give_the_unweighted_interval():
    plain = bootstrap_macro_score(CREDIT, CATEGORY, rng=3, interval="smoothed_t")
    ones = bootstrap_macro_score(CREDIT, CATEGORY, weight=[2.0] * 8, rng=3, interval="smoothed_t")
    assert ones.confidence_interval.low == pytest.approx(plain.confidence_interval.low)
    assert ones.confidence_interval.high == pytest.approx(plain.confidence_interval.high)


def test_the_smoothed_t_interval_is_reproducible_holds_the_score_and_stays_in_0_1():
    rng = np.random.default_rng(4)
    credit = (rng.random(24) < 0.6).astype(float)
    category = np.repeat(list("wxyz"), 6)
    weight = rng.choice([1.0, 2.0, 3.0], 24)
    kwargs = {"weight": weight, "rng": 11}
    pct = bootstrap_macro_score(credit, category, interval="percentile", **kwargs)
    t = bootstrap_macro_score(credit, category, interval="smoothed_t", **kwargs)
    again = bootstrap_macro_score(credit, category, interval="smoothed_t", **kwargs)
    assert t.confidence_interval == again.confidence_interval
    assert pct.score == t.score
    assert 0.0 <= t.confidence_interval.low < t.score < t.confidence_interval.high <= 1.0
    # Four categories of six tasks: about 20 degrees of freedom, at most 20.
    assert 5 <= t.df <= 20


def test_a_category_whose_tasks_all_passed_is_not_known_exactly():
    # Six of six passed in each category: the percentile interval collapses on 1;
    # the pseudo-tasks keep a width, as a true score below 1 is quite possible.
    credit, category = [1.0] * 12, ["a"] * 6 + ["b"] * 6
    flat = bootstrap_macro_score(credit, category, rng=0, interval="percentile")
    assert (flat.confidence_interval.low, flat.confidence_interval.high) == (1.0, 1.0)
    result = bootstrap_macro_score(credit, category, rng=0, interval="smoothed_t")
    assert result.confidence_interval.high == 1.0 == result.score
    assert 0.6 < result.confidence_interval.low < 0.95
    assert 5 <= result.df <= 10


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"weight": [1.0, 2.0]}, "`weight`"),
        ({"weight": [1.0, 0.0, 1.0]}, "`weight`"),
        ({"weight": [1.0, float("nan"), 1.0]}, "`weight`"),
        ({"interval": "bca"}, "`interval`"),
        ({"category": ["a", "a", "b"], "interval": "smoothed_t"}, "`category`"),
    ],
)
def test_bad_weights_intervals_and_lone_tasks_raise_naming_the_argument(change, name):
    call = {"credit": [1.0, 0.0, 1.0], "category": ["a", "a", "a"], "rng": 0, **change}
    with pytest.raises(ValueError, match=name):
        bootstrap_macro_score(call.pop("credit"), call.pop("category"), **call)


@pytest.mark.parametrize("df", [1, 1.5, 2, 3.7, 5, 9, 19.3, 60, 299, 300, 1e4, 1e6])
@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995])
def test_student_quantiles_match_scipy(df, p):
    assert student_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-8)


def _band(runs: int, nominal: float = 0.95, tail: float = 0.0005) -> tuple[float, float]:
    """Where the observed coverage of ``runs`` falls 99.9% of the time if the true one is
    ``nominal`` (binomial quantiles): the honest tolerance of a short simulation."""
    low = stats.binom.ppf(tail, runs, nominal) / runs
    high = stats.binom.isf(tail, runs, nominal) / runs
    return low, high


@pytest.mark.parametrize("weighted", [False, True], ids=["equal", "unequal"])
def test_the_interval_covers_the_true_score_at_the_starter_suites_size(weighted):
    # 200 simulated runs of 24 tasks in 4 categories: the coverage estimate's
    # standard error is 1.5 points, so the band is about 91.5% to 98.5%.
    low, high = _band(200)
    found = coverage(SCENARIOS["mid-table"], weighted=weighted, runs=200, seed=7)
    assert low <= found.share <= high, found


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [False, True], ids=["equal", "unequal"])
def test_the_interval_covers_93_to_97_percent_over_1000_runs(weighted):
    # The figures of docs/graded.md (seed 2026, as `python -m tests.fitting.graded_coverage`).
    found = coverage(SCENARIOS["mid-table"], weighted=weighted, runs=1000, seed=2026)
    assert 0.93 <= found.share <= 0.97, found
