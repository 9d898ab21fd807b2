"""What `arena status` counts, read in a few lean queries (no records made per row).

``family_state.load`` reads everything a family holds (each output with its
measurements, every gate result, every vote as a record); status needs only a
few columns of each, and the gate results only of outputs that ever failed one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from arena.ledger.connection import Ledger
from arena.records import CaseId, OutputId, SystemId

# Well under SQLite's limit on the parameters of one statement (999 before 3.32).
_CHUNK = 500


def _chunks(keys: Collection[str]) -> Iterator[list[str]]:
    ordered = sorted(keys)
    for start in range(0, len(ordered), _CHUNK):
        yield ordered[start : start + _CHUNK]


def case_ids(ledger: Ledger, family: str) -> list[CaseId]:
    """The ids of the cases of ``family``."""
    return [r[0] for r in ledger.db.execute("SELECT case_id FROM cases WHERE family = ?", [family])]


def output_keys(ledger: Ledger, family: str) -> list[tuple[OutputId, CaseId, SystemId, str]]:
    """(output, case, system, text key) of every output of ``family``, in or out of force,
    read from an index (no text is read)."""
    return ledger.db.execute(
        "SELECT output_id, case_id, system_id, text_key FROM output_keys WHERE family = ? "
        "ORDER BY case_id",
        [family],
    ).fetchall()


def ever_failed(ledger: Ledger) -> set[OutputId]:
    """The outputs with a failing verdict among their gate results, newest or not."""
    return {r[0] for r in ledger.db.execute("SELECT output_id FROM gate_results WHERE passed = 0")}


def newest_verdicts(
    ledger: Ledger, outputs: Collection[OutputId]
) -> dict[OutputId, dict[str, bool]]:
    """For each of ``outputs``: gate -> passed, of the newest evaluation of each gate
    (what ``verdicts.gate_verdicts`` keeps in force)."""
    found: dict[OutputId, dict[str, bool]] = {}
    for chunk in _chunks(outputs):
        marks = ", ".join("?" * len(chunk))
        for output_id, gate, passed in ledger.db.execute(
            f"SELECT output_id, gate, passed FROM gate_results WHERE output_id IN ({marks}) "
            "ORDER BY seq",
            chunk,
        ):
            found.setdefault(output_id, {})[gate] = bool(passed)
    return found


def voted_pairs(ledger: Ledger, family: str) -> list[tuple[OutputId, OutputId]]:
    """The two outputs of every vote in force in ``family`` (``voting.votes_in_force``:
    skips apart, repeats included), the one whose id sorts first first."""
    return ledger.db.execute(
        "SELECT min(left_output, right_output), max(left_output, right_output) FROM votes "
        "WHERE family = ? AND choice != 'skip' "
        "AND vote_id NOT IN (SELECT vote_id FROM retractions)",
        [family],
    ).fetchall()
