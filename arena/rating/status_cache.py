"""`arena status` kept beside the ledger for as long as the ledger stays as it was.

Counting a family reads every output and vote it holds (about 0.1 s a family of 20,000
of each), and the counts change only when the ledger does. So the rows counted are kept
in ``<ledger>.status.json`` with the digest of the state they were counted at
(``tallies.ledger_state``, which any write changes). A file made at another state, by
another Arena, or edited (its own digest no longer matches) is set aside and the rows are
counted again. It is a cache, not a record: `arena check` does not read it, and losing it
or failing to write it (a read-only folder) costs only the time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena import __version__
from arena.canonical import content_hash
from arena.ledger import Ledger, tallies
from arena.ledger.connection import MEMORY

SUFFIX = ".status.json"
# Bumped when a row holds something else or is counted otherwise.
FORMAT = 1

Row = dict[str, Any]


def path_for(ledger_path: str) -> Path:
    return Path(ledger_path + SUFFIX)


def rows(
    ledger: Ledger, names: Sequence[str], count: Callable[[list[str]], list[Row]]
) -> list[Row]:
    """The status rows of the families ``names``: those kept for the ledger as it stands,
    the others from ``count`` (and kept)."""
    if ledger.path == MEMORY:
        return count(list(names))
    # The state before the counting: a write meanwhile leaves the rows filed under a state
    # the ledger has left (and never comes back to), so they are counted again.
    state = tallies.ledger_state(ledger)
    path = path_for(ledger.path)
    kept = _read(path, state)
    missing = [name for name in names if name not in kept]
    if missing:
        kept.update(zip(missing, count(missing), strict=True))
        _write(path, state, kept)
    return [dict(kept[name]) for name in names]


def _sealed(state: str, kept: dict[str, Row]) -> dict[str, Any]:
    body = {"format": FORMAT, "arena": __version__, "state": state, "rows": kept}
    return {**body, "digest": content_hash(body)}


def _read(path: Path, state: str) -> dict[str, Row]:
    """The rows kept in ``path`` if counted at ``state`` by this Arena, unedited; else none."""
    try:
        found = json.loads(path.read_text("utf-8"))
        rows = found["rows"]
        if found == _sealed(state, rows):
            return dict(rows)
    except (OSError, ValueError, TypeError, KeyError):
        pass  # missing, half-written or not ours: counted again
    return {}


def _write(path: Path, state: str, kept: dict[str, Row]) -> None:
    # Written whole and renamed over the old file, so a reader finds one or the other.
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(_sealed(state, kept)), "utf-8")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
