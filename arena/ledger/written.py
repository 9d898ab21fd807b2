"""Which families the rows written since a mark belong to: what a cache of per-family
counts must count again.

A ``Mark`` is where the ledger stands: its schema, its newest commit (seal) and the
newest rowid of every table. Every table is append-only (changing or removing a row
means dropping a guard first, which changes the schema version), so the rows written
since a mark are those above its rowids, and each names its family, directly or through
the output or round it belongs to. A few index seeks when nothing was written; a range
of the rowids when something was (a vote: a row or two), never the family's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.ledger.connection import Ledger
from arena.ledger.migrations_0029 import DERIVED_TABLES
from arena.ledger.seals import CHILDREN

# The seal: a row with every write, counting nothing; the chain of them is checked apart
# (the mark's commit must still be there, as it was).
_SEAL = "commits"
# Rows that count in a family only through other rows, which name it: a system through
# the outputs imported there (a status counts the systems of the outputs); a suite
# through the runs and trials of it (a status reads no suite).
_THROUGH_OTHERS = frozenset({"systems", "suites"})
# Tables whose rows name their family other than by a ``family`` column.
_FAMILY_OF = {
    "families": "SELECT name FROM families WHERE rowid > ?",
    # An output's verdicts count in its family only; an output with no key row (never
    # made by Arena) gives NULL, which counts every family again.
    "gate_results": "SELECT DISTINCT k.family FROM gate_results g "
    "LEFT JOIN output_keys k ON k.output_id = g.output_id WHERE g.rowid > ?",
    "round_comparisons": "SELECT DISTINCT r.family FROM round_comparisons c "
    "LEFT JOIN rounds r ON r.round_id = c.round_id WHERE c.rowid > ?",
}


@dataclass(frozen=True)
class Mark:
    """Where the ledger stood: schema and user version, newest commit (seq, hash) and
    the newest rowid of every table (None when empty)."""

    schema: tuple[int, int]
    commit: tuple[int, str] | None
    newest: dict[str, int | None]

    def as_json(self) -> dict[str, Any]:
        return {"schema": list(self.schema), "commit": self.commit, "newest": self.newest}

    @classmethod
    def from_json(cls, found: dict[str, Any]) -> Mark:
        """The mark ``as_json`` wrote; ValueError if ``found`` is not one."""
        schema, commit, newest = found["schema"], found["commit"], found["newest"]
        if not (
            isinstance(schema, list)
            and len(schema) == 2
            and all(type(v) is int for v in schema)
            and (commit is None or _is_commit(commit))
            and isinstance(newest, dict)
            and all(v is None or type(v) is int for v in newest.values())
        ):
            raise ValueError(f"not a mark: {found!r}")
        return cls(
            (schema[0], schema[1]), None if commit is None else (commit[0], commit[1]), newest
        )


def _is_commit(commit: Any) -> bool:
    return (
        isinstance(commit, list)
        and len(commit) == 2
        and type(commit[0]) is int
        and isinstance(commit[1], str)
    )


def mark(ledger: Ledger) -> Mark:
    """Where ``ledger`` stands now."""
    conn = ledger.conn
    tables = sorted(
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        # Not counted by rowid: rows that come with their parent's, or counts kept in place.
        if name not in CHILDREN and name not in DERIVED_TABLES
    )
    (schema,) = conn.execute("PRAGMA schema_version").fetchone()
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    head = conn.execute(f"SELECT seq, hash FROM {_SEAL} ORDER BY seq DESC LIMIT 1").fetchone()
    newest = {
        name: conn.execute(f'SELECT MAX(rowid) FROM "{name}"').fetchone()[0] for name in tables
    }
    return Mark((schema, version), None if head is None else (head[0], head[1]), newest)


def families_written_since(ledger: Ledger, then: Mark) -> set[str] | None:
    """The families with rows written since ``then``; None when that cannot be told
    (the schema changed, a table shrank or is new, the commit marked is gone or other,
    or a row names no family, such as a gate verdict of an output with no key row):
    every family, then. A new system counts in the families its outputs are imported
    into, a new suite in none (only its runs and trials name a family)."""
    now = mark(ledger)
    if now.schema != then.schema or set(now.newest) != set(then.newest):
        return None
    if then.commit is not None:
        found = ledger.conn.execute(
            f"SELECT seq, hash FROM {_SEAL} WHERE seq = ?", [then.commit[0]]
        ).fetchone()
        if found is None or tuple(found) != then.commit:
            return None  # another history (a copy put back, then written to)
    written: set[str] = set()
    for table, newest in now.newest.items():
        before = then.newest[table]
        if newest == before or table == _SEAL:
            continue
        if newest is None or (before is not None and newest < before):
            return None
        if table in _THROUGH_OTHERS:
            continue
        families = _families_of(ledger, table, before or 0)
        if families is None:
            return None
        written.update(families)
    return written


def _families_of(ledger: Ledger, table: str, after: int) -> set[str] | None:
    """The families of the rows of ``table`` above rowid ``after``; None if one of them
    names no family."""
    conn = ledger.conn
    query = _FAMILY_OF.get(table)
    if query is None:
        columns = {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
        if "family" not in columns:
            return None
        query = f'SELECT DISTINCT family FROM "{table}" WHERE rowid > ?'
    found = {family for (family,) in conn.execute(query, [after])}
    return None if None in found else found
