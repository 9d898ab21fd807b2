"""Simulated power loss: a file layer that keeps unsynced writes pending (APSW VFS).

The approach of SQLite's own crash tests (test6.c): every write the database
makes is logged with the file it went to; ``xSync`` makes a file's earlier
writes durable. A crash at any point of the log leaves on disk the synced
state of each file plus some of the writes not yet synced: none, a random
subset, a prefix (in issue order), all of them, or a prefix and a torn
(sector-aligned, partial) next write.

The app talks to SQLite through the stdlib ``sqlite3`` module, whose VFS
cannot be replaced from Python. So the workload runs the app's *own* Python
code — ``Ledger``, ``RatingSession.current()/vote()/skip()/undo()``,
``voting``, ``chain``, sqlite-utils — on an APSW connection wrapped in
``Sqlite3Shim`` (the part of the ``sqlite3.Connection`` API sqlite-utils
uses), with the app's pragmas applied by the app's own ``_apply_pragmas``.
Each crash image is then opened by the app itself (``Ledger.open``, stdlib
sqlite3) and checked with ``arena.ledger.integrity.check``.
docs/reliability.md lists what differs from the real app.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw

SECTOR = 512

# apsw exception -> the sqlite3 exception the app and sqlite-utils expect.
_ERRORS = [
    (apsw.ConstraintError, sqlite3.IntegrityError),
    (apsw.FullError, sqlite3.OperationalError),
    (apsw.BusyError, sqlite3.OperationalError),
    (apsw.SQLError, sqlite3.OperationalError),
    (apsw.Error, sqlite3.DatabaseError),
]


def _translated(exc: apsw.Error) -> Exception:
    for theirs, ours in _ERRORS:
        if isinstance(exc, theirs):
            return ours(str(exc))
    return sqlite3.DatabaseError(str(exc))


class _Cursor:
    def __init__(
        self, conn: apsw.Connection, cursor: apsw.Cursor, rows: list | None, description: tuple
    ) -> None:
        self.description = (
            tuple((d[0], None, None, None, None, None, None) for d in description) or None
        )
        self._rows = iter(rows if rows is not None else cursor)
        self.lastrowid = conn.last_insert_rowid()
        self.rowcount = conn.changes()

    def __iter__(self) -> Iterator[tuple]:
        return self._rows

    def fetchone(self) -> tuple | None:
        return next(self._rows, None)

    def fetchall(self) -> list[tuple]:
        return list(self._rows)

    def close(self) -> None:
        pass


class Sqlite3Shim:
    """An APSW connection dressed as the ``sqlite3.Connection`` sqlite-utils drives.

    APSW runs in autocommit mode; the stdlib's legacy implicit BEGIN before a
    DML statement outside a transaction is undone by sqlite-utils (it commits
    such a statement at once), so both drivers see the same transactions.
    """

    isolation_level: str | None = None

    def __init__(self, conn: apsw.Connection) -> None:
        self.conn = conn

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def execute(self, sql: str, parameters: Any = ()) -> _Cursor:
        seen: list[tuple] = []

        def trace(cursor: apsw.Cursor, _sql: str, _bindings: Any) -> bool:
            # The columns, read before the statement runs (a finished one has none).
            seen.append((cursor.get_description(), cursor.is_readonly))
            return True

        try:
            cursor = self.conn.cursor()
            cursor.exec_trace = trace
            cursor.execute(sql, parameters)
            # Write statements run to completion now, as sqlite3 does.
            description, readonly = seen[-1] if seen else ((), False)
            rows = None if readonly else list(cursor)
            return _Cursor(self.conn, cursor, rows, description)
        except apsw.Error as exc:
            raise _translated(exc) from exc

    def executemany(self, sql: str, rows: Any) -> _Cursor:
        try:
            cursor = self.conn.cursor().executemany(sql, list(rows))
            return _Cursor(self.conn, cursor, [], ())
        except apsw.Error as exc:
            raise _translated(exc) from exc

    def cursor(self) -> Sqlite3Shim:
        return self

    def create_function(self, name: str, arity: int, fn: Any, **kwargs: Any) -> None:
        self.conn.create_scalar_function(
            name, fn, arity, deterministic=kwargs.get("deterministic", False)
        )

    def commit(self) -> None:
        if self.conn.in_transaction:
            self.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.execute("ROLLBACK")

    def close(self) -> None:
        self.conn.close()


# ---------------------------------------------------------------------------------------
# The file layer


@dataclass
class Log:
    """Every write, truncate, sync and acknowledgement, in the order they happened."""

    events: list[tuple] = field(default_factory=list)
    base: dict[str, bytes] = field(default_factory=dict)  # durable content at the start

    def ack(self, kind: str, ident: str) -> None:
        self.events.append(("ack", kind, ident))


def _role(filename: str, flags: int | None = None) -> str | None:
    """What a file is to the crash images: the database, its WAL or its rollback journal;
    None for the rest (shared memory, rebuilt from the WAL after a crash; a statement
    journal or a temporary table, gone after a crash, which would otherwise be taken for
    the database: a trigger's statement journal wrote over page 1 of the images)."""
    if flags is not None and not flags & (
        apsw.SQLITE_OPEN_MAIN_DB | apsw.SQLITE_OPEN_WAL | apsw.SQLITE_OPEN_MAIN_JOURNAL
    ):
        return None
    if filename.endswith("-wal"):
        return "wal"
    if filename.endswith("-journal"):
        return "journal"
    if filename.endswith("-shm"):
        return None
    return "db"


class _File(apsw.VFSFile):
    def __init__(self, log: Log, name: Any, flags: list[int]) -> None:
        super().__init__("", name, flags)
        filename = name.filename() if hasattr(name, "filename") else str(name)
        self.role = _role(filename, flags[0])
        self.log = log

    def xWrite(self, data: bytes, offset: int) -> None:
        if self.role:
            self.log.events.append(("w", self.role, offset, bytes(data)))
        super().xWrite(data, offset)

    def xTruncate(self, size: int) -> None:
        if self.role:
            self.log.events.append(("t", self.role, size))
        super().xTruncate(size)

    def xSync(self, flags: int) -> None:
        if self.role:
            self.log.events.append(("s", self.role))
        super().xSync(flags)


class CrashVFS(apsw.VFS):
    """The default VFS, with every write, truncate and sync logged."""

    def __init__(self, name: str, log: Log) -> None:
        self.log = log
        super().__init__(name, "")

    def xOpen(self, name: Any, flags: list[int]) -> _File:
        return _File(self.log, name, flags)

    def xDelete(self, filename: str, syncdir: bool) -> None:
        role = _role(filename)
        if role:
            self.log.events.append(("d", role))
        super().xDelete(filename, syncdir)


# ---------------------------------------------------------------------------------------
# Crash images

MODES = ("none", "subset", "prefix", "all", "torn")


def _apply(content: bytearray | None, op: tuple, *, part: int | None = None) -> bytearray:
    content = bytearray() if content is None else content
    if op[0] == "w":
        _, _, offset, data = op
        if part is not None:
            data = data[:part]
        if len(content) < offset:
            content.extend(b"\0" * (offset - len(content)))
        content[offset : offset + len(data)] = data
    elif op[0] == "t":
        size = op[2]
        del content[size:]
        content.extend(b"\0" * (size - len(content)))
    return content


@dataclass
class CrashPoint:
    index: int  # events [0, index) happened before the power went
    acked: dict[str, list[str]]  # kind -> ids acknowledged before the crash
    images: dict[str, dict[str, bytes | None]]  # mode -> role -> file content (None: absent)


def crash_points(log: Log, indices: list[int], rng: random.Random) -> Iterator[CrashPoint]:
    """Replay ``log``; at each of ``indices`` yield the disk images a crash could leave."""
    synced: dict[str, bytearray | None] = {r: bytearray(b) for r, b in log.base.items()}
    pending: list[tuple] = []
    acked: dict[str, list[str]] = {}
    # Every version of the head file durably written so far, the template's first.
    head_files: list[bytes] = [log.base["heads"]] if "heads" in log.base else []
    wanted = sorted(indices)  # a point drawn twice gets two sets of random images
    at = 0
    for i, event in enumerate(log.events + [("end",)]):
        while at < len(wanted) and wanted[at] == i:
            images = _images(synced, pending, rng)
            _add_head_file(images, head_files, rng)
            yield CrashPoint(i, {k: list(v) for k, v in acked.items()}, images)
            at += 1
        kind = event[0]
        if kind == "heads":
            head_files.append(event[1])
        elif kind == "ack":
            acked.setdefault(event[1], []).append(event[2])
        elif kind in ("w", "t"):
            pending.append(event)
        elif kind == "s":
            role = event[1]
            for op in [p for p in pending if p[1] == role]:
                synced[role] = _apply(synced.get(role), op)
            pending = [p for p in pending if p[1] != role]
        elif kind == "d":
            # A deleted file is gone (SQLite syncs the directory where it matters).
            synced[event[1]] = None
            pending = [p for p in pending if p[1] != event[1]]


def _add_head_file(
    images: dict[str, dict[str, bytes | None]], versions: list[bytes], rng: random.Random
) -> None:
    """The head file (arena/ledger/heads.py) is written to a temporary name, synced,
    renamed over the old one and its folder synced: after a power cut the newest version
    written so far is there (the hardest case: it must never lead the database)."""
    for files in images.values():
        files["heads"] = versions[-1] if versions else None


def _images(
    synced: dict[str, bytearray | None], pending: list[tuple], rng: random.Random
) -> dict[str, dict[str, bytes | None]]:
    def build(ops: list[tuple], torn: tuple | None = None) -> dict[str, bytes | None]:
        files = {r: (bytearray(c) if c is not None else None) for r, c in synced.items()}
        for op in ops:
            files[op[1]] = _apply(files.get(op[1]), op)
        if torn is not None:
            op, part = torn
            files[op[1]] = _apply(files.get(op[1]), op, part=part)
        return {r: (bytes(c) if c is not None else None) for r, c in files.items()}

    cut = rng.randint(0, len(pending))
    torn = None
    writes_after = [
        k for k in range(len(pending)) if pending[k][0] == "w" and len(pending[k][3]) > SECTOR
    ]
    if writes_after:
        k = rng.choice(writes_after)
        sectors = len(pending[k][3]) // SECTOR
        torn = (pending[k], SECTOR * rng.randint(1, max(1, sectors - 1)))
        torn_prefix = pending[:k]
    else:
        torn_prefix = pending[:cut]
    return {
        "none": build([]),
        "subset": build([op for op in pending if rng.random() < 0.5]),
        "prefix": build(pending[:cut]),
        "all": build(pending),
        "torn": build(torn_prefix, torn),
    }


def write_image(files: dict[str, bytes | None], path: Path) -> None:
    """Put a crash image on disk as ``path`` (+ ``-wal``), as the rebooted machine finds it."""
    from arena.ledger import heads

    suffix = {"db": "", "wal": "-wal", "journal": "-journal", "heads": heads.SUFFIX}
    for role, content in files.items():
        target = Path(str(path) + suffix[role])
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.write_bytes(content)


# ---------------------------------------------------------------------------------------
# The workload: the app's vote path on an APSW connection through the logging VFS

_vfs_count = 0


def run_workload(
    template: Path, live: Path, *, family: str, synchronous: str, votes: int, seed: int
) -> Log:
    """Vote ``votes`` times through ``RatingSession`` on a copy of ``template``; log it all."""
    from sqlite_utils import Database

    from arena.ledger import heads
    from arena.ledger.connection import Ledger, _apply_pragmas
    from arena.ledger.schema import migrate
    from arena.rating.session import RatingSession
    from arena.records import VOTE_CHOICES

    global _vfs_count
    _vfs_count += 1
    base = template.read_bytes()
    live.write_bytes(base)
    template_heads = Path(str(template) + ".heads.json").read_bytes()
    Path(str(live) + ".heads.json").write_bytes(template_heads)
    log = Log(base={"db": base, "heads": template_heads})
    vfs = CrashVFS(f"arena-crash-{_vfs_count}", log)
    write_heads = heads.write

    def logged_write(ledger_path: str, recorded: heads.Heads) -> None:
        write_heads(ledger_path, recorded)
        log.events.append(("heads", heads.path_for(ledger_path).read_bytes()))

    heads.write = logged_write
    try:
        shim = Sqlite3Shim(apsw.Connection(str(live), vfs=f"arena-crash-{_vfs_count}"))
        db = Database(shim)  # type: ignore[arg-type]
        # What Ledger.open does, on this connection: the app's pragmas and migrations.
        _apply_pragmas(shim, readonly=False)  # type: ignore[arg-type]
        if synchronous != "FULL":
            shim.execute(f"PRAGMA synchronous = {synchronous}")
        migrate(db)
        ledger = Ledger(str(live), db, readonly=False, lock=None)
        rng = random.Random(seed)
        session = RatingSession(ledger, family, seed=seed)
        done = 0
        while done < votes:
            roll = rng.random()
            if roll < 0.08:
                undone = session.undo()
                if undone is not None:
                    log.ack("undo", undone.vote_id)
                continue
            if session.current() is None:
                break
            vote = session.skip() if roll < 0.14 else session.vote(rng.choice(VOTE_CHOICES))
            log.ack("vote", vote.vote_id)
            done += 1
        # Closing the last connection checkpoints and deletes the WAL: crash there too.
        ledger.db.close()
    finally:
        heads.write = write_heads
        vfs.unregister()
    return log
