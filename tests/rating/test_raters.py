"""Every vote has its person: a colleague's imported votes are never the rater's repeats,
and the rater's own votes are counted apart from the family's (issue 47's new user)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena import family_state
from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import Ledger, voting
from arena.ledger.history import family_history
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy
from arena.rating import raters
from arena.rating.session import RatingSession
from arena.rating.status import family_status
from tests.rating.colleague import rated_by_colleague

# Every vote chosen for a repeat, due two pairs later: a repeat comes as soon as one may.
EVERY_VOTE = RepeatPolicy(share=1.0, gap=2, minutes=0)


@pytest.fixture
def team(ledger, tmp_path):
    """A ledger whose family ``team`` holds 24 votes by the colleague "dana"."""
    rated_by_colleague(ledger, tmp_path)
    return ledger


def _theirs(ledger, actor="dana"):
    return {v.presentation_id for v in voting.votes_in_force(ledger, "team") if v.actor == actor}


def _rate(session: RatingSession, pairs: int, *, skip_every: int = 0):
    """Vote on ``pairs`` pairs; the presentations shown."""
    shown = []
    for n in range(pairs):
        view = session.current()
        assert view is not None
        shown.append(view.presentation)
        if skip_every and n % skip_every == skip_every - 1:
            session.skip()
        else:
            session.vote(("left", "right", "tie")[n % 3])
    return shown


@pytest.mark.parametrize("repeats", [None, EVERY_VOTE], ids=["family default", "every vote"])
def test_the_first_50_pairs_repeat_none_of_a_colleagues_votes(team, repeats):
    theirs = _theirs(team)
    assert len(theirs) == 24
    session = RatingSession(team, "team", seed=5, repeats=repeats, actor="rater")
    shown = _rate(session, 50)
    repeated = [p.repeat_of for p in shown if p.repeat_of is not None]
    assert not set(repeated) & theirs
    if repeats is EVERY_VOTE:  # the rater's own votes do come back, and only theirs
        assert len(repeated) >= 10
        assert set(repeated) <= {p.presentation_id for p in shown}


def test_without_a_rater_the_colleagues_votes_would_come_back(team):
    """The rule the scheduler had: every vote in force may be repeated. The same history
    read for no one in particular puts a colleague's vote first; for the rater, not."""
    state = family_state.for_rating(team, "team")

    def first(rater):
        scheduler = LiveScheduler(
            state.pending,
            state.systems,
            family_history(team, "team"),
            seed=1,
            repeats=EVERY_VOTE,
            session=None,
            rater=rater,
        )
        return scheduler.next()

    assert first(None).repeat_of in _theirs(team)
    assert first("rater").repeat_of is None


def test_votes_and_sessions_carry_the_raters_name(team):
    session = RatingSession(team, "team", seed=2, actor="lee")
    vote = session.vote("left")
    assert (session.session.actor, vote.actor) == ("lee", "lee")
    assert voting.raters(team, "team") == ["dana", "lee"]


def test_undo_takes_back_only_the_raters_own_votes(team):
    session = RatingSession(team, "team", seed=2, actor="rater")
    assert session.undo() is None  # dana's newest vote is not the rater's to undo
    session.vote("right")
    assert session.undo().actor == "rater"
    assert _theirs(team) and len(voting.votes_in_force(team, "team")) == 24


def test_the_status_counts_the_raters_own_votes_with_the_total_beside(team):
    session = RatingSession(team, "team", seed=3, actor="rater")
    assert (session.own_votes(), session.progress()[0]) == (0, 24)
    _rate(session, 12, skip_every=4)  # nine votes and three skips
    assert session.own_votes() == 9
    assert session.progress()[0] == 24 + 9
    assert session.raters == ["dana", "rater"]
    session.undo()  # the newest, a skip: no vote less
    session.undo()
    assert session.own_votes() == 8
    (mine,) = family_status(team, "team", rater="rater")
    assert (mine["rater"], mine["rater_votes"], mine["votes"]) == ("rater", 8, 32)
    assert mine["votes_by_rater"] == {"dana": 24, "rater": 8}
    (theirs,) = family_status(team, "team", rater="dana")
    assert (theirs["rater_votes"], theirs["votes"]) == (24, 32)
    # A session started later reads the same counts back from the ledger.
    assert RatingSession(team, "team", seed=4, actor="rater").own_votes() == 8


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_arena_status_rater_counts_that_raters_votes(team, capsys):
    RatingSession(team, "team", seed=3, actor="rater").vote("left")
    path = str(team.path)
    code, out, _ = _cli(capsys, "--ledger", path, "status", "--json")
    (row,) = json.loads(out)["families"]
    # No one remembered at this ledger: the default rater's votes.
    assert code == 0 and (row["rater"], row["rater_votes"], row["votes"]) == ("rater", 1, 25)
    code, out, _ = _cli(capsys, "--ledger", path, "status", "--rater", "dana", "--json")
    (row,) = json.loads(out)["families"]
    assert (row["rater"], row["rater_votes"], row["votes"]) == ("dana", 24, 25)
    code, out, _ = _cli(capsys, "--ledger", path, "status", "--rater", "dana")
    assert code == 0 and "counted for dana:" in out and "2 raters voted" in out
    # No one chosen, and dana alone has voted: the default counted, said so, not counted in.
    folder = Path(team.path).parent / "fresh"
    folder.mkdir()
    with Ledger.open(folder / "fresh.sqlite") as other:
        rated_by_colleague(other, folder)
    code, out, _ = _cli(capsys, "--ledger", str(folder / "fresh.sqlite"), "status")
    assert "counted for rater, no one chosen at this ledger yet" in out
    assert "(1 rater voted;" in out
    header = next(line for line in out.splitlines() if line.startswith("name"))
    assert header.split()[7:9] == ["votes", "rater_votes"]
    raters.remember(path, "dana")  # what the window's Switch rater… leaves
    code, out, _ = _cli(capsys, "--ledger", path, "status", "--json")
    assert json.loads(out)["families"][0]["rater"] == "dana"


def test_a_one_rater_ledger_prints_status_as_before(small_family, capsys):
    RatingSession(small_family, "small", seed=1).vote("left")
    code, out, _ = _cli(capsys, "--ledger", str(small_family.path), "status")
    assert code == 0 and "rater_votes" not in out and "counted for" not in out


@pytest.mark.parametrize(
    "name, problem",
    [
        ("", "cannot be empty"),
        ("  ", "cannot be empty"),
        ("le\u0007e", "holds U+0007"),
        ("settler", "Arena's own actor"),
    ],
)
def test_a_bad_name_is_a_clear_error(small_family, capsys, name, problem):
    with pytest.raises(BadInput, match=re.escape(problem)):
        raters.checked(name)
    with pytest.raises(BadInput, match=re.escape(problem)):
        RatingSession(small_family, "small", actor=name)
    path = str(small_family.path)
    for argv in (["status", "--rater", name], ["vote", "--family", "small", "--rater", name]):
        code, _, err = _cli(capsys, "--ledger", path, *argv)
        assert code == 2 and "--rater: " in err and problem in err


def test_who_is_at_the_keyboard(team, tmp_path):
    with Ledger.open(tmp_path / "new.sqlite") as new:
        assert raters.at_keyboard(new) == raters.DEFAULT_RATER  # no one else: no question
        assert raters.remembered(new.path) is None
    assert raters.at_keyboard(team) is None  # dana voted, no one remembered: ask
    assert raters.at_keyboard(team, " kim ") == "kim"  # --rater
    raters.remember(team.path, "lee")
    assert raters.at_keyboard(team) == "lee"
    assert raters.at_keyboard(team, "kim") == "kim"  # --rater overrides what is remembered
    assert raters.known(team) == ["dana"]
