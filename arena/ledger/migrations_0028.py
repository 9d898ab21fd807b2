"""Migration 0028: tallies of the votes in force, kept by SQLite vote by vote.

What `arena status` and a rating session count of a family's votes (how many, by whom,
on how many pairs, each two systems' wins and ties) was read from every vote the family
holds: time that grew with its history. Three tables now hold those counts, kept by
triggers in the transaction that writes each vote or retraction, whatever writes it
(a rating session, `import-votes`, a colleague's bundle):

- ``vote_tallies``: the votes in force by family, left and right system, choice, first
  showing or repeat, actor and the half of its session (the parity of the session's
  number, as split-half τ and adaptive choice halve them); with the ``seq`` of the
  first vote counted there (the order raters first voted in);
- ``pair_tallies``: the votes in force (skips apart) on each pair of outputs, either
  way round;
- ``family_tallies``: how many pairs of each family have a vote in force.

They are derived, not recorded: not sealed, not chained, not in bundles, changed in
place. `arena check` counts them again from the votes and writes them anew where they
differ (``arena.ledger.summaries``): losing or editing them loses nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

TALLY_TABLES = ("vote_tallies", "pair_tallies", "family_tallies")

TABLES = """
CREATE TABLE vote_tallies (
    family TEXT NOT NULL,
    left_system TEXT NOT NULL,
    right_system TEXT NOT NULL,
    choice TEXT NOT NULL,
    first_showing INTEGER NOT NULL,
    actor TEXT NOT NULL,
    half INTEGER NOT NULL,
    votes INTEGER NOT NULL,
    first_seq INTEGER NOT NULL,
    PRIMARY KEY (family, left_system, right_system, choice, first_showing, actor, half)
);
CREATE TABLE pair_tallies (
    family TEXT NOT NULL,
    first_output TEXT NOT NULL,
    second_output TEXT NOT NULL,
    votes INTEGER NOT NULL,
    PRIMARY KEY (family, first_output, second_output)
);
CREATE TABLE family_tallies (
    family TEXT PRIMARY KEY,
    voted_pairs INTEGER NOT NULL
);
"""

# A vote's key in vote_tallies, from its row ``v``.
_KEY = (
    "v.family, (SELECT system_id FROM outputs WHERE output_id = v.left_output), "
    "(SELECT system_id FROM outputs WHERE output_id = v.right_output), v.choice, "
    "v.repeat_of IS NULL, v.actor, "
    "coalesce((SELECT number % 2 FROM sessions WHERE session_id = v.session_id), -1)"
)
_KEY_COLUMNS = "(family, left_system, right_system, choice, first_showing, actor, half)"
_PAIR = "v.family, min(v.left_output, v.right_output), max(v.left_output, v.right_output)"
_PAIR_COLUMNS = "(family, first_output, second_output)"


def fill(prefix: str = "") -> list[str]:
    """Every tally counted at once from the votes, as the triggers leave them, into the
    tally tables (their names after ``prefix``): a key or a pair once counted keeps its row
    when its votes are retracted (at 0), and ``first_seq`` is the least seq of the votes
    ever counted there."""
    votes, pairs, families = (prefix + table for table in TALLY_TABLES)
    return [
        f"INSERT INTO {votes} SELECT {_KEY}, "
        "sum(v.vote_id NOT IN (SELECT vote_id FROM retractions)), min(v.seq) "
        "FROM votes v GROUP BY 1, 2, 3, 4, 5, 6, 7",
        f"INSERT INTO {pairs} SELECT {_PAIR}, "
        "sum(v.vote_id NOT IN (SELECT vote_id FROM retractions)) FROM votes v "
        "WHERE v.choice != 'skip' GROUP BY 1, 2, 3",
        f"INSERT INTO {families} SELECT family, sum(votes > 0) FROM {pairs} GROUP BY family",
    ]


# A vote counted where it belongs, and its pair; a retraction (the first of its vote: a
# second one retracts nothing) uncounts it.
TRIGGERS = f"""
CREATE TRIGGER votes_tally AFTER INSERT ON votes BEGIN
    INSERT INTO vote_tallies SELECT {_KEY}, 1, v.seq FROM votes v WHERE v.seq = NEW.seq
    ON CONFLICT DO UPDATE SET votes = votes + 1, first_seq = min(first_seq, excluded.first_seq);
    INSERT INTO pair_tallies SELECT {_PAIR}, 1 FROM votes v
    WHERE v.seq = NEW.seq AND v.choice != 'skip'
    ON CONFLICT DO UPDATE SET votes = votes + 1;
    INSERT INTO family_tallies SELECT NEW.family, 1 WHERE NEW.choice != 'skip' AND (
        SELECT votes FROM pair_tallies WHERE {_PAIR_COLUMNS} = (
            NEW.family, min(NEW.left_output, NEW.right_output),
            max(NEW.left_output, NEW.right_output))) = 1
    ON CONFLICT DO UPDATE SET voted_pairs = voted_pairs + 1;
END;
CREATE TRIGGER retractions_tally AFTER INSERT ON retractions
WHEN NOT EXISTS (SELECT 1 FROM retractions WHERE vote_id = NEW.vote_id AND seq != NEW.seq)
BEGIN
    UPDATE vote_tallies SET votes = votes - 1
    WHERE {_KEY_COLUMNS} = (SELECT {_KEY} FROM votes v WHERE v.vote_id = NEW.vote_id);
    UPDATE pair_tallies SET votes = votes - 1
    WHERE {_PAIR_COLUMNS} = (
        SELECT {_PAIR} FROM votes v WHERE v.vote_id = NEW.vote_id AND v.choice != 'skip');
    UPDATE family_tallies SET voted_pairs = voted_pairs - 1
    WHERE family = (SELECT family FROM votes WHERE vote_id = NEW.vote_id) AND (
        SELECT p.votes FROM pair_tallies p, votes v
        WHERE v.vote_id = NEW.vote_id AND v.choice != 'skip'
        AND (p.family, p.first_output, p.second_output) = ({_PAIR})) = 0;
END;
"""


@migrations(name="0028_vote_tallies")
def _vote_tallies(db: Database) -> None:
    run_script(db, TABLES)
    for statement in fill():
        db.execute(statement)
    run_script(db, TRIGGERS)
    set_version(db, 28)
