"""Checking the seals (``seals.py`` writes them): every one for `arena check`, or only the
commits that hold the rows one command reads (``soundness.py``).

Commits whose ranges of a table follow one another are recomputed in one pass over
their rows, not a query each: a rater's ledger has a commit for every vote.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from arena.canonical import sha256_hex
from arena.ledger.canonical_sql import canonical_object
from arena.ledger.guards import APPEND_ONLY, GENESIS_HASH
from arena.ledger.seals import (
    CHILDREN,
    HASHED,
    TABLE,
    child_lines,
    commit_hash,
    lines_digest,
    reach,
    row_lines,
    sealed_tables,
    value_json,
)

if TYPE_CHECKING:
    from arena.ledger.seals import Connection

Span = tuple[int, dict[str, Any]]  # a commit's seq and what it seals of one table
_COLUMNS = "seq, at, kind, note, tables, prev_hash, hash"
_FIELDS = ("from", "to", "rows", "sha256")
_VALUE = "arena_seal_value"  # a float or a blob as a seal line writes it
# Rows read and hashed at a time when a span is recomputed.
_BATCH = 4096


def verify(db: Connection) -> list[str]:
    """Walk the seal chain and recompute every sealed range; one line per problem."""
    if db.execute(f"SELECT 1 FROM {TABLE} LIMIT 1").fetchone() is None:
        return ["commits: none; the ledger's rows are sealed by nothing (the table was emptied)"]
    cursor = db.execute(f"SELECT {_COLUMNS} FROM {TABLE} ORDER BY seq")
    problems, spans = _walk(cursor, GENESIS_HASH, 1)
    for table in sealed_tables(db):
        if table in CHILDREN:
            parent = CHILDREN[table][0]
            problems += _verify_child(db, table, spans.get(parent, []), spans.pop(table, []))
        else:
            problems += _verify_table(db, table, spans.pop(table, []))[0]
    problems += [f"{table}: sealed by commits but gone from the ledger" for table in spans]
    return problems


def _walk(
    commits: Iterable[Sequence[Any]], prev: str, expected: int
) -> tuple[list[str], dict[str, list[Span]]]:
    """Each commit (``_COLUMNS``) against the one before it and its own hash; and what
    each table's commits seal."""
    problems: list[str] = []
    spans: dict[str, list[Span]] = {}
    for values in commits:
        commit = dict(zip(_COLUMNS.split(", "), values, strict=True))
        where = f"commits: commit {commit['seq']}"
        if commit["seq"] != expected:
            problems.append(f"{where} comes after commit {expected - 1} (commits were removed)")
        if commit["prev_hash"] != prev:
            problems.append(f"{where} does not follow the commit before it (removed or rewritten)")
        try:
            tables = json.loads(commit["tables"])
            intact = commit_hash(commit) == commit["hash"]
        except (TypeError, ValueError):
            tables, intact = {}, False
        if not intact:
            problems.append(f"{where}: its content does not match its hash (edited)")
        for table, span in tables.items():
            spans.setdefault(table, []).append((commit["seq"], span))
        prev, expected = commit["hash"], commit["seq"] + 1
    return problems, spans


def verify_commits(db: Connection, seqs: Collection[int]) -> list[str]:
    """The commits ``seqs``: each matches its hash, follows the commit before it and is
    followed by the one after. SQLite writes each commit's canonical JSON; where one does
    not match, ``_walk`` decides and words it, over that commit and its two neighbours."""
    around = sorted({s + d for s in seqs for d in (-1, 0, 1)} - {0})
    found = db.execute(
        f"SELECT seq, prev_hash, {canonical_object(HASHED)}, hash FROM {TABLE} "
        "WHERE seq IN (SELECT value FROM json_each(?))",
        [json.dumps(around)],
    )
    commits = {seq: (prev, text, digest) for seq, prev, text, digest in found}
    problems: list[str] = []
    for seq in sorted(seqs):
        prev, text, digest = commits.get(seq, (None, "", None))
        before = GENESIS_HASH if seq == 1 else commits.get(seq - 1, (None, "", None))[2]
        after = commits.get(seq + 1)
        if prev != before or sha256_hex(text) != digest or (after and after[0] != digest):
            low = max(seq - 1, 1)
            window = db.execute(
                f"SELECT {_COLUMNS} FROM {TABLE} WHERE seq >= ? AND seq <= ? ORDER BY seq",
                [low, seq + 1],
            ).fetchall()
            start = GENESIS_HASH if low == 1 else (window[0][5] if window else GENESIS_HASH)
            problems += [p for p in _walk(window, start, low)[0] if p not in problems]
    return problems


def verify_holding(db: Connection, table: str, rowids: Sequence[int]) -> tuple[list[str], set[int]]:
    """Recompute the commits of ``table`` that seal any of ``rowids`` (ascending), or
    that seal another count of rows than the table holds in their range (rows removed:
    whose they were is gone with them); check that the commits reach every row. The
    problems, and the seqs of the commits read."""
    fields = ", ".join(f"json_extract(tables, '$.{table}.{k}')" for k in _FIELDS)
    child = next((c for c, (parent, _, _) in CHILDREN.items() if parent == table), None)
    if child is not None:
        fields += ", " + ", ".join(f"json_extract(tables, '$.{child}.{k}')" for k in _FIELDS[2:])
    # Sorted here: ORDER BY seq would make SQLite scan every commit, not the index.
    rows = sorted(db.execute(f"SELECT seq, {fields} FROM {TABLE} WHERE {reach(table)} IS NOT NULL"))
    spans = [(row[0], dict(zip(_FIELDS, row[1:5], strict=True))) for row in rows]
    present = [rowid for (rowid,) in db.execute(f"SELECT rowid FROM {table} ORDER BY rowid")]

    def wanted(low: int, high: int, sealed: Any) -> bool:
        at = bisect_right(rowids, low)
        held = bisect_right(present, high) - bisect_right(present, low)
        return (at < len(rowids) and rowids[at] <= high) or held != sealed

    problems, read = _verify_table(db, table, spans, wanted=wanted)
    if child is not None:
        parents = [span for span in spans if span[0] in read]
        children = [
            (row[0], dict(zip(_FIELDS[2:], row[5:], strict=True)))
            for row in rows
            if row[5] is not None
        ]
        problems += _verify_child(db, child, parents, children)
    return problems, read


def _verify_table(
    db: Connection,
    table: str,
    spans: list[Span],
    *,
    wanted: Callable[[int, int, Any], bool] | None = None,
) -> tuple[list[str], set[int]]:
    """Recompute the spans of ``table`` that ``wanted(from, to, rows sealed)`` picks (all
    by default); the problems, and the seqs of the commits recomputed."""
    problems: list[str] = []
    reached = 0
    run: list[Span] = []
    read: set[int] = set()

    def recompute() -> None:
        for (seq, span), found in zip(run, _run_digests(db, table, run), strict=True):
            sealed = (span.get("rows"), span.get("sha256"))
            if found != sealed and table not in APPEND_ONLY:  # as seals.py writes the lines
                found = lines_digest(row_lines(db, table, span["from"], span["to"]))[:2]
            if found != sealed:
                count = found[0]
                problems.append(
                    f"{table}: rows {span['from'] + 1}–{span['to']} no longer match commit "
                    f"{seq} ({span.get('rows')} sealed, {count} found): changed, removed or "
                    "replaced"
                )
        read.update(seq for seq, _ in run)
        run.clear()

    for seq, span in spans:
        low, high = span.get("from"), span.get("to")
        if not (isinstance(low, int) and isinstance(high, int)):
            if run:
                recompute()
            problems.append(f"{table}: commit {seq} names no range of rows")
            continue
        if run and not (low == run[-1][1]["to"] and low <= high):
            recompute()  # a run holds only ranges that follow one another
        if low != reached:
            problems.append(
                f"{table}: commit {seq} seals rows after rowid {low}; "
                f"the commit before reached {reached}"
            )
        if wanted is None or wanted(low, high, span.get("rows")):
            run.append((seq, span))
        elif run:
            recompute()
        reached = high
    if run:
        recompute()
    return problems + _unsealed(db, table, reached), read


def unsealed(db: Connection, table: str) -> list[str]:
    """Rows of ``table`` that no commit seals (added outside Arena): two index seeks."""
    (sealed,) = db.execute(
        f"SELECT MAX({reach(table)}) FROM {TABLE} WHERE {reach(table)} IS NOT NULL"
    ).fetchone()
    return _unsealed(db, table, sealed or 0)


def _unsealed(db: Connection, table: str, reached: int) -> list[str]:
    (extra,) = db.execute(f"SELECT COUNT(*) FROM {table} WHERE rowid > ?", [reached]).fetchone()
    if not extra:
        return []
    return [
        f"{table}: {extra} row(s) after rowid {reached} are sealed by no commit "
        "(added outside Arena)"
    ]


def _run_digests(db: Connection, table: str, run: list[Span]) -> Iterator[tuple[int, str]]:
    """(count, sha256) of the rows each span of ``run`` seals, read in one pass, a batch
    of rows at a time: each span's rows found in a batch by a bisection, not row by row."""
    low, high = run[0][1]["from"], run[-1][1]["to"]
    lines = (
        row_lines(db, table, low, high)
        if table in APPEND_ONLY
        else _sql_lines(db, table, low, high)
    )
    batch: list[tuple[int, str]] = []
    rowids: list[int] = []
    at = 0
    for _, span in run:
        digest, count = hashlib.sha256(), 0
        while True:
            if at == len(batch):
                batch, at = list(islice(lines, _BATCH)), 0
                rowids = [row[0] for row in batch]
                if not batch:
                    break
            end = bisect_right(rowids, span["to"], at)
            digest.update("".join([row[1] for row in batch[at:end]]).encode("utf-8"))
            count, at = count + end - at, end
            if at < len(batch):  # the span ends inside this batch
                break
        yield count, digest.hexdigest()


def _verify_child(
    db: Connection,
    child: str,
    parent_spans: list[Span],
    spans: list[Span],
) -> list[str]:
    """``child``'s rows under each of ``parent_spans`` against what their commit sealed
    (``spans``: what every commit seals of it), and none left over."""
    problems, sealed = [], dict(spans)
    for seq, span in parent_spans:
        count, digest, _ = lines_digest(child_lines(db, child, span["from"], span["to"]))
        expected = sealed.get(seq, {"rows": 0})
        if count != expected.get("rows") or (count and digest != expected.get("sha256")):
            problems.append(f"{child}: the rows of commit {seq} no longer match it")
    (total,) = db.execute(f"SELECT COUNT(*) FROM {child}").fetchone()
    if total != sum(span.get("rows", 0) for _, span in spans):
        problems.append(f"{child}: holds rows that no commit seals (added outside Arena)")
    return problems


def _sql_lines(db: Connection, table: str, after: int, upto: int) -> Iterator[tuple[int, str]]:
    """``seals.row_lines`` of a table without a chain, written by SQLite: half the time
    of a ``json.dumps`` a row (0.36 s against 0.70 s for 100,000 gate results). Text,
    integers and NULLs come out as Python writes them (``json_quote`` against
    ``json.dumps``: every code point checked); floats and blobs are handed to Python.
    Should an SQLite write another text all the same, the span no longer matches and
    ``_verify_table`` recomputes it as ``seals`` writes it."""
    conn = db if isinstance(db, sqlite3.Connection) else db.conn
    conn.create_function(_VALUE, 1, value_json, deterministic=True)
    names = [d[0] for d in conn.execute(f"SELECT rowid, * FROM {table} LIMIT 0").description]
    # As a dict of them keeps each name once: where it first comes, with its last value.
    columns = {name: "rowid" if i == 0 else f'"{name}"' for i, name in enumerate(names)}
    first, *others = columns.items()
    members = []
    for name, column in others:
        key = "'" + (", " + json.dumps(name) + ": ").replace("'", "''") + "'"
        members.append(
            f"CASE typeof({column}) WHEN 'null' THEN '' WHEN 'integer' THEN {key} || {column} "
            f"WHEN 'text' THEN {key} || json_quote({column}) ELSE {key} || {_VALUE}({column}) END"
        )
    shape = "{" + json.dumps(first[0]) + ": %d" + "%s" * len(members) + "}\n"
    line = f"printf('{shape}', {', '.join([first[1], *members])})"
    return iter(
        conn.execute(
            f"SELECT rowid, {line} FROM {table} WHERE rowid > ? AND rowid <= ? ORDER BY rowid",
            [after, upto],
        )
    )
