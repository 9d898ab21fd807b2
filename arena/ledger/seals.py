"""Seals: every write transaction commits to the rows it added, in one chain per ledger.

The hash chains (``chain.py``) cover votes, retractions, presentations and events row
by row, per family. Seals cover every table: each transaction that adds rows appends
one row to ``commits`` that records, per table, the range of rowids it added, their
count and the sha256 of those rows as stored; a commit's hash covers the commit before
it. ``arena check`` recomputes every range, so a row edited, removed or slipped in
anywhere (guards dropped and recreated, or a hex editor) no longer matches its commit.

What seals cannot catch on their own: a rewrite of the rows *and* of every commit from
the change on. The newest commit's hash, the *head digest*, is what catches that: it
is printed when a round closes and when it is exported, kept in the signed bundle, and
``arena check --head DIGEST`` proves the ledger still holds that state.

Checking them is ``seal_spans.py``'s job.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from arena.canonical import canonical_json, sha256_hex
from arena.clock import now_iso
from arena.errors import UnsealedRows
from arena.ledger.guards import APPEND_ONLY, GENESIS_HASH
from arena.ledger.migrations_0029 import DERIVED_TABLES

if TYPE_CHECKING:
    import sqlite3

    from sqlite_utils import Database

    # What reads and writes here: the bare connection (a rating session's writes, which
    # never load sqlite-utils) or sqlite-utils' Database (migrations, checks).
    Connection = sqlite3.Connection | Database

TABLE = "commits"
# A table without rowids is sealed with the parent rows added in the same commit:
# table -> (parent table, the key they share, the order of its rows).
CHILDREN = {"round_items": ("rounds", "round_id", "round_id, kind, seq")}
# The tallies are counts kept in place, derived from sealed rows (``summaries``).
_NOT_SEALED = {TABLE, "_sqlite_migrations", *DERIVED_TABLES}
HASHED = ("seq", "at", "kind", "note", "tables", "prev_hash")


@dataclass(frozen=True)
class Head:
    """Where the seal chain stands: the newest commit's seq and hash (the head digest)."""

    seq: int
    hash: str

    def __str__(self) -> str:
        return f"{self.hash} (commit {self.seq})"


def sealed_tables(db: Connection) -> list[str]:
    """The tables seals cover: every table but the commits themselves and sqlite-utils'."""
    names = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    return [n for (n,) in names if n not in _NOT_SEALED and not n.startswith("sqlite_")]


def _blob(value: Any) -> Any:
    # A blob (a round's comparison block) is sealed by its sha256: no hex copy of ~100 MB.
    if isinstance(value, bytes):
        return {"blob-sha256": hashlib.sha256(value).hexdigest()}
    raise TypeError(f"{type(value).__name__} is not a column value")


# What ``json.dumps(value, ensure_ascii=False, default=_blob)`` writes, made once: called
# with those arguments, json.dumps builds a new encoder for every row it seals.
_ENCODE = json.JSONEncoder(ensure_ascii=False, default=_blob).encode


def value_json(value: Any) -> str:
    """One value as a seal line writes it. A finite float is its repr, as json writes it,
    without an encoder made for it: SQLite hands each float of the lines it writes to
    this (an output has two)."""
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    return _ENCODE(value)


def _lines(cursor: Any, chained: bool) -> Iterator[tuple[Any, str]]:
    """(first value, line) of each row of ``cursor``, as its seal hashes it."""
    if chained:  # a chained row's hash binds its content (chain.verify checks it)
        for rowid, digest in cursor:
            yield rowid, f"{rowid} {digest}\n"
        return
    names = [d[0] for d in cursor.description]
    for row in cursor:
        # JSON of the stored values: exact for floats (shortest repr), the same on every
        # Python, independent of any Unicode table. NULL columns are left out, so a column
        # a later migration adds (NULL in the rows before it) keeps their seals valid.
        shown = {name: value for name, value in zip(names, row, strict=True) if value is not None}
        yield row[0], _ENCODE(shown) + "\n"


def lines_digest(lines: Iterator[tuple[Any, str]]) -> tuple[int, str, Any]:
    """(count, sha256, the first value of the last row) of ``lines``."""
    digest, count, last = hashlib.sha256(), 0, None
    while chunk := list(islice(lines, 4096)):
        digest.update("".join(line for _, line in chunk).encode("utf-8"))
        count, last = count + len(chunk), chunk[-1][0]
    return count, digest.hexdigest(), last


def row_lines(
    db: Connection, table: str, after: int, upto: int | None = None
) -> Iterator[tuple[Any, str]]:
    """(rowid, line) of ``table``'s rows after rowid ``after`` (up to ``upto``), in order."""
    upper = "" if upto is None else " AND rowid <= ?"
    params = [after] if upto is None else [after, upto]
    chained = table in APPEND_ONLY  # sealing the hash is enough: no vote is read twice
    columns = "rowid, hash" if chained else "rowid, *"
    cursor = db.execute(
        f"SELECT {columns} FROM {table} WHERE rowid > ?{upper} ORDER BY rowid", params
    )
    return _lines(cursor, chained)


def child_lines(db: Connection, child: str, after: int, upto: int) -> Iterator[tuple[Any, str]]:
    """The lines of ``child``'s rows under the parent rows after ``after`` up to ``upto``."""
    parent, key, order = CHILDREN[child]
    cursor = db.execute(
        f"SELECT c.* FROM {child} c WHERE c.{key} IN (SELECT {key} FROM {parent} "
        f"WHERE rowid > ? AND rowid <= ?) ORDER BY {order}",
        [after, upto],
    )
    return _lines(cursor, False)


def commit_hash(commit: dict[str, Any]) -> str:
    return sha256_hex(canonical_json({k: commit[k] for k in HASHED}))


def head(db: Connection) -> Head | None:
    row = db.execute(f"SELECT seq, hash FROM {TABLE} ORDER BY seq DESC LIMIT 1").fetchone()
    return Head(int(row[0]), str(row[1])) if row else None


def reach(table: str) -> str:
    """The rowid up to which one commit seals ``table`` (NULL if it added none), as SQL
    over ``commits``: the expression migration 0016 indexes for every table."""
    return f"json_extract(tables, '$.{table}.to')"


def marks(db: Connection) -> dict[str, int]:
    """How far each table's sealed rows reach (rowid), as the commits say: one index
    seek a table (migration 0016), not a read of every commit."""
    found = {}
    for table in sealed_tables(db):
        if table in CHILDREN:
            continue
        (to,) = db.execute(
            f"SELECT MAX({reach(table)}) FROM {TABLE} WHERE {reach(table)} IS NOT NULL"
        ).fetchone()
        if to is not None:
            found[table] = to
    return found


def newest(db: Connection) -> dict[str, int]:
    """Each sealed table's newest rowid (0: none), read in one statement: every write
    reads them twice (``unsealed``, ``seal``), and a statement a table cost a vote key
    a millisecond."""
    tables = [t for t in sealed_tables(db) if t not in CHILDREN]
    arms = " UNION ALL ".join(f"SELECT ?, COALESCE(MAX(rowid), 0) FROM {t}" for t in tables)
    return dict(db.execute(arms, tables)) if tables else {}


def unsealed(db: Connection, sealed: dict[str, int]) -> list[str]:
    """Tables holding rows past what the commits seal: rows added outside Arena, which the
    next commit would otherwise seal as its own."""
    return [
        f"{table}: rows after rowid {sealed.get(table, 0)}"
        for table, rowid in newest(db).items()
        if rowid > sealed.get(table, 0)
    ]


def sealed_marks(db: Connection) -> dict[str, int]:
    """Where each table's seals end, for a migration that seals rows of its own: a ledger
    with rows slipped in since its last seal is refused, so that its commit never seals
    them."""
    found = unsealed(db, marks(db))
    if found:
        raise UnsealedRows(
            "the ledger cannot be upgraded: rows were added outside Arena since its last "
            f"write ({'; '.join(found)}); run `arena check` with the previous Arena"
        )
    return marks(db)


def seal(
    db: Connection, sealed: dict[str, int], *, kind: str = "write", note: str | None = None
) -> Head | None:
    """Commit to every row added since ``sealed`` (updated in place); None if none was.

    Call inside the transaction that added the rows. ``kind`` other than ``write``
    (``genesis``, ``accepted_loss``) commits even when no row was added.
    """
    tables: dict[str, dict[str, Any]] = {}
    grown = [t for t, rowid in newest(db).items() if rowid > sealed.get(t, 0)]
    for table in grown:
        after = sealed.get(table, 0)
        count, digest, last = lines_digest(row_lines(db, table, after))
        if count:
            tables[table] = {"from": after, "to": last, "rows": count, "sha256": digest}
    for child, (parent, _, _) in CHILDREN.items():
        if parent in tables:
            span = tables[parent]
            count, digest, _ = lines_digest(child_lines(db, child, span["from"], span["to"]))
            if count:
                tables[child] = {"rows": count, "sha256": digest}
    if not tables and kind == "write":
        return None
    previous = head(db)
    commit: dict[str, Any] = {
        "seq": (previous.seq if previous else 0) + 1,
        "at": now_iso(),
        "kind": kind,
        "note": note,
        "tables": canonical_json(tables),
        "prev_hash": previous.hash if previous else GENESIS_HASH,
    }
    commit["hash"] = commit_hash(commit)
    db.execute(
        f"INSERT INTO {TABLE} (seq, at, kind, note, tables, prev_hash, hash) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [commit[k] for k in (*HASHED, "hash")],
    )
    for table, span in tables.items():
        if "to" in span:
            sealed[table] = span["to"]
    return Head(commit["seq"], commit["hash"])
