"""The hash chains of the append-only tables.

Each row stores ``prev_hash`` (the previous row's ``hash``, or the genesis
hash) and ``hash = sha256(prev_hash + canonical JSON of the row's other
columns)``. Triggers refuse a row that does not continue the chain; walking
it finds edits made with the triggers dropped or with a hex editor.
"""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from arena.canonical import canonical_json, sha256_hex
from arena.ledger.schema import APPEND_ONLY, GENESIS_HASH

_NOT_HASHED = ("seq", "hash", "prev_hash")


def row_hash(prev_hash: str, row: dict[str, Any]) -> str:
    body = {k: v for k, v in row.items() if k not in _NOT_HASHED}
    return sha256_hex(prev_hash + canonical_json(body))


def append(db: Database, table: str, row: dict[str, Any]) -> dict[str, Any]:
    """Insert ``row`` at the head of ``table``'s chain; call inside a transaction."""
    if table not in APPEND_ONLY:
        raise ValueError(f"{table} has no hash chain")
    head = db.execute(f"SELECT hash FROM {table} ORDER BY seq DESC LIMIT 1").fetchone()
    prev = head[0] if head else GENESIS_HASH
    stored = {**row, "prev_hash": prev, "hash": row_hash(prev, row)}
    db.table(table).insert(stored)
    return stored


def verify(db: Database) -> list[str]:
    """Walk every chain; return one line per break found (empty when intact)."""
    problems: list[str] = []
    for table, key in APPEND_ONLY.items():
        prev = GENESIS_HASH
        cursor = db.execute(f"SELECT * FROM {table} ORDER BY seq")
        names = [d[0] for d in cursor.description]
        for values in cursor:
            row = dict(zip(names, values, strict=True))
            where = f"{table} seq {row['seq']} ({key} {row[key]})"
            if row["prev_hash"] != prev:
                problems.append(f"{where}: does not follow the previous row (a row was removed)")
            try:
                expected = row_hash(row["prev_hash"], row)
            except ValueError as exc:
                problems.append(f"{where}: cannot be hashed ({exc})")
            else:
                if expected != row["hash"]:
                    problems.append(f"{where}: content does not match its hash (edited)")
            prev = row["hash"]
    return problems
