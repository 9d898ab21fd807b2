"""Closed rounds: written once, never changed (their tables are guarded).

A round's board, summary and settings are one row of ``rounds``; its
comparisons are rows of ``round_comparisons`` and its graded receipts rows
of ``round_items``, read only when asked for (an export), so showing a board
stays cheap however many votes it rests on. A round closed on the same
inputs as an earlier one shares that round's comparisons (``comparisons_of``).

Comparisons are stored column by column, ``BLOCK`` comparisons to a row:
``{"count": n, "columns": {name: [value, ...] | {"values": [...], "codes":
[...]}}}``, a column of repeated values (ids, labels) as codes into the values
it holds in that block. Read back, each comparison is one JSON object again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import orjson

from arena.ledger.connection import Ledger

ITEM_KINDS = ("comparison", "receipt")
BLOCK = 65_536
_OPTIONS = orjson.OPT_SORT_KEYS
# A column: values (an array or a list), or (codes, the values they point to).
Column = np.ndarray | list | tuple[np.ndarray, Sequence[Any]]


def add_round(
    ledger: Ledger,
    round_json: dict[str, Any],
    comparisons: Mapping[str, Column],
    receipts: Iterable[dict[str, Any]],
    *,
    inputs: tuple[str, str] | None = None,
    comparisons_of: str | None = None,
) -> None:
    """Store a round (as ``Round.to_json`` gives it) with its comparisons (columns of equal
    length, possibly none) and receipts; or, with ``comparisons_of``, sharing that round's
    comparisons. ``inputs``: the hashes of what it was worked out from, all of it and what
    the gates read."""
    results = {
        k: v for k, v in round_json.items() if k not in ("round", "family", "closed_at", "settings")
    }
    round_id = round_json["round"]
    ledger.conn.execute(
        "INSERT INTO rounds (round_id, family, closed_at, settings, results, inputs, "
        "gate_inputs, comparisons_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            round_id,
            round_json["family"],
            round_json["closed_at"],
            json.dumps(round_json["settings"], ensure_ascii=False, sort_keys=True),
            json.dumps(results, ensure_ascii=False, sort_keys=True, allow_nan=False),
            *(inputs or (None, None)),
            comparisons_of,
        ],
    )
    ledger.conn.executemany(
        "INSERT INTO round_comparisons (round_id, block, body) VALUES (?, ?, ?)",
        ((round_id, block, body) for block, body in enumerate(_blocks(comparisons))),
    )
    ledger.conn.executemany(
        "INSERT INTO round_items (round_id, kind, seq, body) VALUES (?, ?, ?, ?)",
        (
            (round_id, "receipt", seq, orjson.dumps(item, option=_OPTIONS).decode())
            for seq, item in enumerate(receipts)
        ),
    )


def _blocks(columns: Mapping[str, Column]) -> Iterator[bytes]:
    size = min((len(c[0] if isinstance(c, tuple) else c) for c in columns.values()), default=0)
    for start in range(0, size, BLOCK):
        part = slice(start, min(start + BLOCK, size))
        body: dict[str, Any] = {}
        for name, column in sorted(columns.items()):
            if isinstance(column, tuple):
                codes, values = column
                present = np.zeros(len(values), dtype=np.bool_)
                present[codes[part]] = True
                # Renumbered so the block names only the values it uses.
                renumbered = (np.cumsum(present, dtype=np.int32) - 1)[codes[part]]
                body[name] = {
                    "values": [values[i] for i in np.flatnonzero(present).tolist()],
                    "codes": renumbered,
                }
            else:
                body[name] = column[part]
        yield orjson.dumps(
            {"count": part.stop - part.start, "columns": body}, option=orjson.OPT_SERIALIZE_NUMPY
        )


def _comparisons(body: bytes) -> Iterator[dict[str, Any]]:
    columns = orjson.loads(body)["columns"]
    names = sorted(columns)
    decoded = []
    for name in names:
        column = columns[name]
        if isinstance(column, dict):
            values = column["values"]
            column = [values[code] for code in column["codes"]]
        decoded.append(column)
    for row in zip(*decoded, strict=True):
        yield dict(zip(names, row, strict=True))


def _round(row: dict) -> dict[str, Any]:
    results = json.loads(row["results"])
    # Rounds closed before round_items kept these inside their results.
    for legacy in ("comparisons", "receipts"):
        results.pop(legacy, None)
    return {
        "round": row["round_id"],
        "family": row["family"],
        "closed_at": row["closed_at"],
        "settings": json.loads(row["settings"]),
        **results,
    }


def closed_on(ledger: Ledger, family: str, inputs: str) -> tuple[dict[str, Any], str] | None:
    """The newest round of ``family`` worked out from ``inputs``, and the round whose
    comparisons it has."""
    rows = list(
        ledger.db.query(
            "SELECT * FROM rounds WHERE family = ? AND inputs = ? ORDER BY rowid DESC LIMIT 1",
            [family, inputs],
        )
    )
    if not rows:
        return None
    return _round(rows[0]), rows[0]["comparisons_of"] or rows[0]["round_id"]


def gated_on(ledger: Ledger, family: str, gate_inputs: str) -> bool:
    """Whether a round of ``family`` was closed on what the gates read now."""
    return (
        ledger.conn.execute(
            "SELECT 1 FROM rounds WHERE family = ? AND gate_inputs = ?", [family, gate_inputs]
        ).fetchone()
        is not None
    )


def find_round(
    ledger: Ledger, round_id: str | None = None, family: str | None = None
) -> dict[str, Any] | None:
    """A round by id (or unambiguous prefix), else the newest of ``family`` (or of any)."""
    where, params = [], []
    if round_id:
        where.append("round_id LIKE ?")
        params.append(round_id + "%")
    if family:
        where.append("family = ?")
        params.append(family)
    sql = "SELECT * FROM rounds" + (" WHERE " + " AND ".join(where) if where else "")
    rows = list(ledger.db.query(sql + " ORDER BY rowid DESC LIMIT 2", params))
    if not rows or (round_id and len(rows) > 1):
        return None
    return _round(rows[0])


def items(ledger: Ledger, round_id: str, kind: str) -> Iterator[dict[str, Any]]:
    """A round's comparisons or receipts, in the order they were stored."""
    if kind not in ITEM_KINDS:
        raise ValueError(f"kind: one of {ITEM_KINDS}, not {kind!r}")
    if kind == "comparison":
        shared = ledger.conn.execute(
            "SELECT comparisons_of FROM rounds WHERE round_id = ?", [round_id]
        ).fetchone()
        if shared and shared[0]:
            round_id = shared[0]
        blocks = ledger.conn.execute(
            "SELECT body FROM round_comparisons WHERE round_id = ? ORDER BY block", [round_id]
        )
        first = blocks.fetchone()
        if first is not None:
            yield from _comparisons(first[0])
            for (body,) in blocks:
                yield from _comparisons(body)
            return
    # Rounds closed before round_comparisons kept their comparisons as rows here.
    cursor = ledger.conn.execute(
        "SELECT body FROM round_items WHERE round_id = ? AND kind = ? ORDER BY seq",
        [round_id, kind],
    )
    first = cursor.fetchone()
    if first is None:
        row = ledger.conn.execute(
            "SELECT results FROM rounds WHERE round_id = ?", [round_id]
        ).fetchone()
        yield from json.loads(row[0]).get(kind + "s", []) if row else []
        return
    yield orjson.loads(first[0])
    for (body,) in cursor:
        yield orjson.loads(body)


def rounds(ledger: Ledger, family: str | None = None) -> list[dict[str, Any]]:
    """Id, family, closing time and whether it pools judges' verdicts (``pooled``, 0 or 1)
    of every round, newest first."""
    sql = (
        "SELECT round_id, family, closed_at, "
        "json_extract(settings, '$.with_judges') IS NOT NULL AS pooled FROM rounds"
    )
    params = []
    if family:
        sql += " WHERE family = ?"
        params.append(family)
    return list(ledger.db.query(sql + " ORDER BY rowid DESC", params))
