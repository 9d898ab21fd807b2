"""The triggers that keep tables append-only, and which tables they guard.

A guarded table refuses UPDATE, DELETE and any INSERT that would replace a
row; a chained table also refuses a row that does not continue its family's
hash chain (arena.ledger.chain).
"""

from __future__ import annotations

GENESIS_HASH = "0" * 64

# Tables whose rows are never updated, deleted or replaced; each carries one hash chain
# per family (so a family's rows can be exported and checked on their own).
# name -> the app-made id column.
APPEND_ONLY: dict[str, str] = {
    "presentations": "presentation_id",
    "votes": "vote_id",
    "retractions": "retraction_id",
    "events": "event_id",
}

# Tables whose rows may be added but never changed or removed (no chain: their
# content is addressed by hash already, or they record facts, not judgments).
IMMUTABLE: dict[str, str] = {
    "systems": "system_id",
    "outputs": "output_id",
    "rounds": "round_id",
    "gate_results": "seq",
    "sessions": "session_id",
}

# Graded families (0005): added but never changed or removed.
IMMUTABLE_GRADED: dict[str, str] = {
    "suites": "suite_hash",
    "runs": "seq",
    "attempts": "seq",
    "grades": "seq",
}

# Tests families (0012): added but never changed or removed.
IMMUTABLE_TRIALS: dict[str, str] = {"tasks": "seq", "trials": "trial_id"}

# Changes to a family's settings, label and archived state (0013): added, never changed.
IMMUTABLE_FAMILY_CHANGES: dict[str, str] = {"family_changes": "change_id"}


def _refuse(table: str, what: str) -> str:
    return f"SELECT RAISE(ABORT, '{table} is append-only: {what}')"


def guard_names(table: str, *, chained: bool) -> list[str]:
    """The names of the triggers that keep ``table`` append-only."""
    names = [f"{table}_no_update", f"{table}_no_delete", f"{table}_no_replace"]
    return names + ([f"{table}_no_reuse_seq", f"{table}_chain"] if chained else [])


def guard_sql(table: str, key: str, *, chained: bool) -> str:
    """The triggers that keep ``table`` append-only (``key``: its id column)."""
    # BEFORE INSERT triggers fire before conflict resolution, so they also stop
    # INSERT OR REPLACE / REPLACE / upserts even with recursive_triggers off
    # (when a replaced row's DELETE trigger would not fire).
    sql = f"""
        CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
        BEGIN {_refuse(table, "rows cannot be changed")}; END;
        CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
        BEGIN {_refuse(table, "rows cannot be removed")}; END;
        CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table}
        WHEN EXISTS (SELECT 1 FROM {table} WHERE {key} = NEW.{key})
        BEGIN {_refuse(table, f"{key} already recorded")}; END;
    """
    if chained:
        sql += f"""
        CREATE TRIGGER {table}_no_reuse_seq BEFORE INSERT ON {table}
        WHEN EXISTS (SELECT 1 FROM {table} WHERE seq = NEW.seq)
        BEGIN {_refuse(table, "seq already used")}; END;
        CREATE TRIGGER {table}_chain BEFORE INSERT ON {table}
        WHEN NEW.prev_hash IS NOT COALESCE(
            (SELECT hash FROM {table} WHERE family = NEW.family ORDER BY seq DESC LIMIT 1),
            '{GENESIS_HASH}')
        BEGIN {_refuse(table, "prev_hash does not continue the chain")}; END;
        """
    return sql
