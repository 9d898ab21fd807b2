"""A rater's split-half τ splits their own sessions by parity, not the family's."""

from __future__ import annotations

from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.rating.colleague import rated_by_colleague
from tests.rounds.test_raters_summary import _rater_votes


def test_a_raters_first_session_is_their_odd_half(ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path)  # dana's votes: the family's session 1
    _rater_votes(ledger, family, range(24, 40))  # the rater's first: the family's second
    summary = close_round(ledger, family, RoundSettings()).summary
    assert summary.unavailable is not None
    assert summary.unavailable["split_half_tau"].startswith("24 votes in odd and 16 in even")
    dana, rater = summary.raters or []
    assert dana.unavailable["split_half_tau"].startswith("24 votes in odd and 0 in even")
    assert rater.unavailable["split_half_tau"].startswith("16 votes in odd and 0 in even")
