"""Gate results: recorded per output and gate, the newest in force, with the fingerprint
each was computed under (so that re-gating runs only what changed)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from itertools import groupby
from operator import itemgetter

from arena.clock import now_iso
from arena.ledger.connection import Ledger
from arena.records import GateResult, OutputId


def record_gate_results(
    ledger: Ledger,
    results: Iterable[tuple[OutputId, Iterable[GateResult], str | None]],
) -> None:
    """Append one evaluation of every gate per output, with the fingerprint of what the
    gates read (None: unknown); the newest row per gate is in force."""
    at = now_iso()
    ledger.db.conn.executemany(
        "INSERT INTO gate_results (output_id, gate, passed, reason, evaluated_at, fingerprint) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(oid, r.gate, int(r.passed), r.reason, at, mark) for oid, rs, mark in results for r in rs],
    )


def gate_verdicts(
    ledger: Ledger, family: str, *, up_to: int | None = None, outputs: Collection[str] | None = None
) -> tuple[dict[OutputId, tuple[GateResult, ...]], dict[OutputId, str]]:
    """The results in force (newest evaluation of each gate) for every output of ``family``
    (its ``outputs``, when the caller has them), as they stood at gate-result mark ``up_to``
    when it is given; and the fingerprint of each output whose results in force were all
    made from the same inputs."""
    first, last = ledger.db.execute(
        "SELECT MIN(seq), MAX(seq) FROM gate_results WHERE seq <= ? AND output_id IN "
        "(SELECT output_id FROM outputs WHERE family = ?)",
        [up_to if up_to is not None else 2**62, family],
    ).fetchone()
    # One pass over the family's stretch of the table, in the order rows were written,
    # is much faster than looking up each output's rows by the index.
    rows = ledger.db.execute(
        "SELECT output_id, gate, passed, reason, fingerprint FROM gate_results "
        "WHERE seq BETWEEN ? AND ? ORDER BY seq",
        [first or 0, last or -1],
    )
    ours = (
        outputs
        if outputs is not None
        else {
            r[0]
            for r in ledger.db.execute("SELECT output_id FROM outputs WHERE family = ?", [family])
        }
    )
    # Many outputs share a verdict word for word: one record each.
    made: dict[tuple[str, int, str], GateResult] = {}
    kept: dict[OutputId, list[tuple[GateResult, str | None]]] = {}
    # An evaluation writes one row per gate of an output, one after the other.
    for output_id, evaluation in groupby(rows, key=itemgetter(0)):
        if output_id not in ours:
            continue
        found = []
        for _, gate, passed, reason, fingerprint in evaluation:
            result = made.get((gate, passed, reason))
            if result is None:
                result = made[gate, passed, reason] = GateResult(gate, bool(passed), reason)
            found.append((result, fingerprint))
        earlier = kept.get(output_id)
        if earlier is not None or len({r.gate for r, _ in found}) < len(found):
            found = _newest_per_gate((earlier or []) + found)
        kept[output_id] = found
    results: dict[OutputId, tuple[GateResult, ...]] = {}
    fingerprints: dict[OutputId, str] = {}
    for output_id, found in kept.items():
        results[output_id] = tuple(result for result, _ in found)
        marks = {fingerprint for _, fingerprint in found}
        mark = marks.pop() if len(marks) == 1 else None
        if mark is not None:
            fingerprints[output_id] = mark
    return results, fingerprints


def _newest_per_gate(
    found: list[tuple[GateResult, str | None]],
) -> list[tuple[GateResult, str | None]]:
    """The newest of each gate's evaluations (given oldest first), in the order written."""
    newest: dict[str, tuple[GateResult, str | None]] = {}
    for item in found:
        newest.pop(item[0].gate, None)
        newest[item[0].gate] = item
    return list(newest.values())


def gate_results(
    ledger: Ledger, family: str, *, up_to: int | None = None
) -> dict[OutputId, tuple[GateResult, ...]]:
    """The results in force for every output of ``family`` (see ``gate_verdicts``)."""
    return gate_verdicts(ledger, family, up_to=up_to)[0]


def output_gate_results(ledger: Ledger, output_id: OutputId) -> tuple[GateResult, ...]:
    """The results in force for one output: the newest evaluation of each gate."""
    newest: dict[str, GateResult] = {}
    for gate, passed, reason in ledger.db.execute(
        "SELECT gate, passed, reason FROM gate_results WHERE output_id = ? ORDER BY seq",
        [output_id],
    ):
        newest[gate] = GateResult(gate, bool(passed), reason)
    return tuple(newest.values())
