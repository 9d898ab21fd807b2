"""A team's round records each rater's votes and the weight they were fitted with."""

from __future__ import annotations

import pytest

from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.rating.colleague import rated_by_colleague
from tests.rounds.test_raters_summary import _rater_votes


@pytest.fixture
def team(ledger: Ledger, tmp_path) -> str:
    family = rated_by_colleague(ledger, tmp_path)
    _rater_votes(ledger, family, range(24, 40))
    return family


def test_unit_weighting_counts_each_vote_once(ledger, team):
    raters = close_round(ledger, team, RoundSettings()).summary.raters
    assert raters is not None
    assert {r.rater: (r.votes, r.weight) for r in raters} == {
        "dana": (24, 24.0),
        "rater": (16, 16.0),
    }


@pytest.mark.parametrize("cap, weights", [(10.0, (10.0, 10.0)), (20.0, (20.0, 16.0))])
def test_ledger_weighting_caps_each_rater(ledger, team, cap, weights):
    found = close_round(ledger, team, RoundSettings(weighting="ledger", cap=cap))
    raters = found.summary.raters
    assert raters is not None
    # Every vote counted; each rater's weight at most the cap (dana's 24, the rater's 16).
    assert [(r.rater, r.votes) for r in raters] == [("dana", 24), ("rater", 16)]
    assert [r.weight for r in raters] == pytest.approx(weights)
