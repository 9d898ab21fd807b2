"""What `arena status` counts, read in a few lean queries (no records made per row).

``family_state.load`` reads everything a family holds (each output with its
measurements, every gate result, every vote as a record); status needs only a
few columns of each, and the gate results only of outputs that ever failed one.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from itertools import groupby
from operator import itemgetter

from arena.ledger.connection import Ledger
from arena.records import CHOICES, CaseId, OutputId, SystemId


def case_count(ledger: Ledger, family: str, left_out: Collection[CaseId] = ()) -> int:
    """How many cases ``family`` has, those of ``left_out`` apart: counted in SQL."""
    (n,) = ledger.conn.execute(
        "SELECT count(*) FROM cases WHERE family = ? "
        "AND case_id NOT IN (SELECT value FROM json_each(?))",
        [family, json.dumps(sorted(left_out))],
    ).fetchone()
    return int(n)


def case_tallies(ledger: Ledger, family: str) -> list[tuple[CaseId, int, int, list[SystemId]]]:
    """Each case of ``family``: how many outputs it has (in or out of force), how many
    text keys among them, and their systems, read from an index (no output id, no text).
    Cases with the same systems in the same order (most cases of a family: every system
    once, in the index's order) share one list of them, split once."""
    found = []
    systems: dict[tuple[str, int], list[str] | None] = {}
    last: tuple[str, int] | None = None
    for case_id, n, keys, joined in ledger.conn.execute(
        "SELECT case_id, count(*), count(DISTINCT text_key), group_concat(system_id) "
        "FROM output_keys WHERE family = ? GROUP BY case_id",
        [family],
    ):
        # Compared with the case before first: equal strings, no hash of them computed.
        if last is None or n != last[1] or joined != last[0]:
            last = (joined, n)
            if last not in systems:
                systems[last] = _split(joined, n)
        listed = systems[last]
        if listed is None:
            listed = [system for _, _, system, _ in _case_rows(ledger, family, [case_id])]
        found.append((case_id, n, keys, listed))
    return found  # type: ignore[return-value]


def case_outputs(
    ledger: Ledger, family: str, cases: Collection[CaseId]
) -> list[tuple[CaseId, list[OutputId], list[SystemId], list[str]]]:
    """Each of ``cases`` of ``family`` with its outputs (in or out of force), their
    systems and their text keys, as columns."""
    return [
        (case_id, *(list(column) for column in zip(*(row[1:] for row in rows), strict=True)))
        for case_id, rows in groupby(_case_rows(ledger, family, cases), key=itemgetter(0))
    ]


def _case_rows(
    ledger: Ledger, family: str, cases: Collection[CaseId]
) -> list[tuple[CaseId, OutputId, SystemId, str]]:
    """(case, output, system, text key) of each output of ``cases``, case by case."""
    return ledger.conn.execute(
        "SELECT case_id, output_id, system_id, text_key FROM output_keys WHERE family = ? "
        "AND case_id IN (SELECT value FROM json_each(?)) "
        "ORDER BY case_id, system_id, text_key, output_id",
        [family, json.dumps(sorted(cases))],
    ).fetchall()


def _split(joined: str | None, n: int) -> list[str] | None:
    """``n`` values joined by ``group_concat`` (with commas, its default: the cheapest
    to join), apart again; None when one of them holds a comma (system ids are hex: the
    caller then reads them as rows).

    Joined in SQL, a column comes to Python as one string: several times faster to read
    than a tuple and a string per row."""
    values = joined.split(",") if joined is not None else []
    return values if len(values) == n else None


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
    "AND vote_id NOT IN (SELECT vote_id FROM retractions)"
)


def voted_pairs(ledger: Ledger, family: str) -> tuple[int, int]:
    """How many votes in force ``family`` has (``voting.votes_in_force``: skips apart,
    repeats included), and on how many pairs (each once, whichever side each output was
    shown on): counted by SQLite in one pass over the index of the votes by pair."""
    votes, pairs = ledger.conn.execute(
        "SELECT coalesce(sum(n), 0), count(*) FROM (SELECT count(*) AS n FROM votes "
        f"WHERE {_IN_FORCE} GROUP BY {_FIRST}, {_SECOND})",
        [family],
    ).fetchone()
    return int(votes), int(pairs)


def system_votes(ledger: Ledger, family: str) -> tuple[list[SystemId], list[SystemId], list[str]]:
    """The left system, the right system and the choice of each vote in force in
    ``family`` on a first showing (skips and repeats apart): what the scheduler's model
    of the order counts (``arena.pairs.adaptive.OrderModel``)."""
    rows = ledger.conn.execute(
        "SELECT (SELECT system_id FROM outputs WHERE output_id = left_output), "
        "(SELECT system_id FROM outputs WHERE output_id = right_output), choice "
        f"FROM votes WHERE {_IN_FORCE} AND repeat_of IS NULL",
        [family],
    ).fetchall()
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def votes_on(
    ledger: Ledger, family: str, outputs: Collection[OutputId]
) -> tuple[list[OutputId], list[OutputId]]:
    """The left outputs and the right outputs, vote by vote, of the votes in force in
    ``family`` on a pair of two of ``outputs`` (found by the first of the pair, in order)."""
    rows = ledger.conn.execute(
        f"SELECT left_output, right_output FROM votes WHERE {_IN_FORCE} "
        f"AND {_FIRST} IN (SELECT value FROM json_each(?))",
        [family, json.dumps(sorted(outputs))],
    ).fetchall()
    return [r[0] for r in rows], [r[1] for r in rows]
