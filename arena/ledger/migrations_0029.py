"""Migration 0029: what a rating session starts from, kept vote by vote.

A rating session read every presentation and vote of its family when it opened: time
that grew with the family's history. Three derived tables now hold what its scheduler
needs of the old votes, so that it reads only the presentations at the end of the
history (``arena.ledger.history``):

- ``pair_showings``: each pair of outputs' votes in force on a first showing (skips
  apart) and its skips in force (any showing), with its case; ``showing_tallies``: the
  votes in force on a first showing by systems, choice and session half (what the
  scheduler's model of the order counts); both kept by triggers in the transaction of
  each vote and retraction, as the tallies of migration 0028 are. A first showing is a
  presentation that repeats none (a vote on a repeat whose original vote was retracted
  records no original, but was shown as a repeat);
- ``repeat_draws``: the repeat draw of each vote that may come back as a repeat, a hash
  of its id (``arena.ledger.repeat_draws``), written by Arena with the vote (SQLite has
  no hash to compute it in a trigger), with the votes in force on its presentation's
  repeats (kept by triggers): indexed so that the votes waiting for their repeat are
  found without the others.

An index of the presentations by the one they repeat finds a pair's repeats.

Like the tallies they are derived, not recorded: not sealed, not chained, not in
bundles. `arena check` counts them again and writes them anew where they differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger import repeat_draws
from arena.ledger.migrations_0028 import TALLY_TABLES
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

SHOWING_TABLES = ("pair_showings", "showing_tallies", "repeat_draws")
# Counts and draws kept in place, derived from the votes: never sealed or chained.
DERIVED_TABLES = (*TALLY_TABLES, *SHOWING_TABLES)

TABLES = """
CREATE TABLE pair_showings (
    family TEXT NOT NULL,
    first_output TEXT NOT NULL,
    second_output TEXT NOT NULL,
    case_id TEXT NOT NULL,
    votes INTEGER NOT NULL,
    skips INTEGER NOT NULL,
    PRIMARY KEY (family, first_output, second_output)
) WITHOUT ROWID;
CREATE TABLE showing_tallies (
    family TEXT NOT NULL,
    left_system TEXT NOT NULL,
    right_system TEXT NOT NULL,
    choice TEXT NOT NULL,
    half INTEGER NOT NULL,
    votes INTEGER NOT NULL,
    PRIMARY KEY (family, left_system, right_system, choice, half)
) WITHOUT ROWID;
CREATE TABLE repeat_draws (
    vote_id TEXT PRIMARY KEY,
    family TEXT NOT NULL,
    presentation_id TEXT NOT NULL,
    draw REAL NOT NULL,
    repeats INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX repeat_draws_waiting ON repeat_draws(family, draw) WHERE repeats = 0;
CREATE INDEX repeat_draws_by_presentation ON repeat_draws(presentation_id);
CREATE INDEX presentations_by_original ON presentations(repeat_of) WHERE repeat_of IS NOT NULL;
"""

_PAIR = "v.family, min(v.left_output, v.right_output), max(v.left_output, v.right_output)"
# A first showing is a presentation that repeats none, whatever its vote records: a vote
# on a repeat whose original vote was retracted records no original, yet the scheduler
# showed it as a repeat.
_FIRST = "(SELECT repeat_of FROM presentations WHERE presentation_id = v.presentation_id) IS NULL"
# A vote's counts: a vote on a first showing, a skip on any; whether it is in force.
VOTE, SKIP = f"v.choice != 'skip' AND {_FIRST}", "v.choice = 'skip'"
COUNTED = f"(v.choice = 'skip' OR {_FIRST})"
IN_FORCE = "(v.vote_id NOT IN (SELECT vote_id FROM retractions))"
# A vote's key in showing_tallies, from its row ``v``: counted only when it is a VOTE.
_SHOWING = (
    "v.family, (SELECT system_id FROM outputs WHERE output_id = v.left_output), "
    "(SELECT system_id FROM outputs WHERE output_id = v.right_output), v.choice, "
    "coalesce((SELECT number % 2 FROM sessions WHERE session_id = v.session_id), -1)"
)
_SHOWING_COLUMNS = "(family, left_system, right_system, choice, half)"


def fill(prefix: str = "") -> list[str]:
    """``pair_showings`` and ``showing_tallies`` counted at once from the votes, as their
    triggers leave them (a row once counted stays, at 0, when its votes are retracted)."""
    return [
        f"INSERT INTO {prefix}pair_showings SELECT {_PAIR}, min(v.case_id), "
        f"sum(({VOTE}) * {IN_FORCE}), sum(({SKIP}) * {IN_FORCE}) "
        f"FROM votes v WHERE {COUNTED} GROUP BY 1, 2, 3",
        showings_fill(prefix),
    ]


def showings_fill(prefix: str = "") -> str:
    """``showing_tallies`` counted at once from the votes."""
    return (
        f"INSERT INTO {prefix}showing_tallies SELECT {_SHOWING}, sum({IN_FORCE}) "
        f"FROM votes v WHERE {VOTE} GROUP BY 1, 2, 3, 4, 5"
    )


# What each trigger does to pair_showings, to showing_tallies and to repeat_draws.
# A vote is counted on its pair; its first retraction uncounts it.
_PAIR_ON_VOTE = f"""INSERT INTO pair_showings SELECT {_PAIR}, v.case_id, {VOTE}, {SKIP}
    FROM votes v WHERE v.seq = NEW.seq AND {COUNTED}
    ON CONFLICT DO UPDATE SET votes = votes + excluded.votes, skips = skips + excluded.skips;"""
SHOWINGS_ON_VOTE = f"""INSERT INTO showing_tallies SELECT {_SHOWING}, 1 FROM votes v
    WHERE v.seq = NEW.seq AND {VOTE}
    ON CONFLICT DO UPDATE SET votes = votes + 1;
    UPDATE repeat_draws SET repeats = repeats + 1 WHERE presentation_id = (
        SELECT repeat_of FROM presentations WHERE presentation_id = NEW.presentation_id);"""
_PAIR_ON_RETRACTION = f"""UPDATE pair_showings
    SET votes = votes - (SELECT {VOTE} FROM votes v WHERE v.vote_id = NEW.vote_id),
        skips = skips - (SELECT {SKIP} FROM votes v WHERE v.vote_id = NEW.vote_id)
    WHERE (family, first_output, second_output) = (
        SELECT {_PAIR} FROM votes v WHERE v.vote_id = NEW.vote_id AND {COUNTED});"""
SHOWINGS_ON_RETRACTION = f"""UPDATE showing_tallies SET votes = votes - 1
    WHERE {_SHOWING_COLUMNS} = (
        SELECT {_SHOWING} FROM votes v WHERE v.vote_id = NEW.vote_id AND {VOTE});
    UPDATE repeat_draws SET repeats = repeats - 1 WHERE presentation_id = (
        SELECT p.repeat_of FROM votes v JOIN presentations p
        ON p.presentation_id = v.presentation_id WHERE v.vote_id = NEW.vote_id);"""


def triggers(on_vote: str, on_retraction: str) -> str:
    """The two triggers that keep the derived tables: ``on_vote`` and ``on_retraction``
    are what they do to ``pair_showings`` (migration 0030 keys it anew)."""
    return f"""
CREATE TRIGGER votes_showings AFTER INSERT ON votes BEGIN
    {on_vote}
    {SHOWINGS_ON_VOTE}
END;
CREATE TRIGGER retractions_showings AFTER INSERT ON retractions
WHEN NOT EXISTS (SELECT 1 FROM retractions WHERE vote_id = NEW.vote_id AND seq != NEW.seq)
BEGIN
    {on_retraction}
    {SHOWINGS_ON_RETRACTION}
END;
"""


TRIGGERS = triggers(_PAIR_ON_VOTE, _PAIR_ON_RETRACTION)
TRIGGER_NAMES = ("votes_showings", "retractions_showings")


@migrations(name="0029_pair_showings")
def _pair_showings(db: Database) -> None:
    run_script(db, TABLES)
    for statement in fill():
        db.execute(statement)
    repeat_draws.fill(db.conn)
    run_script(db, TRIGGERS)
    set_version(db, 29)
