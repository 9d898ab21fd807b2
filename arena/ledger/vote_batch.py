"""Presentations, votes and retractions written a batch at a time, for `arena import-votes`.

``voting.record_presentation`` and ``voting.record_vote`` look a row up, find
its chain's head and insert it, a few queries per row. ``record_many`` writes
the same rows with the same hash chains and the same refusals for a whole
batch: one look-up per table, hashes computed in a loop, one ``executemany``
per table. The triggers still check every row (append-only, chain, one vote in
force per presentation).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

import orjson

from arena.errors import ArenaError, BadInput
from arena.ledger import chain, repeat_draws
from arena.ledger.bulk import import_cache
from arena.ledger.connection import Ledger
from arena.ledger.guards import GENESIS_HASH
from arena.ledger.voting import AlreadyVoted, _same, places, refuse_other_cases, vote_on
from arena.records import OutputId, Presentation, Vote

# Page cache while a large batch is written (SQLite's default is 2 MB): the unique
# indexes of ids take their entries in random order.
_CACHE_MB = 128
_SAFE_INT = 2**53
# A null in these columns is left out of a row's hash (chain.row_hash).
_NULL_NOT_HASHED = frozenset(chain.EVENT_COLUMNS_0006)
_PLAIN = frozenset({str, int, type(None)})


class Refused(ArenaError):
    """Pair ``index`` of a ``record_many`` batch was refused; ``error`` is what
    ``record_presentation`` or ``record_vote`` would have raised for it."""

    def __init__(self, index: int, error: ArenaError) -> None:
        self.index, self.error = index, error
        super().__init__(str(error))


def large_writes(ledger: Ledger) -> AbstractContextManager[None]:
    """A larger page cache for as long as the block lasts."""
    return import_cache(ledger, _CACHE_MB)


def case_outputs(ledger: Ledger, family: str, case_id: str) -> dict[tuple[str, int], OutputId]:
    """The outputs of one case of ``family``: (system id, sample) -> output id."""
    rows = ledger.conn.execute(
        "SELECT system_id, sample, output_id FROM outputs WHERE family = ? AND case_id = ?",
        [family, case_id],
    )
    return {(system, sample): OutputId(oid) for system, sample, oid in rows}


def record_many(ledger: Ledger, shown: Sequence[tuple[Presentation, Vote]]) -> int:
    """Record each presentation, then its vote, in order: the rows, hash chains and
    refusals of ``record_presentation`` and ``record_vote`` called pair by pair, in a
    few statements for the whole batch. Returns how many votes were new.

    A pair that would be refused raises ``Refused`` before anything is written.
    """
    # A flat dataclass's __dict__ holds its fields in order: what dataclasses.asdict gives.
    presentations = [dict(vars(p)) for p, _ in shown]
    votes = [{**vars(v), "identity_leak": int(v.identity_leak)} for _, v in shown]
    with ledger.atomic():
        known_p = _stored(ledger, "presentations", "presentation_id", presentations)
        known_v = _stored(ledger, "votes", "vote_id", votes)
        in_db = set(known_p)
        standing: dict[str, Vote] = {}  # votes of this batch, by presentation
        found = places(ledger, (o for pair in shown for row in pair for o in _outputs(row)))
        new_p, new_v = [], []
        for index, (p, v) in enumerate(zip(presentations, votes, strict=True)):
            try:
                refuse_other_cases(found, shown[index][0])
                if _is_new(known_p, "presentations", "presentation_id", p):
                    new_p.append(p)
                if v["left_output"] == v["right_output"]:
                    raise BadInput("a vote needs two different outputs", field="right_output")
                refuse_other_cases(found, shown[index][1])
                presentation_id = v["presentation_id"]
                if v["vote_id"] not in known_v:
                    earlier = standing.get(presentation_id)
                    if earlier is None and presentation_id in in_db:
                        earlier = vote_on(ledger, presentation_id)
                    if earlier is not None:
                        raise AlreadyVoted(earlier)
                if _is_new(known_v, "votes", "vote_id", v):
                    new_v.append(v)
                    standing[presentation_id] = shown[index][1]
            except ArenaError as exc:
                raise Refused(index, exc) from None
        _append_rows(ledger, "presentations", new_p)
        _append_rows(ledger, "votes", new_v)
        repeat_draws.add(
            ledger.conn,
            [
                (v["vote_id"], v["family"], v["presentation_id"], v["repeat_of"], v["choice"])
                for v in new_v
            ],
        )
    return len(new_v)


def record_retractions(ledger: Ledger, rows: Sequence[dict[str, Any]]) -> int:
    """Append the retraction rows (``voting.retract``'s columns, ids chosen by the caller)
    not recorded yet, in order; returns how many were new. A row recorded with other
    content, or retracting a vote that is not recorded or already retracted, is refused
    before anything is written."""
    with ledger.atomic():
        known = _stored(ledger, "retractions", "retraction_id", list(rows))
        new = [dict(row) for row in rows if _is_new(known, "retractions", "retraction_id", row)]
        votes = [row["vote_id"] for row in new]
        twice = {vote for vote, count in Counter(votes).items() if count > 1}
        found = _stored(ledger, "votes", "vote_id", [{"vote_id": v} for v in votes])
        done = _stored(ledger, "retractions", "vote_id", [{"vote_id": v} for v in votes])
        for row in new:
            if row["vote_id"] not in found:
                raise BadInput(f"no vote {row['vote_id']} to retract", field="vote_id")
            if row["vote_id"] in done or row["vote_id"] in twice:
                raise BadInput(f"vote {row['vote_id']} is already retracted", field="vote_id")
        _append_rows(ledger, "retractions", new)
    return len(new)


def _outputs(row: Presentation | Vote) -> tuple[OutputId, OutputId]:
    return row.left_output, row.right_output


def _stored(ledger: Ledger, table: str, key: str, rows: list[dict]) -> dict[str, dict]:
    """The rows of ``table`` already recorded under the ``key`` of one of ``rows``."""
    cursor = ledger.conn.execute(
        f"SELECT * FROM {table} WHERE {key} IN (SELECT value FROM json_each(?))",
        [json.dumps([r[key] for r in rows])],
    )
    names = [d[0] for d in cursor.description]
    return {r[key]: r for r in (dict(zip(names, values, strict=True)) for values in cursor)}


def _is_new(known: dict[str, dict], table: str, key: str, row: dict) -> bool:
    """Whether ``row`` is still to be written (``_write_once``'s test); remembers it."""
    stored = known.get(row[key])
    if stored is None:
        known[row[key]] = row
        return True
    if not _same(stored, row):
        raise ArenaError(f"{table} {row[key]} is already recorded with other content")
    return False


def row_hash(prev: str, row: dict[str, Any]) -> str:
    """``chain.row_hash``, faster: for a row of strings, integers within ±2**53 and nulls
    orjson writes the bytes ``canonical_json`` would; any other row goes to
    ``chain.row_hash``."""
    kinds = set(map(type, row.values()))
    if not kinds <= _PLAIN:
        return chain.row_hash(prev, row)
    if int in kinds and not all(-_SAFE_INT <= v <= _SAFE_INT for v in _ints(row)):
        return chain.row_hash(prev, row)
    if type(None) in kinds and any(row.get(k, 0) is None for k in _NULL_NOT_HASHED):
        return chain.row_hash(prev, row)
    return hashlib.sha256(
        prev.encode() + orjson.dumps(row, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()


def _ints(row: dict[str, Any]) -> Iterator[int]:
    return (v for v in row.values() if type(v) is int)


def _append_rows(ledger: Ledger, table: str, rows: list[dict]) -> None:
    """Append ``rows`` (in order, none of them stored yet) to their families' chains:
    ``chain.append`` row by row, in one statement."""
    if not rows:
        return
    db = ledger.db
    prev: dict[str, str] = {}
    values = []
    for row in rows:
        family = row["family"]
        if family not in prev:
            head = db.execute(
                f"SELECT hash FROM {table} WHERE family = ? ORDER BY seq DESC LIMIT 1", [family]
            ).fetchone()
            prev[family] = head[0] if head else GENESIS_HASH
        digest = row_hash(prev[family], row)
        values.append((*row.values(), prev[family], digest))
        prev[family] = digest
    names = [*rows[0], "prev_hash", "hash"]
    db.conn.executemany(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        values,
    )
    for family, digest in prev.items():
        head = db.execute(
            f"SELECT seq, hash FROM {table} WHERE family = ? ORDER BY seq DESC LIMIT 1", [family]
        ).fetchone()
        if head[1] != digest:  # the chain trigger sees to it
            raise ArenaError(f"{table} of {family}: the chain does not end where it was written")
        ledger.pending_heads.append((table, family, head[0], digest))
