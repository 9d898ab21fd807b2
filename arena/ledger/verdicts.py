"""Gate results: recorded per output and gate, the newest in force, with the fingerprint
each was computed under (so that re-gating runs only what changed)."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable

from arena.clock import now_iso
from arena.ledger import tallies
from arena.ledger.connection import Ledger
from arena.records import GateResult, OutputId


def record_gate_results(
    ledger: Ledger,
    results: Iterable[tuple[OutputId, Iterable[GateResult], str | None]],
) -> None:
    """Append one evaluation of every gate per output, with the fingerprint of what the
    gates read (None: unknown); the newest row per gate is in force."""
    at = now_iso()
    ledger.conn.executemany(
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
    first, last = _stretch(ledger, family, up_to)
    # One pass over the family's stretch of the table, in the order rows were written,
    # is much faster than looking up each output's rows by the index.
    rows = ledger.conn.execute(
        "SELECT output_id, gate, passed, reason, fingerprint FROM gate_results "
        "WHERE seq BETWEEN ? AND ? ORDER BY seq",
        [first or 0, last or -1],
    )
    ours = (
        outputs
        if outputs is not None
        else {
            r[0]
            for r in ledger.conn.execute("SELECT output_id FROM outputs WHERE family = ?", [family])
        }
    )
    # Many outputs share a verdict word for word: one record each.
    made: dict[tuple[str, int, str], GateResult] = {}
    # Per output, gate -> (result, fingerprint) of its newest evaluation, in the order of
    # each gate's newest row (a gate evaluated again moves to the end).
    kept: dict[OutputId, dict[str, tuple[GateResult, str | None]]] = {}
    for output_id, gate, passed, reason, fingerprint in rows:
        if output_id not in ours:
            continue
        result = made.get((gate, passed, reason))
        if result is None:
            result = made[gate, passed, reason] = GateResult(gate, bool(passed), reason)
        newest = kept.get(output_id)
        if newest is None:
            newest = kept[output_id] = {}
        elif gate in newest:
            del newest[gate]
        newest[gate] = (result, fingerprint)
    results: dict[OutputId, tuple[GateResult, ...]] = {}
    fingerprints: dict[OutputId, str] = {}
    for output_id, newest in kept.items():
        found = newest.values()
        results[output_id] = tuple(result for result, _ in found)
        marks = {fingerprint for _, fingerprint in found}
        mark = marks.pop() if len(marks) == 1 else None
        if mark is not None:
            fingerprints[output_id] = mark
    return results, fingerprints


def _stretch(ledger: Ledger, family: str, up_to: int | None) -> tuple[int, int]:
    """The first and last gate result of ``family`` (up to mark ``up_to``): (0, -1) if none.

    Each end is found by walking the table from that end and stopping at the family's
    first row: a few steps, where MIN and MAX over the family's outputs read all of them."""
    ends = [
        ledger.conn.execute(
            "SELECT seq FROM gate_results g WHERE seq <= ? AND EXISTS (SELECT 1 FROM outputs o "
            f"WHERE o.output_id = g.output_id AND o.family = ?) ORDER BY seq {order} LIMIT 1",
            [up_to if up_to is not None else 2**62, family],
        ).fetchone()
        for order in ("ASC", "DESC")
    ]
    return (ends[0][0], ends[1][0]) if ends[0] is not None and ends[1] is not None else (0, -1)


def ever_failed(
    ledger: Ledger, family: str, outputs: Collection[str]
) -> dict[OutputId, tuple[GateResult, ...]]:
    """The results in force (as ``gate_verdicts`` gives them) of only those of ``outputs``
    (of ``family``) that have a failing verdict among their results, newest or not: all
    that can fail a gate now, read without reading every verdict of the family."""
    return in_force(ledger, tallies.ever_failed(ledger, family).keys() & set(outputs))


def in_force(ledger: Ledger, outputs: Collection[str]) -> dict[OutputId, tuple[GateResult, ...]]:
    """The results in force (as ``gate_verdicts`` gives them) of each of ``outputs`` that
    has any, read by output id (a few of a family's, not its whole stretch)."""
    found: dict[OutputId, dict[str, GateResult]] = {}
    for output_id, gate, passed, reason in ledger.conn.execute(
        "SELECT output_id, gate, passed, reason FROM gate_results "
        "WHERE output_id IN (SELECT value FROM json_each(?)) ORDER BY seq",
        [json.dumps(sorted(outputs))],
    ):
        newest = found.setdefault(output_id, {})
        newest.pop(gate, None)  # a gate evaluated again moves to the end
        newest[gate] = GateResult(gate, bool(passed), reason)
    return {output_id: tuple(newest.values()) for output_id, newest in found.items()}


def gate_results(
    ledger: Ledger, family: str, *, up_to: int | None = None
) -> dict[OutputId, tuple[GateResult, ...]]:
    """The results in force for every output of ``family`` (see ``gate_verdicts``)."""
    return gate_verdicts(ledger, family, up_to=up_to)[0]


def output_gate_results(ledger: Ledger, output_id: OutputId) -> tuple[GateResult, ...]:
    """The results in force for one output: the newest evaluation of each gate."""
    newest: dict[str, GateResult] = {}
    for gate, passed, reason in ledger.conn.execute(
        "SELECT gate, passed, reason FROM gate_results WHERE output_id = ? ORDER BY seq",
        [output_id],
    ):
        newest[gate] = GateResult(gate, bool(passed), reason)
    return tuple(newest.values())
