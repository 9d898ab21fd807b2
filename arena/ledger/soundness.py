"""Write only from a sound ledger (SPEC, Trust).

Before a command writes from what it reads of a family (closes a round, signs a
bundle, sends a request with the rater's key, adds a judge's verdicts or
imported votes), the rows it reads must still match their hash chains and
seals: else an edit made with the guards dropped would be closed, signed and
published as the rater's. `arena check` walks the whole ledger; this walks the
family's rows of the tables the command reads, the commits that seal them and
the head file's heads of the family's chains, and words every problem as
`arena check` does. It reads each of those rows once (SQLite writes a chained
row's canonical JSON, Python hashes it): a cost of the order of the command's
own reading, paid once per command, never per vote.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager

from arena.errors import UnsoundLedger
from arena.ledger import chain, heads, seal_spans, seals
from arena.ledger.connection import MEMORY, Ledger
from arena.ledger.guards import APPEND_ONLY
from arena.ledger.integrity import missing_guards

# Where a table's rows of a family are, for the tables that do not name it.
_OF_FAMILY = {
    "families": "name = :family",
    "systems": (
        "system_id IN (SELECT system_id FROM family_systems WHERE family = :family "
        "UNION SELECT system_id FROM outputs WHERE family = :family "
        "UNION SELECT system_id FROM runs WHERE family = :family)"
    ),
    "gate_results": "output_id IN (SELECT output_id FROM outputs WHERE family = :family)",
    "suites": "suite_hash IN (SELECT suite_hash FROM runs WHERE family = :family)",
    "round_comparisons": "round_id IN (SELECT round_id FROM rounds WHERE family = :family)",
}

# What each kind of write reads of its family (a round's items are checked with it).
CASES = ("families", "family_changes", "events", "cases", "case_details")
SYSTEMS = ("systems", "family_systems")
CATALOG = (*CASES, *SYSTEMS, "outputs", "output_keys", "gate_results")
JUDGES = ("judge_sources", "judge_verdicts", "judge_descriptors", "judge_replies")
TRIALS = ("tasks", "trials")
GRADED = ("suites", "runs", "attempts", "grades")
VOTES = ("sessions", "votes", "retractions")
FILL = (*CASES, *SYSTEMS, "outputs", "output_keys")  # adding outputs: collecting, importing
JUDGE_IMPORT = (*FILL, *JUDGES)
VOTING = (*CATALOG, *TRIALS, *VOTES, "presentations", "presentation_draws")
ROUND = (
    *CATALOG,
    *TRIALS,
    *VOTES,
    *JUDGES,
    *GRADED,
    "rounds",
    "round_comparisons",
    "presentation_draws",
)
EXPORT = (*ROUND, "presentations")  # a bundle's flags show the pair as it was shown
BATTLES = ("families", *SYSTEMS, "votes", "rounds", "round_comparisons")


def problems(
    ledger: Ledger, family: str, tables: Collection[str], *, rows: bool = True
) -> list[str]:
    """Every problem in what ``tables`` hold of ``family``, one line each, as `arena
    check` words it; empty when it is sound. Without ``rows``, only what costs no read
    of the rows: guards, rows added outside Arena, and the head file's heads."""
    try:
        with _snapshot(ledger.conn):
            found = _rows_problems(ledger, family, tables, rows)
        # After the snapshot: the head file is written after each commit, so it may be
        # ahead of a snapshot taken while the window votes, never of the ledger now.
        if ledger.path != MEMORY:
            found += heads.behind(
                ledger.conn, ledger.path, lambda t, f: t in tables and f == family
            )
    except sqlite3.DatabaseError as exc:
        return [f"the file cannot be read as a database: {exc}"]
    return found


@contextmanager
def _snapshot(db: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: the rows and the commits sealing them as of one moment,
    though the window commits votes meanwhile (an export beside it)."""
    if db.in_transaction:
        yield
        return
    db.execute("BEGIN")
    try:
        yield
    finally:
        db.execute("ROLLBACK")  # it only read


def _rows_problems(ledger: Ledger, family: str, tables: Collection[str], rows: bool) -> list[str]:
    db = ledger.conn
    found = missing_guards(ledger, {*tables, seals.TABLE})
    commits: set[int] = set()
    for table in tables:
        if table in APPEND_ONLY and rows:
            # The chain binds each row to the one before it, the head file binds its
            # newest row: walked, they leave the seals nothing to add but their reach.
            found += chain.verify_family(db, table, family)
        if table in APPEND_ONLY or not rows:
            found += seal_spans.unsealed(db, table)
            continue
        where = _OF_FAMILY.get(table, "family = :family")
        held = [
            rowid
            for (rowid,) in db.execute(
                f"SELECT rowid FROM {table} WHERE {where} ORDER BY rowid", {"family": family}
            )
        ]
        sealed, read = seal_spans.verify_holding(db, table, held)
        found += sealed
        commits |= read
    return found + seal_spans.verify_commits(db, commits)


def require_sound(
    ledger: Ledger, family: str, tables: Collection[str], *, rows: bool = True
) -> None:
    """Refuse (``UnsoundLedger``, exit code 1 as `arena check`'s) unless what ``tables``
    hold of ``family`` still matches its chains and seals (see ``problems``)."""
    found = problems(ledger, family, tables, rows=rows)
    if found:
        raise UnsoundLedger(ledger.path, family, found)
