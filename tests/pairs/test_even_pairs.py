"""A rater who cannot tell two systems apart is not served a run of them: their ties lower
their value to adaptive choice, and no third pair of two systems comes in a row while
another system pair has a pair left."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from arena.pairs.adaptive import OrderModel
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy, system_pair
from arena.pairs.settling import PendingPair
from fitting import information

# Planted strengths (logits) and the share of ties and "both bad" of three families.
FAMILIES = {
    "distinct": ([0.0, 0.8, 1.6, 2.4, 3.2], 0.05, 0.03),
    "near-ties": ([0.0, 0.15, 0.3, 0.45, 0.6], 0.1, 0.05),
    "indistinguishable": ([0.0, 0.0, 0.0], 0.6, 0.1),
}


def _family(n_systems: int, cases: int):
    systems = {f"c{c:02d}-s{s}": f"s{s}" for c in range(cases) for s in range(n_systems)}
    candidates = [
        PendingPair(a.split("-")[0], a, b, systems[a], systems[b])
        for a, b in combinations(sorted(systems), 2)
        if a.split("-")[0] == b.split("-")[0] and systems[a] != systems[b]
    ]
    return candidates, systems


def _vote(scheduler: LiveScheduler, systems, strengths, tie, both_bad, rng):
    """Show the next pair and vote on it as the planted rater; the pair shown (None: none
    is left)."""
    planned = scheduler.next()
    if planned is None:
        return None
    pid = f"p{len(scheduler.history)}"
    scheduler.shown(
        pid, planned.case_id, planned.left_output, planned.right_output, planned.repeat_of
    )
    left, right = (int(systems[o][1:]) for o in (planned.left_output, planned.right_output))
    p_left = (1 - tie - both_bad) / (1 + np.exp(strengths[right] - strengths[left]))
    choice = rng.choice(
        ["left", "right", "tie", "both_bad"], p=[p_left, 1 - tie - both_bad - p_left, tie, both_bad]
    )
    scheduler.voted(pid, f"v{pid}", str(choice), session_id="s")
    return planned


def test_a_pair_voted_even_is_worth_less_to_the_board():
    pairs = list(combinations("abcd", 2))
    votes = [(a, b, "left") for a, b in pairs] * 2

    def model_of(extra: list[tuple[str, str, str]]) -> OrderModel:
        model = OrderModel("abcd")
        model.count_all(*zip(*votes, *extra, strict=True))
        return model

    # Four ties between a and b weigh in the fit as two wins each way.
    ties = model_of([("a", "b", "tie")] * 4)
    decisive = model_of([("a", "b", "left"), ("b", "a", "left")] * 2)
    assert np.array_equal(decisive.wins, ties.wins)
    at = np.array([[ties.at[a], ties.at[b]] for a, b in pairs])
    gains = information.order_gain(information.posterior(ties.wins), at[:, 0], at[:, 1])
    assert decisive.best(pairs) == pairs[int(np.argmax(gains))] == ("a", "b")
    assert ties.best(pairs) != ("a", "b")  # but four ties in six votes say little of the order
    assert model_of([("a", "b", "both_bad")] * 4).best(pairs) == ties.best(pairs)


@pytest.mark.parametrize("pair_choice", ["adaptive", "coverage"])
@pytest.mark.parametrize("seed", range(3))
def test_three_alike_systems_never_come_three_in_a_row_while_another_pair_is_left(
    pair_choice, seed
):
    strengths, tie, both_bad = FAMILIES["indistinguishable"]
    candidates, systems = _family(3, cases=30)
    scheduler = LiveScheduler(
        candidates,
        systems,
        [],
        seed=seed,
        repeats=RepeatPolicy(share=0.3, gap=2, minutes=0),
        pair_choice=pair_choice,
    )
    rng = np.random.default_rng(seed)
    open_by_pair = Counter(system_pair(c.system_a, c.system_b) for c in candidates)
    run: list[tuple[str, str]] = []
    while (planned := _vote(scheduler, systems, strengths, tie, both_bad, rng)) is not None:
        pair = system_pair(systems[planned.left_output], systems[planned.right_output])
        if len(run) >= 2 and run[-1] == run[-2] == pair:
            # A third in a row: only when no other system pair has a pair left.
            assert not any(n for p, n in open_by_pair.items() if p != pair)
        if planned.repeat_of is None:
            open_by_pair[pair] -= 1
        run.append(pair)
    assert sum(open_by_pair.values()) == 0 and len(run) > 90  # every pair, and repeats
