"""fitting.bootstrap: macro-averaged score and its seeded percentile interval."""

from __future__ import annotations

import numpy as np
import pytest

from fitting import bootstrap_macro_score


def test_headline_is_the_mean_of_category_means():
    credit = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0]
    category = ["a", "a", "a", "a", "b", "b"]
    result = bootstrap_macro_score(credit, category, rng=0, n_resamples=200)
    np.testing.assert_array_equal(result.categories, ["a", "b"])
    np.testing.assert_allclose(result.category_scores, [0.75, 0.25])
    np.testing.assert_array_equal(result.task_counts, [4, 2])
    assert result.score == pytest.approx(0.5)


def test_same_seed_gives_the_same_interval_and_generator_is_accepted():
    credit = np.random.default_rng(1).random(60)
    category = np.repeat([1, 2, 3], 20)
    one = bootstrap_macro_score(credit, category, rng=42, n_resamples=500)
    two = bootstrap_macro_score(credit, category, rng=np.random.default_rng(42), n_resamples=500)
    assert one.confidence_interval == two.confidence_interval
    assert one.confidence_interval.low < one.score < one.confidence_interval.high
    assert one.bootstrap_distribution.shape == (500,)


def test_categories_keep_their_size_in_every_replicate():
    # A category with constant credit contributes exactly that to every replicate.
    credit = np.concatenate([np.ones(5), np.random.default_rng(2).random(30)])
    category = np.repeat(["const", "vary"], [5, 30])
    result = bootstrap_macro_score(credit, category, rng=3, n_resamples=300)
    vary = 2 * result.bootstrap_distribution - 1.0
    assert vary.min() >= 0.0 and vary.max() <= 1.0


def _coverage(n_suites: int, n_resamples: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    true_means = np.array([0.2, 0.5, 0.7, 0.9])
    sizes = np.array([40, 60, 30, 50])
    truth = true_means.mean()
    category = np.repeat(np.arange(4), sizes)
    covered = 0
    for _ in range(n_suites):
        credit = (rng.random(sizes.sum()) < np.repeat(true_means, sizes)).astype(float)
        result = bootstrap_macro_score(credit, category, rng=rng, n_resamples=n_resamples)
        covered += result.confidence_interval.low <= truth <= result.confidence_interval.high
    return covered / n_suites


def test_interval_covers_the_true_score_about_95_percent_quick():
    # 200 suites: the coverage estimate's standard error is ~1.5%, so the
    # band is widened to 95% +- 5% here; the slow test holds it to +- 2%.
    assert _coverage(200, 999, seed=5) == pytest.approx(0.95, abs=0.05)


@pytest.mark.slow
def test_interval_covers_the_true_score_95_percent_within_2_points():
    # 3000 suites: standard error ~0.4%.
    assert _coverage(3000, 1999, seed=6) == pytest.approx(0.95, abs=0.02)


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"credit": [1.5, 0.0]}, "`credit`"),
        ({"credit": []}, "`credit`"),
        ({"category": ["a"]}, "`category`"),
        ({"rng": None}, "`rng`"),
        ({"rng": -1}, "`rng`"),
        ({"confidence_level": 1.0}, "`confidence_level`"),
        ({"n_resamples": 0}, "`n_resamples`"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(change, name):
    call = {"credit": [1.0, 0.0], "category": ["a", "b"], "rng": 0, **change}
    with pytest.raises(ValueError, match=name):
        bootstrap_macro_score(call.pop("credit"), call.pop("category"), **call)
