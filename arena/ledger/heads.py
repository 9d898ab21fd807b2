"""The head file: where each hash chain of a ledger ended at its last commit.

A chain proves that no row inside it was changed or removed, but not that
its newest rows are still there: delete the last vote (or lose WAL frames)
and what remains is a shorter, valid chain. So after every commit that
extends a chain, the ledger writes ``<ledger>.heads.json`` beside it, and
`arena check` requires every head recorded there to still be in the chain.

The file is written after the commit, so it may lag the database (a crash
in between), never lead it: a database ahead of its head file is fine. The
window holds a vote key's write until the next pair is painted
(``Ledger.heads_held``), and any later write writes it first: it lags by one
commit at most, for that long (docs/reliability.md, "One durable commit a key"). The
new version is synced before it replaces the old one, so a power cut leaves
the old or the new file, never an empty one: an unreadable head file is a
problem `arena check` reports.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.ledger import seals
from arena.ledger.guards import APPEND_ONLY

if TYPE_CHECKING:
    from arena.ledger.seals import Connection

SUFFIX = ".heads.json"
Heads = dict[str, dict[str, dict[str, Any]]]  # table -> family -> {"seq", "hash"}
# The seal chain is the ledger's, not a family's: its head is filed under this name.
COMMITS, LEDGER = seals.TABLE, "ledger"


def path_for(ledger_path: str) -> Path:
    return Path(ledger_path + SUFFIX)


def current(db: Connection) -> Heads:
    """The newest row of every family's chain in every chained table."""
    heads: Heads = {}
    families = [name for (name,) in db.execute("SELECT name FROM families")]
    for table in APPEND_ONLY:
        heads[table] = {}
        for family in families:  # one index seek each, not a walk of every row
            newest = db.execute(
                f"SELECT seq, hash FROM {table} WHERE family = ? ORDER BY seq DESC LIMIT 1",
                [family],
            ).fetchone()
            if newest is not None:
                heads[table][family] = {"seq": newest[0], "hash": newest[1]}
    sealed = seals.head(db)
    if sealed is not None:
        heads[COMMITS] = {LEDGER: {"seq": sealed.seq, "hash": sealed.hash}}
    return heads


# One writer of a head file at a time in this process: the window's connection (after a
# key's pair is painted) and a long operation's (``Ledger.beside``, on its thread) share
# the temporary name; only one process writes a ledger.
_WRITING = threading.Lock()


def write(ledger_path: str, heads: Heads) -> None:
    target = path_for(ledger_path)
    temporary = target.with_name(target.name + ".tmp")
    with _WRITING:
        first = not target.exists()
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(heads, sort_keys=True, indent=1))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    # A power cut that undid the rename would leave the head file before: behind the
    # ledger, which is allowed. Only the first one must not vanish (a missing head file
    # with sealed writes reads as a deleted one), so only its rename is made durable:
    # one fsync less for every vote.
    if first:
        _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable: a power cut must not take the first head file away."""
    if os.name != "posix":
        return  # Windows cannot sync a folder (NTFS journals the rename itself)
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


class Unreadable(ValueError):
    """The head file exists but is not what Arena writes."""


def read(ledger_path: str) -> Heads | None:
    """The recorded heads, or None when there is no head file; Unreadable if damaged."""
    target = path_for(ledger_path)
    if not target.exists():
        return None
    try:
        recorded = json.loads(target.read_text("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Unreadable(f"not JSON ({type(exc).__name__})") from None
    shape_ok = isinstance(recorded, dict) and all(
        isinstance(families, dict)
        and all(
            isinstance(h, dict)
            and isinstance(h.get("seq"), int)
            # A seq SQLite cannot hold is not one Arena wrote.
            and 0 <= h["seq"] < 2**63
            and isinstance(h.get("hash"), str)
            for h in families.values()
        )
        for families in recorded.values()
    )
    if not shape_ok:
        raise Unreadable("not a table -> family -> {seq, hash} map")
    return recorded


def missing(db: Connection, recorded: Heads) -> list[str]:
    """One line per recorded head that is no longer in its chain."""
    problems = []
    for table, families in sorted(recorded.items()):
        if table == COMMITS:
            problems += _missing_commit(db, families.get(LEDGER))
            continue
        if table not in APPEND_ONLY:
            problems.append(f"head file: unknown table {table}")
            continue
        for family, head in sorted(families.items()):
            row = db.execute(
                f"SELECT hash FROM {table} WHERE seq = ? AND family = ?", [head.get("seq"), family]
            ).fetchone()
            if row is None or row[0] != head.get("hash"):
                newest = db.execute(
                    f"SELECT MAX(seq) FROM {table} WHERE family = ?", [family]
                ).fetchone()[0]
                problems.append(
                    f"{table} of family {family!r}: the newest rows are gone (the head file "
                    f"records seq {head.get('seq')}, the ledger ends at {newest})"
                )
    return problems


def _missing_commit(db: Connection, head: dict[str, Any] | None) -> list[str]:
    if head is None:
        return ["head file: no commit recorded"]
    found = db.execute(f"SELECT hash FROM {COMMITS} WHERE seq = ?", [head.get("seq")]).fetchone()
    if found is not None and found[0] == head.get("hash"):
        return []
    newest = seals.head(db)
    return [
        f"commits: the newest rows are gone (the head file records commit {head.get('seq')}, "
        f"the ledger ends at commit {newest.seq if newest else 0}): lost or rolled back"
    ]


def behind(
    db: Connection, ledger_path: str, only: Callable[[str, str], bool] | None = None
) -> list[str]:
    """Why the ledger is behind its head file (empty when it is not): recorded heads that
    are gone, a damaged head file, or none at all where writes were sealed. ``only(table,
    family)`` picks the chains to look at (the seal chain's head is always looked at)."""
    try:
        recorded = read(ledger_path)
    except Unreadable as exc:
        return [f"the head file {path_for(ledger_path)} is unreadable ({exc})"]
    if recorded is None:
        written = sealed_writes(db)
        if written:
            return [
                f"the head file {path_for(ledger_path)} is missing, though this ledger "
                f"sealed writes up to commit {written}"
            ]
        return []
    if only is not None:
        recorded = {
            table: {f: h for f, h in families.items() if table == COMMITS or only(table, f)}
            for table, families in recorded.items()
        }
    return missing(db, recorded)


def sealed_writes(db: Connection) -> int:
    """The newest commit that sealed a write (0: none yet; the ledger is new)."""
    return int(
        db.execute(f"SELECT MAX(seq) FROM {COMMITS} WHERE kind = 'write'").fetchone()[0] or 0
    )
