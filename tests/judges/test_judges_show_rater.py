"""`arena judges show --rater NAME` reads whose votes the others are compared with: any
rater of the family, a colleague whose votes came in a bundle too; a name with no votes
there is refused, not silently replaced."""

from __future__ import annotations

import json

from arena.cli.main import main
from arena.ledger.rater_keys import RaterKey, add_rater_key
from tests.rating.colleague import rated_by_two


def _team(ledger, tmp_path) -> str:
    """dana's 24 votes (brought by her key, as a bundle brings them) and lee's 30."""
    rated_by_two(ledger, tmp_path)
    with ledger.atomic():
        add_rater_key(ledger, RaterKey("dana", "ab" * 8, "rater"), "0" * 64)
    return str(ledger.path)


def test_a_colleague_from_a_bundle_can_be_the_one_compared_with(ledger, tmp_path, capsys):
    path = _team(ledger, tmp_path)
    capsys.readouterr()
    args = ["--ledger", path, "judges", "show", "--family", "team", "--rater", "dana"]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rater"] == {**report["rater"], "name": "dana", "verdicts": 24}
    assert [(j["judge"], j["kind"]) for j in report["judges"]] == [("lee", "rater")]


def test_a_name_with_no_votes_in_the_family_is_refused(ledger, tmp_path, capsys):
    path = _team(ledger, tmp_path)
    capsys.readouterr()
    args = ["--ledger", path, "judges", "show", "--family", "team", "--rater", "kim"]
    assert main(args) != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "--rater" in err and "no votes by 'kim' in team (raters: dana, lee)" in err
    assert main([*args[:-2], "--rater", "settler"]) != 0  # Arena's own actor is no rater
    assert "--rater" in capsys.readouterr().err


def test_where_the_one_at_the_keyboard_has_not_voted_the_first_to_vote_is_named(
    ledger, tmp_path, capsys
):
    path = _team(ledger, tmp_path)  # no one chosen at this ledger: the default 'rater'
    capsys.readouterr()
    assert main(["--ledger", path, "judges", "show", "--family", "team"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rater dana (the first to vote: rater has no votes here): 24 votes")
    assert "Krippendorff's α (ordinal, all raters and judges)" in out
