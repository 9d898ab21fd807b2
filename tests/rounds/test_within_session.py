"""Split-half τ within sessions: odd- against even-numbered votes by time, for a single
long sitting, beside the session split (the headline)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.split_halves import vote_halves
from tests.conftest import native_line

SYSTEMS = ("alpha", "beta", "gamma", "delta", "epsilon")  # best first


def test_votes_alternate_halves_within_each_session_in_the_order_cast():
    session = np.array([1, 1, 2, 1, 2, 2, 1, 3])
    assert vote_halves(session).tolist() == [1, 2, 1, 1, 2, 1, 2, 1]
    assert vote_halves(np.zeros(0, dtype=np.int64)).tolist() == []


def one_long_sitting(ledger: Ledger, folder: Path, *, votes: int = 200, sittings: int = 1) -> None:
    """A family of 5 systems x 20 cases, ``votes`` of its pairs voted by a rater who
    mostly prefers the better system, over ``sittings`` sessions."""
    lines = [
        native_line(f"c{c:02d}", s, f"{s} answers case {c} in its own words, number {c}.")
        for c in range(20)
        for s in SYSTEMS
    ]
    path = folder / "f.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family="f", fmt="native")
    rng = random.Random(3)
    rank = {o.system_id: SYSTEMS.index(o.text.split()[0]) for o in catalog.outputs(ledger, "f")}
    for sitting in range(sittings):
        session = RatingSession(ledger, "f", seed=sitting, repeat_share=0.0)
        for _ in range(votes // sittings):
            view = session.current()
            if view is None:
                break
            better = rank[view.left.system_id] < rank[view.right.system_id]
            faithful = rng.random() < 0.8
            session.vote("left" if better == faithful else "right")


@pytest.fixture
def voted(tmp_path: Path):
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        one_long_sitting(ledger, tmp_path)
        yield ledger


def test_a_single_long_sitting_has_a_within_session_tau_and_no_session_split(voted):
    summary = close_round(voted, "f", RoundSettings()).summary
    assert summary.split_half_tau is None and "split_half_tau" in summary.unavailable
    assert summary.within_session_tau is not None and summary.within_session_tau >= 0.6
    assert "within_session_tau" not in summary.unavailable
    assert summary.to_json()["within_session_tau"] == summary.within_session_tau


def test_several_sittings_have_both_and_too_few_votes_say_why(tmp_path):
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        one_long_sitting(ledger, tmp_path, sittings=4)  # 50 votes a sitting
        summary = close_round(ledger, "f", RoundSettings()).summary
        assert summary.split_half_tau is not None and summary.within_session_tau is not None
    with Ledger.open(tmp_path / "few.sqlite") as ledger:
        one_long_sitting(ledger, tmp_path, votes=30)
        summary = close_round(ledger, "f", RoundSettings()).summary
    assert summary.within_session_tau is None
    assert summary.unavailable["within_session_tau"].startswith(
        "15 odd- and 15 even-numbered votes"
    )


def test_round_show_labels_it_beside_the_headline(voted, capsys):
    from arena.cli.main import main

    close_round(voted, "f", RoundSettings())
    path = str(voted.path)
    voted.close()
    assert main(["--ledger", path, "round", "show", "--family", "f"]) == 0
    out = capsys.readouterr().out
    assert "split-half τ: not enough votes to tell (200 votes in odd and 0 in even" in out
    line = next(x for x in out.splitlines() if x.startswith("split-half τ within sessions"))
    assert re.fullmatch(
        r"split-half τ within sessions \(odd/even votes by time, same sittings: reads "
        r"higher\): [01]\.\d\d \(95% -?[01]\.\d\d–[01]\.\d\d\); random votes reach this "
        r"(under 1%|\d+%) of the time",
        line,
    )
