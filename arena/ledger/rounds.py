"""Closed rounds: written once, never changed (the rounds and round_items tables are guarded).

A round's board, summary and settings are one row of ``rounds``; its
comparisons and graded receipts are rows of ``round_items``, read only when
asked for (an export), so showing a board stays cheap however many votes it
rests on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from arena.ledger.connection import Ledger

ITEM_KINDS = ("comparison", "receipt")
_OPTIONS = orjson.OPT_SORT_KEYS


def add_round(ledger: Ledger, round_json: dict[str, Any], comparisons: Iterable[dict[str, Any]],
              receipts: Iterable[dict[str, Any]]) -> None:
    """Store a round (as ``Round.to_json`` gives it) with its comparisons and receipts."""
    results = {k: v for k, v in round_json.items()
               if k not in ("round", "family", "closed_at", "settings")}
    round_id = round_json["round"]
    ledger.db.execute(
        "INSERT INTO rounds (round_id, family, closed_at, settings, results) "
        "VALUES (?, ?, ?, ?, ?)",
        [round_id, round_json["family"], round_json["closed_at"],
         json.dumps(round_json["settings"], ensure_ascii=False, sort_keys=True),
         json.dumps(results, ensure_ascii=False, sort_keys=True, allow_nan=False)])
    for kind, items in (("comparison", comparisons), ("receipt", receipts)):
        ledger.db.conn.executemany(
            "INSERT INTO round_items (round_id, kind, seq, body) VALUES (?, ?, ?, ?)",
            ((round_id, kind, seq, orjson.dumps(item, option=_OPTIONS).decode())
             for seq, item in enumerate(items)))


def _round(row: dict) -> dict[str, Any]:
    results = json.loads(row["results"])
    # Rounds closed before round_items kept these inside their results.
    for legacy in ("comparisons", "receipts"):
        results.pop(legacy, None)
    return {"round": row["round_id"], "family": row["family"], "closed_at": row["closed_at"],
            "settings": json.loads(row["settings"]), **results}


def find_round(ledger: Ledger, round_id: str | None = None,
               family: str | None = None) -> dict[str, Any] | None:
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
    cursor = ledger.db.execute(
        "SELECT body FROM round_items WHERE round_id = ? AND kind = ? ORDER BY seq",
        [round_id, kind])
    first = cursor.fetchone()
    if first is None:
        row = ledger.db.execute("SELECT results FROM rounds WHERE round_id = ?",
                                [round_id]).fetchone()
        yield from json.loads(row[0]).get(kind + "s", []) if row else []
        return
    yield orjson.loads(first[0])
    for (body,) in cursor:
        yield orjson.loads(body)


def rounds(ledger: Ledger, family: str | None = None) -> list[dict[str, str]]:
    """Id, family and closing time of every round, newest first."""
    sql = "SELECT round_id, family, closed_at FROM rounds"
    params = []
    if family:
        sql += " WHERE family = ?"
        params.append(family)
    return list(ledger.db.query(sql + " ORDER BY rowid DESC", params))
