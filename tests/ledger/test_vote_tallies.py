"""The vote tallies SQLite keeps vote by vote equal the votes counted from scratch, and
`arena check` says when they do not (an edited file, a dropped trigger) and writes them anew."""

import random
import sqlite3

import pytest

from arena.cli import main as cli
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, integrity, migrations_0029, summaries, tallies, voting
from arena.ledger.history import family_summary
from arena.rating.session import RatingSession
from arena.records import CHOICES
from tests.votes_helpers import named_showings, show_and_vote

# The counts as they were read from every vote before the tallies (the reference).
_IN_FORCE = "family = ? AND vote_id NOT IN (SELECT vote_id FROM retractions)"


def _from_votes(ledger: Ledger, family: str) -> tuple:
    db = ledger.conn
    votes, pairs = db.execute(
        "SELECT coalesce(sum(n), 0), count(*) FROM (SELECT count(*) AS n FROM votes "
        f"WHERE {_IN_FORCE} AND choice != 'skip' "
        "GROUP BY min(left_output, right_output), max(left_output, right_output))",
        [family],
    ).fetchone()
    actors = db.execute(
        f"SELECT actor, count(*) FROM votes WHERE {_IN_FORCE} AND choice != 'skip' "
        "GROUP BY actor ORDER BY actor",
        [family],
    ).fetchall()
    systems = db.execute(
        "SELECT lo.system_id, ro.system_id, v.choice, count(*) FROM votes v "
        "JOIN outputs lo ON lo.output_id = v.left_output "
        "JOIN outputs ro ON ro.output_id = v.right_output "
        f"WHERE v.{_IN_FORCE} AND v.repeat_of IS NULL AND v.choice != 'skip' "
        "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
        [family],
    ).fetchall()
    return votes, pairs, actors, systems, sorted(voting.raters(ledger, family))


def _from_tallies(ledger: Ledger, family: str) -> tuple:
    votes, pairs = tallies.voted_pairs(ledger, family)
    actors = sorted(tallies.votes_by_actor(ledger, family).items())
    systems = sorted(tallies.system_votes(ledger, family))
    return votes, pairs, actors, systems, sorted(tallies.raters(ledger, family))


def _random_history(ledger: Ledger, rng: random.Random, steps: int) -> None:
    """Votes of every choice by two raters over several sessions, on the same pairs either
    way round, repeats, retractions (some retracted twice over: refused) and re-votes."""
    outputs = catalog.outputs(ledger, "small")
    by_case: dict[str, list] = {}
    for o in outputs:
        by_case.setdefault(o.case_id, []).append(o)
    sessions = [
        voting.start_session(ledger, "small", seed=n, actor=actor)
        for n, actor in enumerate(["ann", "bo", "ann"])
    ]
    cast = []
    for _ in range(steps):
        if cast and rng.random() < 0.25:
            vote = rng.choice(cast)
            try:
                voting.retract(ledger, vote.vote_id)
            except BadInput:  # already retracted: refused, nothing written
                pass
            continue
        session = rng.choice(sessions)
        left, right = rng.sample(by_case[rng.choice(sorted(by_case))], 2)
        repeat = rng.choice(cast) if cast and rng.random() < 0.2 else None
        if repeat is not None:
            left, right = (
                next(o for o in outputs if o.output_id == repeat.right_output),
                next(o for o in outputs if o.output_id == repeat.left_output),
            )
        cast.append(
            show_and_vote(ledger, session, left, right, rng.choice(CHOICES), repeat_of=repeat)
        )


def _edited(ledger: Ledger, *statements: str) -> str:
    """Close ``ledger`` and edit its file by hand, as a person with SQLite would: its path."""
    path = ledger.path
    ledger.close()
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("seed", range(6))
def test_the_tallies_count_what_the_votes_say(small_family, seed):
    _random_history(small_family, random.Random(seed), 60)
    assert _from_tallies(small_family, "small") == _from_votes(small_family, "small")
    assert summaries.stale_tallies(small_family) == []


def test_a_ledger_upgraded_from_before_the_tallies_has_them_counted(tmp_path, small_family):
    _random_history(small_family, random.Random(9), 40)
    expected = _from_votes(small_family, "small")
    path = _edited(
        small_family,
        "DROP TRIGGER votes_showings",
        "DROP TRIGGER retractions_showings",
        "DROP TABLE pair_showings",
        "DROP TABLE showing_tallies",
        "DROP TABLE repeat_draws",
        "DROP INDEX presentations_by_original",
        "DELETE FROM _sqlite_migrations WHERE name = '0029_pair_showings'",
        "DELETE FROM _sqlite_migrations WHERE name = '0030_numbered_pair_showings'",
        "DROP TRIGGER votes_tally",
        "DROP TRIGGER retractions_tally",
        "DROP TABLE vote_tallies",
        "DROP TABLE pair_tallies",
        "DROP TABLE family_tallies",
        "DELETE FROM _sqlite_migrations WHERE name = '0028_vote_tallies'",
        "PRAGMA user_version = 27",
    )
    with Ledger.open(path) as upgraded:
        assert _from_tallies(upgraded, "small") == expected
        assert summaries.stale_tallies(upgraded) == []


def test_pair_showings_keyed_by_output_ids_are_keyed_anew_by_their_numbers(small_family):
    """A ledger from migration 0029 (pairs keyed by their outputs' ids) upgraded: the same
    pairs, counted, and its later votes counted too."""
    _random_history(small_family, random.Random(5), 40)
    before = _showings(small_family)
    path = _edited(
        small_family,
        "DROP TRIGGER votes_showings",
        "DROP TRIGGER retractions_showings",
        "DROP TABLE pair_showings",
        "CREATE TABLE pair_showings (family TEXT NOT NULL, first_output TEXT NOT NULL, "
        "second_output TEXT NOT NULL, case_id TEXT NOT NULL, votes INTEGER NOT NULL, "
        "skips INTEGER NOT NULL, PRIMARY KEY (family, first_output, second_output)) "
        "WITHOUT ROWID",
        migrations_0029.fill()[0],
        *(trigger + "END;" for trigger in migrations_0029.TRIGGERS.split("END;")[:2]),
        "DELETE FROM _sqlite_migrations WHERE name = '0030_numbered_pair_showings'",
        "PRAGMA user_version = 29",
    )
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM pair_showings").fetchone()[0] > 10
    conn.close()
    with Ledger.open(path) as upgraded:
        assert _showings(upgraded) == before
        assert summaries.stale_tallies(upgraded) == []
        _random_history(upgraded, random.Random(6), 20)
        assert summaries.stale_tallies(upgraded) == []


def test_pair_showings_name_the_same_outputs_after_a_vacuum(small_family):
    """A pair is named by its outputs' rowids in ``output_keys``: SQLite's VACUUM keeps
    them, as the seals (which name rows by rowid) need it to."""
    _random_history(small_family, random.Random(8), 30)
    before = _showings(small_family)
    with Ledger.open(_edited(small_family, "VACUUM")) as vacuumed:
        assert _showings(vacuumed) == before
        assert summaries.stale_tallies(vacuumed) == []
        assert integrity.check(vacuumed) == []


def _showings(ledger: Ledger) -> set[tuple]:
    """The pair showings of ``small`` by their outputs' ids (``family_summary``'s read)."""
    return named_showings(family_summary(ledger, "small", share=0.1, rater=None)[0].pairs)


def test_pair_showings_edited_into_text_still_open_a_session_and_are_found(small_family):
    """A hand edit that puts text where a pair's numbers are: the window still opens the
    family (the edited row names no pair), and `arena check` names the table."""
    _random_history(small_family, random.Random(11), 30)
    path = _edited(
        small_family,
        "UPDATE pair_showings SET pair = 'edited', skips = '1 or so' "
        "WHERE pair = (SELECT min(pair) FROM pair_showings)",
    )
    with Ledger.open(path) as edited:
        pairs = family_summary(edited, "small", share=0.1, rater=None)[0].pairs
        assert len(pairs.first) == len(pairs.votes) == len(pairs.skips)
        assert RatingSession(edited, "small", actor="ann").current() is not None
        assert any("pair_showings: does not match" in p for p in integrity.check(edited))


def test_an_edited_tally_is_found_and_written_anew(small_family, capsys):
    _random_history(small_family, random.Random(3), 30)
    expected = _from_votes(small_family, "small")
    path = _edited(
        small_family,
        "UPDATE vote_tallies SET votes = votes + 5 WHERE rowid = 1",
        "DELETE FROM pair_tallies WHERE rowid = 2",
        "DROP TRIGGER votes_tally",
        "UPDATE pair_showings SET skips = skips + 1 "
        "WHERE pair = (SELECT min(pair) FROM pair_showings)",
        "UPDATE showing_tallies SET votes = votes + 2 "
        "WHERE choice = (SELECT min(choice) FROM showing_tallies)",
        "UPDATE repeat_draws SET repeats = repeats + 1 "
        "WHERE vote_id = (SELECT min(vote_id) FROM repeat_draws)",
        "DROP TRIGGER retractions_showings",
    )
    with Ledger.open(path, readonly=True) as edited:
        problems = integrity.check(edited)
    assert any("vote_tallies: does not match" in p for p in problems), problems
    assert any("pair_tallies: does not match" in p for p in problems), problems
    assert any("votes_tally" in p and "missing" in p for p in problems), problems
    assert any("pair_showings: does not match" in p for p in problems), problems
    assert any("repeat_draws: does not match" in p for p in problems), problems
    assert any("showing_tallies: does not match" in p for p in problems), problems
    assert any("retractions_showings" in p and "missing" in p for p in problems), problems
    assert cli.main(["--ledger", path, "check"]) != 0
    capsys.readouterr()
    assert cli.main(["--ledger", path, "check", "--recount"]) == 0
    with Ledger.open(path) as mended:
        assert integrity.check(mended) == []
        assert _from_tallies(mended, "small") == expected
        # The trigger is back: the next vote is counted.
        _random_history(mended, random.Random(4), 10)
        assert _from_tallies(mended, "small") == _from_votes(mended, "small")
        assert summaries.stale_tallies(mended) == []


def test_a_failed_vote_leaves_the_tallies_as_they_were(small_family):
    _random_history(small_family, random.Random(5), 20)
    before = _from_tallies(small_family, "small")
    outputs = catalog.outputs(small_family, "small")
    session = voting.start_session(small_family, "small", seed=99)
    with pytest.raises(RuntimeError), small_family.atomic():
        show_and_vote(small_family, session, outputs[0], outputs[1], "left")
        raise RuntimeError("the disk filled")
    assert _from_tallies(small_family, "small") == before
