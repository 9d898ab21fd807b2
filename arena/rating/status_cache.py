"""`arena status` kept beside the ledger, family by family, for as long as each family
stays as it was.

Counting a family reads every output and vote it holds (about 0.1 s a family of 20,000
of each), and a family's counts change only when rows of it are written. So the rows
counted are kept in ``<ledger>.status.json`` with the mark of the ledger they hold at
(``written.Mark``: schema, newest commit, newest rowid of every table). Next time, only
the families with rows written since (``written.families_written_since``: a vote in one
family counts that family again, not the others) are counted again; every family is when
that cannot be told (a schema change, another history). A file made by
another Arena, or edited (its own digest no longer matches) is set aside and every family
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
from arena.ledger import Ledger, written
from arena.ledger.connection import MEMORY

SUFFIX = ".status.json"
# Bumped when a row holds something else or is counted otherwise.
FORMAT = 6

Row = dict[str, Any]


def path_for(ledger_path: str) -> Path:
    return Path(ledger_path + SUFFIX)


def rows(
    ledger: Ledger, names: Sequence[str], count: Callable[[list[str]], list[Row]]
) -> list[Row]:
    """The status rows of the families ``names``: those kept for a family nothing was
    written to since, the others from ``count`` (and kept)."""
    if ledger.path == MEMORY:
        return count(list(names))
    # The mark before the counting: a write meanwhile is above it, so its family is
    # counted again next time.
    now = written.mark(ledger)
    path = path_for(ledger.path)
    kept, then = _read(path)
    if then is not None and then != now:
        stale = written.families_written_since(ledger, then)
        kept = {} if stale is None else {n: r for n, r in kept.items() if n not in stale}
    missing = [name for name in names if name not in kept]
    if missing:
        kept.update(zip(missing, count(missing), strict=True))
    if missing or then != now:
        _write(path, now, kept)
    return [dict(kept[name]) for name in names]


def _sealed(mark: dict[str, Any], kept: dict[str, Row]) -> dict[str, Any]:
    body = {"format": FORMAT, "arena": __version__, "mark": mark, "rows": kept}
    return {**body, "digest": content_hash(body)}


def _read(path: Path) -> tuple[dict[str, Row], written.Mark | None]:
    """The rows kept in ``path`` by this Arena, unedited, and the mark they hold at;
    else none."""
    try:
        found = json.loads(path.read_text("utf-8"))
        kept, mark = found["rows"], found["mark"]
        if found == _sealed(mark, kept):
            return dict(kept), written.Mark.from_json(mark)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass  # missing, half-written or not ours: counted again
    return {}, None


def _write(path: Path, mark: written.Mark, kept: dict[str, Row]) -> None:
    # Written whole and renamed over the old file, so a reader finds one or the other.
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(_sealed(mark.as_json(), kept)), "utf-8")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
