"""fitting.agreement: side-swapped repeats mapped back to the original sides."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fitting import rater_agreement


def test_swapped_repeat_is_mapped_back_before_comparing():
    result = rater_agreement(
        ["left", "right", "tie", "both_bad", "left"],
        ["right", "left", "tie", "both_bad", "left"],
    )
    assert (result.agreed, result.count) == (4, 5)
    assert result.share == pytest.approx(0.8)


def test_repeats_already_mapped_are_compared_as_they_are():
    result = rater_agreement(["left", "right"], ["left", "left"], swapped=False)
    assert (result.agreed, result.count) == (1, 2)


def test_swap_can_be_given_per_repeat():
    result = rater_agreement(["left", "left"], ["right", "left"], swapped=[True, False])
    assert result.agreed == 2


def test_no_repeats_gives_nan_share():
    result = rater_agreement([], [])
    assert math.isnan(result.share) and result.count == 0


def test_recovers_the_agreement_of_a_simulated_noisy_rater():
    # The rater picks the better output with probability q on each showing,
    # independently, so a repeat agrees with probability q^2 + (1-q)^2.
    rng = np.random.default_rng(0)
    q, n = 0.8, 4000
    better_left = rng.random(n) < 0.5
    first_right = rng.random(n) < q
    again_right = rng.random(n) < q
    original = np.where(first_right == better_left, "left", "right")
    # The repeat shows the pair swapped: the better output is now on the right.
    repeat = np.where(again_right == better_left, "right", "left")
    result = rater_agreement(original, repeat)
    assert result.share == pytest.approx(q**2 + (1 - q) ** 2, abs=0.03)


@pytest.mark.parametrize(
    ("original", "repeat", "kwargs", "name"),
    [
        (["left"], ["up"], {}, "`repeat`"),
        (["sideways"], ["left"], {}, "`original`"),
        (["left"], ["left", "right"], {}, "`repeat`"),
        (["left"], ["left"], {"swapped": "yes"}, "`swapped`"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(original, repeat, kwargs, name):
    with pytest.raises(ValueError, match=name):
        rater_agreement(original, repeat, **kwargs)
