"""A round of a team of raters: each rater's figures are their own."""

from __future__ import annotations

from arena.ledger import Ledger, catalog, voting
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.rating.colleague import rated_by_colleague
from tests.votes_helpers import show_and_vote


def _repeat(ledger: Ledger, session, vote, choice: str):
    """A repeat of ``vote`` with its sides swapped, cast in ``session`` (by the rater)."""
    outputs = {o.output_id: o for o in catalog.outputs(ledger, vote.family)}
    return show_and_vote(
        ledger,
        session,
        outputs[vote.right_output],
        outputs[vote.left_output],
        choice,
        repeat_of=vote,
    )


def test_a_repeat_of_another_raters_vote_is_not_rater_agreement(ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path)
    danas = [v for v in voting.votes_in_force(ledger, family) if v.actor == "dana"]
    session = voting.start_session(ledger, family, seed=3)
    for vote in danas[:3]:
        _repeat(ledger, session, vote, "left")
    summary = close_round(ledger, family, RoundSettings()).summary
    assert summary.repeats == 0
    # The rater's repeat of their own vote is counted, and only it.
    outputs = [o for o in catalog.outputs(ledger, family) if o.case_id == "c30"]
    own = show_and_vote(ledger, session, outputs[0], outputs[1], "left")
    _repeat(ledger, session, own, "right")
    summary = close_round(ledger, family, RoundSettings()).summary
    assert summary.repeats == 1
    assert summary.unavailable is not None
    assert summary.unavailable["rater_agreement"] == "1 repeat (1 agreed); it needs 10"
