"""A transaction on the bare connection: what ``Ledger.atomic`` writes in."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One transaction on ``conn``, or a savepoint inside the one open (as sqlite-utils'
    ``atomic``, which code holding its Database may nest in this one)."""
    if not conn.in_transaction:
        conn.execute("BEGIN")
        try:
            yield
            conn.execute("COMMIT")  # a full disk fails here: rolled back below
        except BaseException:
            # No-op where the error already ended the transaction, so it is the one raised.
            conn.rollback()
            raise
        return
    conn.execute("SAVEPOINT arena")
    try:
        yield
    except BaseException:
        # A RAISE(ROLLBACK) trigger may have ended the transaction, savepoint and all.
        if conn.in_transaction:
            conn.execute("ROLLBACK TO SAVEPOINT arena")
            conn.execute("RELEASE SAVEPOINT arena")
        raise
    conn.execute("RELEASE SAVEPOINT arena")
