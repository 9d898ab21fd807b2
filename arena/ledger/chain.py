"""The hash chains of the append-only tables.

Each table keeps one chain per family. A row stores ``prev_hash`` (the
``hash`` of the previous row of its family, or the genesis hash) and
``hash = sha256(prev_hash + canonical JSON of the row's other columns)``.
Triggers refuse a row that does not continue the chain; walking it finds
edits made with the triggers dropped or with a hex editor.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from arena.canonical import canonical_json, sha256_hex
from arena.ledger.canonical_sql import canonical_object
from arena.ledger.connection import Ledger
from arena.ledger.guards import APPEND_ONLY, GENESIS_HASH
from arena.ledger.migrations_0006_0011 import EVENT_COLUMNS_0006

if TYPE_CHECKING:
    from sqlite_utils import Database

    from arena.ledger.seals import Connection

_NOT_HASHED = ("seq", "hash", "prev_hash")


def row_hash(prev_hash: str, row: dict[str, Any]) -> str:
    body = {
        k: v
        for k, v in row.items()
        if k not in _NOT_HASHED and not (v is None and k in EVENT_COLUMNS_0006)
    }
    return sha256_hex(prev_hash + canonical_json(body))


def append(ledger: Ledger, table: str, row: dict[str, Any]) -> dict[str, Any]:
    """Insert ``row`` at the head of its family's chain; call inside ``ledger.atomic()``."""
    if table not in APPEND_ONLY:
        raise ValueError(f"{table} has no hash chain")
    head = ledger.conn.execute(
        f"SELECT hash FROM {table} WHERE family = ? ORDER BY seq DESC LIMIT 1", [row["family"]]
    ).fetchone()
    prev = head[0] if head else GENESIS_HASH
    stored = {**row, "prev_hash": prev, "hash": row_hash(prev, row)}
    seq = ledger.insert(table, stored)
    ledger.pending_heads.append((table, str(row["family"]), int(seq or 0), stored["hash"]))
    return stored


def heads(ledger: Ledger, family: str) -> dict[str, dict[str, Any]]:
    """Where each of ``family``'s chains stands: table -> its newest seq and hash."""
    return {table: head(ledger, table, family) for table in APPEND_ONLY}


def head(ledger: Ledger, table: str, family: str) -> dict[str, Any]:
    """The newest row of ``family``'s chain in ``table``: its seq and hash (0 and genesis)."""
    row = ledger.conn.execute(
        f"SELECT seq, hash FROM {table} WHERE family = ? ORDER BY seq DESC LIMIT 1", [family]
    ).fetchone()
    return {"seq": row[0], "hash": row[1]} if row else {"seq": 0, "hash": GENESIS_HASH}


def rows(ledger: Ledger, table: str, family: str, up_to: int) -> list[dict[str, Any]]:
    """``family``'s rows of ``table`` in chain order, up to seq ``up_to``."""
    return ledger.rows(
        f"SELECT * FROM {table} WHERE family = ? AND seq <= ? ORDER BY seq", [family, up_to]
    )


def verify_rows(table: str, key: str, rows: Iterable[dict[str, Any]]) -> list[str]:
    """Check the chains of ``rows`` (one table's rows in seq order); one line per break."""
    problems: list[str] = []
    heads: dict[str, str] = {}
    for row in rows:
        where = f"{table} seq {row.get('seq')} ({key} {row.get(key)})"
        family = str(row.get("family"))
        prev = heads.get(family, GENESIS_HASH)
        if row.get("prev_hash") != prev:
            problems.append(f"{where}: does not follow the previous row (a row was removed)")
        try:
            expected = row_hash(row.get("prev_hash", ""), row)
        except (ValueError, TypeError) as exc:
            problems.append(f"{where}: cannot be hashed ({exc})")
        else:
            if expected != row.get("hash"):
                problems.append(f"{where}: content does not match its hash (edited)")
        heads[family] = str(row.get("hash"))
    return problems


def verify(db: Database) -> list[str]:
    """Walk every chain of the ledger; return one line per break found (empty when intact)."""
    problems: list[str] = []
    for table, key in APPEND_ONLY.items():
        cursor = db.execute(f"SELECT * FROM {table} ORDER BY seq")
        names = [d[0] for d in cursor.description]
        problems += verify_rows(table, key, (dict(zip(names, v, strict=True)) for v in cursor))
    return problems


def verify_family(db: Connection, table: str, family: str) -> list[str]:
    """Walk ``family``'s chain in ``table`` alone; one line per break, as ``verify`` words it.

    SQLite writes each row's canonical JSON (``canonical_sql``), so only the hashing is
    left to Python; at the first row that does not match, the family's rows are
    walked again as ``verify`` walks them, which decides and words what is wrong.
    """
    columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] not in _NOT_HASHED]
    body = canonical_object(
        columns, omitted_when_null=EVENT_COLUMNS_0006 if table == "events" else ()
    )
    where = f"FROM {table} WHERE family = ? ORDER BY seq"
    prev = GENESIS_HASH
    try:
        for row_prev, text, digest in db.execute(
            f"SELECT prev_hash, {body}, hash {where}", [family]
        ):
            if row_prev != prev or sha256_hex(row_prev + text) != digest:
                break
            prev = digest
        else:
            return []
    except sqlite3.OperationalError:
        pass  # a value SQLite cannot write as JSON (a blob): Python says what it is
    cursor = db.execute(f"SELECT * {where}", [family])
    names = [d[0] for d in cursor.description]
    return verify_rows(
        table, APPEND_ONLY[table], (dict(zip(names, v, strict=True)) for v in cursor)
    )
