"""What `arena status` counts, read in a few lean queries (no records made per row).

``family_state.load`` reads everything a family holds (each output with its
measurements, every gate result, every vote as a record); status needs only a
few columns of each, and the gate results only of outputs that ever failed one.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from arena.ledger import catalog
from arena.ledger.connection import Ledger
from arena.ledger.in_force import not_retracted
from arena.records import CHOICES, CaseId, OutputId, OutputPlace, SystemId


def case_count(ledger: Ledger, family: str, left_out: Collection[CaseId] = ()) -> int:
    """How many cases ``family`` has, those of ``left_out`` apart: counted in SQL."""
    (n,) = ledger.conn.execute(
        "SELECT count(*) FROM cases WHERE family = ? "
        "AND case_id NOT IN (SELECT value FROM json_each(?))",
        [family, json.dumps(sorted(left_out))],
    ).fetchone()
    return int(n)


def case_tallies(ledger: Ledger, family: str) -> list[tuple[CaseId, int, int, str]]:
    """Each case of ``family``: how many outputs it has (in or out of force), how many text
    keys among them, and their systems joined by commas, read from an index (no output
    id, no text). Joined in SQL, a column comes to Python as one string: several times
    faster to read than a tuple and a string per row, and most cases share it."""
    return ledger.conn.execute(
        "SELECT case_id, count(*), count(DISTINCT text_key), group_concat(system_id) "
        "FROM output_keys WHERE family = ? GROUP BY case_id",
        [family],
    ).fetchall()


def case_outputs(ledger: Ledger, family: str, cases: Collection[CaseId]) -> list[OutputPlace]:
    """The outputs of ``cases`` of ``family`` (in or out of force), without their texts."""
    rows = ledger.conn.execute(
        f"SELECT {catalog.PLACE_COLUMNS} FROM output_keys WHERE family = ? "
        "AND case_id IN (SELECT value FROM json_each(?))",
        [family, json.dumps(sorted(cases))],
    )
    return list(map(OutputPlace._make, rows))


def ever_failed(ledger: Ledger, family: str) -> dict[OutputId, CaseId]:
    """The outputs of ``family`` with a failing verdict among their gate results, newest
    or not, and their cases: read from the failing verdicts (CROSS JOIN keeps SQLite to
    that order), few beside the outputs of a family."""
    return dict(
        ledger.conn.execute(
            "SELECT DISTINCT k.output_id, k.case_id FROM gate_results AS g "
            "CROSS JOIN output_keys AS k ON k.output_id = g.output_id "
            "WHERE g.passed = 0 AND k.family = ?",
            [family],
        )
    )


# A vote's pair, its outputs in order: as the index of the votes by pair holds it
# (migration 0017), so that SQLite reads it there.
_FIRST, _SECOND = "min(left_output, right_output)", "max(left_output, right_output)"
# The votes in force of a family (``voting.votes_in_force``), skips apart: the choices
# but 'skip' (the table's CHECK allows no other; read from the index).
_IN_FORCE = (
    f"family = ? AND choice IN ({', '.join(repr(c) for c in CHOICES if c != 'skip')}) "
    f"AND {not_retracted()}"
)


def voted_pairs(ledger: Ledger, family: str) -> tuple[int, int]:
    """How many votes in force ``family`` has (``voting.votes_in_force``: skips apart,
    repeats included), and on how many pairs (each once, whichever side each output was
    shown on): read from the tallies SQLite keeps vote by vote (migration 0028)."""
    (votes,) = ledger.conn.execute(
        "SELECT coalesce(sum(votes), 0) FROM vote_tallies WHERE family = ? AND choice != 'skip'",
        [family],
    ).fetchone()
    pairs = ledger.conn.execute(
        "SELECT voted_pairs FROM family_tallies WHERE family = ?", [family]
    ).fetchone()
    return int(votes), 0 if pairs is None else int(pairs[0])


def votes_by_actor(ledger: Ledger, family: str) -> dict[str, int]:
    """How many votes in force each actor has in ``family`` (skips apart, repeats
    included), in the order the actors first voted (a first vote since retracted
    included), from the tallies."""
    rows = ledger.conn.execute(
        "SELECT actor, sum(votes) FROM vote_tallies WHERE family = ? AND choice != 'skip' "
        "GROUP BY actor HAVING sum(votes) > 0 ORDER BY min(first_seq)",
        [family],
    ).fetchall()
    return {actor: int(n) for actor, n in rows}


def raters(ledger: Ledger, family: str | None = None) -> list[str]:
    """Everyone who voted (a vote since retracted included) or sat a session in
    ``family`` (or in any): those who voted in the order they first did, then the others
    by name; the settler, which votes on nothing, is no rater. From the tallies and the
    sessions, not from every vote: what a rating session counts of its family's raters."""
    where, params = ("WHERE family = ?", [family]) if family is not None else ("", [])
    rows = ledger.conn.execute(
        "SELECT actor FROM (SELECT actor, min(first_seq) AS first FROM vote_tallies "
        f"{where} GROUP BY actor UNION ALL SELECT actor, NULL FROM sessions {where}) "
        "WHERE actor != 'settler' GROUP BY actor "
        "ORDER BY min(first) IS NULL, min(first), actor",
        params + params,
    ).fetchall()
    return [actor for (actor,) in rows]


def system_votes(ledger: Ledger, family: str) -> list[tuple[SystemId, SystemId, str, int]]:
    """(left system, right system, choice, how many) of the votes in force in ``family`` on
    a first showing (skips and repeats apart): what the scheduler's model of the order
    counts (``arena.pairs.adaptive.OrderModel``), from the tallies."""
    return ledger.conn.execute(
        "SELECT left_system, right_system, choice, sum(votes) FROM vote_tallies "
        "WHERE family = ? AND first_showing AND choice != 'skip' "
        "GROUP BY left_system, right_system, choice HAVING sum(votes) > 0",
        [family],
    ).fetchall()


def votes_on(
    ledger: Ledger, family: str, outputs: Collection[OutputId]
) -> list[tuple[OutputId, OutputId]]:
    """The pairs of two of ``outputs`` with a vote in force in ``family``, each once, its
    outputs in order (found by the first of the pair)."""
    return ledger.conn.execute(
        f"SELECT DISTINCT {_FIRST}, {_SECOND} FROM votes WHERE {_IN_FORCE} "
        f"AND {_FIRST} IN (SELECT value FROM json_each(?))",
        [family, json.dumps(sorted(outputs))],
    ).fetchall()
