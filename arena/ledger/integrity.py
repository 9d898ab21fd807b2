"""``arena check``: SQLite's own checks, a walk of every hash chain and of the seals,
content bound to its ids, pairs bound to their cases, and the head file (or a head
digest given from outside)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from arena.canonical import sha256_hex
from arena.ledger import chain, heads, seal_spans, seals, summaries
from arena.ledger.connection import Ledger
from arena.ledger.guards import (
    APPEND_ONLY,
    IMMUTABLE,
    IMMUTABLE_FAMILY_CHANGES,
    IMMUTABLE_GRADED,
    IMMUTABLE_TRIALS,
    guard_names,
)
from arena.ledger.migrations_0020 import COLLECTING_TABLES
from arena.ledger.migrations_0022 import JUDGE_TABLES
from arena.ledger.migrations_0023 import JUDGE_SOURCE_TABLES
from arena.ledger.migrations_0025 import RATER_KEY_TABLES
from arena.ledger.migrations_0026 import JUDGE_RUN_TABLES
from arena.ledger.migrations_0027 import DRAW_TABLES
from arena.records import SystemDescriptor, output_id
from arena.texts import text_key


def check(ledger: Ledger, anchors: tuple[str, ...] = ()) -> list[str]:
    """Every problem found, one line each; empty when the ledger is sound.

    ``anchors``: head digests printed earlier (at a close, an export); each must still be
    in the seal chain, which catches a rollback or a rewrite that the head file missed.
    """
    try:
        found = [r[0] for r in ledger.conn.execute("PRAGMA integrity_check")]
        keys = list(ledger.conn.execute("PRAGMA foreign_key_check"))
        problems = [] if found == ["ok"] else [f"integrity: {line}" for line in found]
        problems += [
            f"foreign key: {row[0]} row {row[1]} points to a missing {row[2]} row" for row in keys
        ]
        problems += chain.verify(ledger.db)
        problems += seal_spans.verify(ledger.db)
        problems += _unbound_content(ledger)
        problems += _pairs_across_cases(ledger)
        problems += missing_guards(ledger)
        problems += summaries.stale_tallies(ledger)
        problems += heads.behind(ledger.db, ledger.path)
        problems += [_not_held(ledger, digest) for digest in anchors if not _holds(ledger, digest)]
    except sqlite3.DatabaseError as exc:
        return [f"the file cannot be read as a database: {exc}"]
    return problems


def _holds(ledger: Ledger, digest: str) -> bool:
    found = ledger.conn.execute(f"SELECT 1 FROM {seals.TABLE} WHERE hash = ?", [digest]).fetchone()
    return found is not None


def _not_held(ledger: Ledger, digest: str) -> str:
    newest = seals.head(ledger.db)
    return (
        f"head digest {digest}: this ledger does not hold that state (rolled back, or "
        f"rewritten since; it ends at {newest})"
    )


def _unbound_content(ledger: Ledger) -> list[str]:
    """Ids that no longer name their content: an output's text against its stored hash,
    its id against its case, system and sample; a system's id against its descriptor."""
    problems = []
    rows = ledger.conn.execute(
        "SELECT o.output_id, o.family, o.case_id, o.system_id, o.sample, o.text, "
        "o.content_hash, k.family, k.case_id, k.system_id, k.text_key "
        "FROM outputs o LEFT JOIN output_keys k USING (output_id)"
    )
    for output, family, case, system, sample, text, stored, *keyed in rows:
        if sha256_hex(text) != stored:
            problems.append(f"outputs: {output}: its text does not match its content hash")
        if keyed != [family, case, system, text_key(text)]:
            problems.append(
                f"output_keys: {output}: missing, or not where its output sits with its text's key"
            )
        if output_id(family, case, system, sample) != output:
            problems.append(f"outputs: {output}: its id does not match its case, system, sample")
    orphans = ledger.conn.execute(
        "SELECT COUNT(*) FROM output_keys WHERE output_id NOT IN (SELECT output_id FROM outputs)"
    ).fetchone()[0]
    if orphans:
        problems.append(f"output_keys: {orphans} keys of outputs the ledger does not hold")
    for system, descriptor in ledger.conn.execute("SELECT system_id, descriptor FROM systems"):
        try:
            bound = SystemDescriptor(**json.loads(descriptor)).system_id == system
        except (TypeError, ValueError):
            bound = False
        if not bound:
            problems.append(f"systems: {system}: its id is not the hash of its descriptor")
    return problems


def _pairs_across_cases(ledger: Ledger) -> list[str]:
    """Presentations and votes whose two outputs are not outputs of their own case and
    family (``voting`` refuses to write one)."""
    problems = []
    for table, key in (("presentations", "presentation_id"), ("votes", "vote_id")):
        rows = ledger.conn.execute(
            f"SELECT {key} FROM {table} t WHERE EXISTS (SELECT 1 FROM (SELECT t.left_output "
            "AS output_id UNION ALL SELECT t.right_output) o WHERE NOT EXISTS (SELECT 1 FROM "
            "output_keys k WHERE k.output_id = o.output_id AND k.family = t.family "
            "AND k.case_id = t.case_id))"
        )
        problems += [f"{table}: {row[0]}: its outputs are not two of its case" for row in rows]
    return problems


# Every table kept append-only by triggers.
GUARDED = (
    *APPEND_ONLY,
    *IMMUTABLE,
    *IMMUTABLE_GRADED,
    *IMMUTABLE_TRIALS,
    *IMMUTABLE_FAMILY_CHANGES,
    *COLLECTING_TABLES,
    *JUDGE_TABLES,
    *JUDGE_SOURCE_TABLES,
    *RATER_KEY_TABLES,
    *JUDGE_RUN_TABLES,
    *DRAW_TABLES,
    "output_keys",
    "round_items",
    "round_comparisons",
    seals.TABLE,
)


def missing_guards(ledger: Ledger, tables: Collection[str] = GUARDED) -> list[str]:
    """The append-only triggers of ``tables`` that should be there and are not (dropped,
    or the table rebuilt, as sqlite-utils' transform() does)."""
    present = {
        r[0] for r in ledger.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    problems = []
    for table in (t for t in GUARDED if t in tables):
        for name in guard_names(table, chained=table in APPEND_ONLY):
            if name not in present:
                problems.append(
                    f"{table}: the append-only guard {name} is missing "
                    "(dropped, or the table was rebuilt)"
                )
    return problems
