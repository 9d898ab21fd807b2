"""A round of a team of raters: each rater's figures are their own."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, voting
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings, RoundSummary
from arena.rounds.settings_text import settings_lines
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


def _rater_votes(ledger: Ledger, family: str, cases: range) -> None:
    """The rater's votes, one on each of ``cases``: alpha over beta, on either side."""
    session = voting.start_session(ledger, family, seed=5)
    outputs = catalog.outputs(ledger, family)
    for n in cases:
        alpha, beta = [o for o in outputs if o.case_id == f"c{n:02d}"][:2]
        if n % 2:
            show_and_vote(ledger, session, alpha, beta, "left")
        else:
            show_and_vote(ledger, session, beta, alpha, "right")


def test_each_rater_has_their_own_figures_worked_out_on_their_votes_alone(ledger, tmp_path):
    (tmp_path / "two").mkdir()
    family = rated_by_colleague(ledger, tmp_path / "two")
    _rater_votes(ledger, family, range(24, 40))
    team = close_round(ledger, family, RoundSettings())
    assert team.summary.raters is not None
    dana, rater = team.summary.raters
    assert (dana.rater, dana.votes, dana.weight) == ("dana", 24, 24.0)
    assert (rater.rater, rater.votes, rater.weight) == ("rater", 16, 16.0)
    assert dana.decisive_votes + rater.decisive_votes == team.summary.decisive_votes
    # Dana's figures are those of a round of dana's votes alone.
    with Ledger.open(tmp_path / "alone.db") as alone:
        (tmp_path / "one").mkdir()
        rated_by_colleague(alone, tmp_path / "one")
        own = close_round(alone, family, RoundSettings()).summary
    assert own.raters is None
    assert (dana.left_share, dana.left_share_ci95) == (own.left_share, own.left_share_ci95)
    assert dana.length_bias_points_per_sd == own.length_bias_points_per_sd
    assert dana.unavailable["split_half_tau"] == own.unavailable["split_half_tau"]
    # The record reads back as it was written.
    assert RoundSummary.from_json(team.summary.to_json()) == team.summary


def test_a_round_of_one_rater_has_no_raters_block(ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path)
    summary = close_round(ledger, family, RoundSettings()).summary
    assert summary.raters is None
    assert "raters" not in summary.to_json()


def test_a_round_of_named_raters_fits_their_votes_alone(ledger, tmp_path):
    (tmp_path / "two").mkdir()
    family = rated_by_colleague(ledger, tmp_path / "two")
    _rater_votes(ledger, family, range(24, 40))
    subset = close_round(ledger, family, RoundSettings(raters=("dana",)))
    assert subset.summary.left_out == {"other_rater": 16}
    # The one rater named has their figures, as a round of several would.
    assert [(r.rater, r.votes) for r in subset.summary.raters or []] == [("dana", 24)]
    assert subset.recorded_settings()["raters"] == ["dana"]
    assert dict(settings_lines("votes", subset))["raters"] == (
        "dana: the others' votes are left out (other_rater)"
    )
    everyone = close_round(ledger, family, RoundSettings())
    assert "raters" not in everyone.recorded_settings()
    assert "raters" not in dict(settings_lines("votes", everyone))
    with Ledger.open(tmp_path / "alone.db") as alone:
        (tmp_path / "one").mkdir()
        rated_by_colleague(alone, tmp_path / "one")
        own = close_round(alone, family, RoundSettings())
    points = {r.label: r.points for r in subset.systems}
    assert points == {r.label: r.points for r in own.systems}
    assert points != {r.label: r.points for r in everyone.systems}


def test_a_rater_not_in_the_family_is_refused_naming_those_there_are(ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path)
    with pytest.raises(BadInput, match=r"no rater 'dan' .*did you mean 'dana'.*its raters: dana"):
        close_round(ledger, family, RoundSettings(raters=("dan",)))


def test_round_close_raters_on_the_command_line(ledger_path, tmp_path, capsys):
    with Ledger.open(ledger_path) as ledger:
        family = rated_by_colleague(ledger, tmp_path)
        _rater_votes(ledger, family, range(24, 30))
    close = ["--ledger", str(ledger_path), "round", "close", "--family", family]
    assert main([*close, "--raters", "dan"]) != 0
    err = capsys.readouterr().err
    assert "no rater 'dan'" in err and "its raters: dana, rater" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main([*close, "--raters", " dana ,", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["settings"]["raters"] == ["dana"]
    assert shown["summary"]["left_out"] == {"other_rater": 6}
    assert [r["rater"] for r in shown["summary"]["raters"]] == ["dana"]
