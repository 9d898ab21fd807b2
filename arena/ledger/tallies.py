"""What `arena status` counts, read in a few lean queries (no records made per row).

``family_state.load`` reads everything a family holds (each output with its
measurements, every gate result, every vote as a record); status needs only a
few columns of each, and the gate results only of outputs that ever failed one.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import cast

from arena.ledger.connection import Ledger
from arena.records import CHOICES, CaseId, OutputId, SystemId

# Well under SQLite's limit on the parameters of one statement (999 before 3.32).
_CHUNK = 500


def _chunks(keys: Collection[str]) -> Iterator[list[str]]:
    ordered = sorted(keys)
    for start in range(0, len(ordered), _CHUNK):
        yield ordered[start : start + _CHUNK]


def case_count(ledger: Ledger, family: str, left_out: Collection[CaseId] = ()) -> int:
    """How many cases ``family`` has, those of ``left_out`` apart: counted in SQL."""
    (n,) = ledger.conn.execute(
        "SELECT count(*) FROM cases WHERE family = ? "
        "AND case_id NOT IN (SELECT value FROM json_each(?))",
        [family, json.dumps(sorted(left_out))],
    ).fetchone()
    return int(n)


def outputs_by_case(
    ledger: Ledger, family: str
) -> list[tuple[CaseId, list[OutputId], list[SystemId], list[str]]]:
    """Each case of ``family`` with its outputs (in or out of force), their systems and
    their text keys, read from an index (no text is read). Cases with the same systems
    in the same order (most cases of a family: every system once, in the index's order)
    share one list of them, split once."""
    found = []
    systems: dict[tuple[str, int], list[str] | None] = {}
    last: tuple[str, int] | None = None
    for case_id, n, outputs, joined, keys in ledger.conn.execute(
        "SELECT case_id, count(*), group_concat(output_id), group_concat(system_id), "
        "group_concat(text_key) FROM output_keys WHERE family = ? GROUP BY case_id",
        [family],
    ):
        # Compared with the case before first: equal strings, no hash of them computed.
        if last is None or n != last[1] or joined != last[0]:
            last = (joined, n)
            if last not in systems:
                systems[last] = _split(joined, n)
        columns = [_split(outputs, n), systems[last], _split(keys, n)]
        if None in columns:
            rows = ledger.conn.execute(
                "SELECT output_id, system_id, text_key FROM output_keys "
                "WHERE family = ? AND case_id = ?",
                [family, case_id],
            ).fetchall()
            columns = [list(column) for column in zip(*rows, strict=True)]
        found.append((case_id, *columns))
    return found  # type: ignore[return-value]


def _split(joined: str | None, n: int) -> list[str] | None:
    """``n`` values joined by ``group_concat`` (with commas, its default: the cheapest
    to join), apart again; None when one of them holds a comma (ids and keys are hex:
    the caller then reads them as rows).

    Joined in SQL, a column comes to Python as one string: several times faster to read
    than a tuple and a string per row, the most of `arena status` at 100k outputs."""
    values = joined.split(",") if joined is not None else []
    return values if len(values) == n else None


def ever_failed(ledger: Ledger) -> set[OutputId]:
    """The outputs with a failing verdict among their gate results, newest or not."""
    return {
        r[0] for r in ledger.conn.execute("SELECT output_id FROM gate_results WHERE passed = 0")
    }


def newest_verdicts(
    ledger: Ledger, outputs: Collection[OutputId]
) -> dict[OutputId, dict[str, bool]]:
    """For each of ``outputs``: gate -> passed, of the newest evaluation of each gate
    (what ``verdicts.gate_verdicts`` keeps in force)."""
    found: dict[OutputId, dict[str, bool]] = {}
    for chunk in _chunks(outputs):
        marks = ", ".join("?" * len(chunk))
        for output_id, gate, passed in ledger.conn.execute(
            f"SELECT output_id, gate, passed FROM gate_results WHERE output_id IN ({marks}) "
            "ORDER BY seq",
            chunk,
        ):
            found.setdefault(output_id, {})[gate] = bool(passed)
    return found


# The votes in force of a family (``voting.votes_in_force``), skips apart: the choices
# but 'skip' (the table's CHECK allows no other), each a range of the index on
# (family, choice, ...) rather than a test of every vote's choice.
_IN_FORCE = (
    f"family = ? AND choice IN ({', '.join(repr(c) for c in CHOICES if c != 'skip')}) "
    "AND vote_id NOT IN (SELECT vote_id FROM retractions)"
)


def voted_outputs(ledger: Ledger, family: str) -> tuple[list[OutputId], list[OutputId]]:
    """The left outputs and the right outputs, vote by vote, of the votes in force in
    ``family`` (``voting.votes_in_force``: skips apart, repeats included): two columns,
    not a pair per vote."""
    n, lefts, rights = ledger.conn.execute(
        "SELECT count(*), group_concat(left_output), group_concat(right_output) "
        f"FROM votes WHERE {_IN_FORCE}",
        [family],
    ).fetchone()
    left, right = _split(lefts, n), _split(rights, n)
    if left is None or right is None:
        rows = ledger.conn.execute(
            f"SELECT left_output, right_output FROM votes WHERE {_IN_FORCE}", [family]
        ).fetchall()
        left, right = [r[0] for r in rows], [r[1] for r in rows]
    return cast(list[OutputId], left), cast(list[OutputId], right)
