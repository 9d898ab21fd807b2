"""Closed rounds: written once, never changed (the rounds table is guarded)."""

from __future__ import annotations

import json
from typing import Any

from arena.ledger.connection import Ledger


def add_round(ledger: Ledger, round_id: str, family: str, closed_at: str,
              settings: dict[str, Any], results: dict[str, Any]) -> None:
    ledger.db.execute(
        "INSERT INTO rounds (round_id, family, closed_at, settings, results) "
        "VALUES (?, ?, ?, ?, ?)",
        [round_id, family, closed_at, json.dumps(settings, ensure_ascii=False, sort_keys=True),
         json.dumps(results, ensure_ascii=False, sort_keys=True, allow_nan=False)])


def _round(row: dict) -> dict[str, Any]:
    return {"round": row["round_id"], "family": row["family"], "closed_at": row["closed_at"],
            "settings": json.loads(row["settings"]), **json.loads(row["results"])}


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
    rows = list(ledger.db.query(sql + " ORDER BY rowid DESC", params))
    if not rows or (round_id and len(rows) > 1):
        return None
    return _round(rows[0])


def rounds(ledger: Ledger, family: str | None = None) -> list[dict[str, str]]:
    """Id, family and closing time of every round, newest first."""
    sql = "SELECT round_id, family, closed_at FROM rounds"
    params = []
    if family:
        sql += " WHERE family = ?"
        params.append(family)
    return list(ledger.db.query(sql + " ORDER BY rowid DESC", params))
