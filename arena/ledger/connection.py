"""Opening a ledger: durable pragmas, migrations and the single-writer lock."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None  # type: ignore[assignment]

from arena.canonical import canonical_json
from arena.errors import (
    HeadFileNotUpdated,
    LedgerBehindHeadFile,
    LedgerError,
    LedgerLocked,
    LedgerTooNew,
    UnsealedRows,
)
from arena.ledger import heads, seals
from arena.ledger.schema import SCHEMA_VERSION, migrate
from arena.ledger.transaction import transaction

if TYPE_CHECKING:
    import filelock
    from sqlite_utils import Database

MEMORY = ":memory:"


def _apply_pragmas(conn: sqlite3.Connection, *, readonly: bool) -> None:
    # WAL with a full fsync at every commit: a vote acknowledged is a vote on disk
    # (research/reliability.md: NORMAL lost acknowledged votes under power loss).
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        # Transactions are Arena's own (``Ledger.atomic``): no implicit BEGIN that a
        # statement outside one would leave open, nested into, and never committed.
        conn.isolation_level = None
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    if sys.platform == "darwin":
        # Only F_FULLFSYNC makes macOS flush the drive's cache.
        conn.execute("PRAGMA fullfsync = ON")
        conn.execute("PRAGMA checkpoint_fullfsync = ON")


_LOCKED = (
    "is open for writing in another Arena process; close it there first (only one "
    "process may write a ledger at a time)"
)


def _lock_the_file_itself(file: Path) -> int | None:
    """An exclusive ``flock`` on the ledger file, held for as long as the ledger is open.

    The lock file beside the ledger goes by path; this one goes by the file, so a
    second writer that reaches it through a hard link, a symbolic link or another
    spelling of its path is refused too. ``flock`` locks are apart from the
    byte-range locks SQLite takes, so they do not disturb each other; the
    descriptor is closed only after SQLite's own (closing any descriptor of a
    file drops the process's byte-range locks on it). Raises BlockingIOError when
    another writer holds it. Windows has no ``flock``: there the lock goes by path only.
    """
    if fcntl is None:
        return None
    descriptor = os.open(file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


def _unlock(inode: int | None, lock: filelock.BaseFileLock) -> None:
    if inode is not None:
        os.close(inode)
    lock.release()


def _refuse_foreign_database(conn: sqlite3.Connection, file: Path) -> None:
    """Opening for writing migrates: never do that to another application's database."""
    if conn.execute("PRAGMA user_version").fetchone()[0]:
        return
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables - {"_sqlite_migrations"}:
        raise LedgerError(
            f"{file}: a database of another application (tables "
            f"{', '.join(sorted(tables)[:5])}); Arena writes only its own ledgers"
        )


def _database(conn: sqlite3.Connection) -> Database:
    from arena.ledger.database import Database

    # No sqlite-utils plugins: they may add SQL functions to the connection, and the
    # ledger's has Arena's alone (finding them scanned every installed package: 50 ms).
    return Database(conn, execute_plugins=False)


def _migrated(conn: sqlite3.Connection) -> Database | sqlite3.Connection:
    """``conn`` brought to the newest schema. sqlite-utils, which runs the migrations, is
    loaded only when one is due: each migration sets ``user_version`` in its own
    transaction (``steps``), so a ledger at ``SCHEMA_VERSION`` has them all, and a rating
    session's writes (plain inserts) never load it (about 0.1 s of the window's start)."""
    if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return conn
    db = _database(conn)
    migrate(db)
    return db


class Ledger:
    """One open ledger file. Writers hold an exclusive lock for their lifetime."""

    def __init__(
        self,
        path: Path | str,
        db: Database | sqlite3.Connection,
        *,
        readonly: bool,
        lock: filelock.BaseFileLock | None,
    ) -> None:
        self.path = str(path)
        # A reader starts with the bare connection (``conn``): what only reads a few
        # columns (``arena status``) never loads sqlite-utils, made at the first ``db``.
        self._db = None if isinstance(db, sqlite3.Connection) else db
        self.conn: sqlite3.Connection = db if isinstance(db, sqlite3.Connection) else db.conn
        self.readonly = readonly
        self._lock = lock
        self._depth = 0
        # Chain heads appended in the open transaction (chain.append); after the
        # commit they go into the head file (see heads.py).
        self.pending_heads: list[tuple[str, str, int, str]] = []
        self._heads: heads.Heads | None = None
        # A head-file write held back (``heads_held``): the commits it covers are made
        # and ``_heads`` holds them; ``write_heads`` (or the next write, or close) writes it.
        self._holding = 0
        self._heads_due = False
        # ``_written_mark`` after this connection's last commit (None: none yet, or failed).
        self._quiet: tuple[int, int] | None = None
        # How far each table's rows are sealed (seals.py), read at the first write; and
        # why the ledger is behind its head file (empty: it is not), read then too.
        self._sealed: dict[str, int] | None = None
        self._behind: list[str] | None = None
        # The descriptor holding the lock on the ledger file's inode (POSIX writers).
        self._inode_lock: int | None = None

    @property
    def db(self) -> Database:
        """The connection as sqlite-utils' Database (its table API, ``atomic``)."""
        if self._db is None:
            self._db = _database(self.conn)
        return self._db

    @classmethod
    def open(cls, path: Path | str, *, readonly: bool = False) -> Ledger:
        """Open (creating and migrating when writing) the ledger at ``path``."""
        if str(path) == MEMORY:
            db = _database(sqlite3.connect(MEMORY))
            _apply_pragmas(db.conn, readonly=False)
            migrate(db)
            return cls(MEMORY, db, readonly=False, lock=None)
        file = Path(path).expanduser()
        if readonly:
            return cls._open_readonly(file)
        import filelock  # only writers lock

        lock = filelock.FileLock(str(file) + ".lock", timeout=0)
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire()
            inode = _lock_the_file_itself(file)
        except filelock.Timeout:
            raise LedgerLocked(f"{file} {_LOCKED}") from None
        except BlockingIOError:
            lock.release()
            raise LedgerLocked(f"{file} (or a link to the same file) {_LOCKED}") from None
        except OSError as exc:
            if lock.is_locked:
                lock.release()
            raise LedgerError(
                f"{file}: cannot write there ({exc.strerror or exc}; a read-only disk or "
                "folder?); commands that only read, such as `arena check`, still work"
            ) from None
        try:
            conn = sqlite3.connect(str(file))
        except sqlite3.DatabaseError as exc:
            _unlock(inode, lock)
            raise LedgerError(f"{file}: cannot be opened ({exc})") from None
        try:
            _refuse_foreign_database(conn, file)  # before WAL mode rewrites its header
            _apply_pragmas(conn, readonly=False)
            migrated = _migrated(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            _unlock(inode, lock)
            raise LedgerError(f"{file}: not a usable Arena ledger ({exc})") from None
        except BaseException:
            conn.close()
            _unlock(inode, lock)
            raise
        ledger = cls(file, migrated, readonly=False, lock=lock)
        ledger._inode_lock = inode
        ledger._start_head_file()
        return ledger

    def _start_head_file(self) -> None:
        """Write the head file of a ledger that has sealed no write yet, so that from its
        first write on a missing head file means a deleted one (see ``heads.behind``)."""
        if heads.path_for(self.path).exists() or heads.sealed_writes(self.conn):
            return
        try:
            heads.write(self.path, heads.current(self.conn))
        except OSError:
            self.close()
            raise

    @classmethod
    def _open_readonly(cls, file: Path) -> Ledger:
        if not file.exists():
            raise LedgerError(f"{file}: no ledger there")
        conn = sqlite3.connect(file.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            _apply_pragmas(conn, readonly=True)
            found = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.OperationalError:
            # On read-only media SQLite cannot create the WAL index (-shm). A ledger
            # closed cleanly has no WAL left, so reading the file alone is exact.
            conn.close()
            conn, found = cls._open_immutable(file)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise LedgerError(f"{file}: not a usable Arena ledger ({exc})") from None
        if found > SCHEMA_VERSION:
            conn.close()
            raise LedgerTooNew(
                f"{file} has schema version {found}; this Arena knows up to {SCHEMA_VERSION}"
            )
        if found < SCHEMA_VERSION:
            conn.close()
            raise LedgerError(
                f"{file} has schema version {found} and must be upgraded: open it once for writing"
            )
        return cls(file, conn, readonly=True, lock=None)

    @staticmethod
    def _open_immutable(file: Path) -> tuple[sqlite3.Connection, int]:
        wal = Path(str(file) + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise LedgerError(
                f"{file}: cannot be read where it is (read-only media?) and its -wal file "
                "still holds commits: copy the ledger with its -wal file to a writable "
                "folder and open the copy"
            )
        conn = sqlite3.connect(file.resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
        try:
            _apply_pragmas(conn, readonly=True)
            return conn, conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise LedgerError(f"{file}: not a usable Arena ledger ({exc})") from None

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction: everything inside commits together, sealed, or not at all."""
        if self._depth == 0 and self._heads_due:
            # The head file follows each commit before the next one starts: never more
            # than one commit behind. Should it fail now, this commit's write says so.
            with suppress(HeadFileNotUpdated):
                self.write_heads()
        outermost = self._depth == 0 and not self.conn.in_transaction
        self._depth += 1
        sealed = None
        try:
            with transaction(self.conn):
                if self._depth == 1 and not self.readonly:
                    self._refuse_unsealed()
                yield
                if self._depth == 1 and not self.readonly:
                    sealed = self._seal()
        except BaseException:
            if self._depth == 1:
                # Re-read at the next write: the commit that moved them may not have happened.
                self.pending_heads, self._sealed, self._quiet = [], None, None
            raise
        finally:
            self._depth -= 1
        if outermost and not self.readonly:
            self._quiet = self._written_mark()
        if self._depth == 0 and (self.pending_heads or sealed is not None):
            self._record_heads(sealed)

    def _written_mark(self) -> tuple[int, int]:
        """What changes when anyone adds a row: another connection's commit moves
        ``data_version``, a statement of this one moves ``total_changes``."""
        version, changes = self.conn.execute(
            "SELECT data_version, total_changes() FROM pragma_data_version"
        ).fetchone()
        return int(version), int(changes)

    def _refuse_unsealed(self) -> None:
        if self._sealed is not None and self._quiet == self._written_mark():
            # Nothing was written since this connection's own last commit, which sealed
            # all it added: no row can be past the seals (a key saves a read of every table).
            return
        if self._sealed is None:
            self._sealed = seals.marks(self.conn)
        found = seals.unsealed(self.conn, self._sealed)
        if found:
            raise UnsealedRows(
                f"{self.path}: nothing was written: rows were added outside Arena since its "
                f"last write ({'; '.join(found)}). Writing on would seal them as Arena's own; "
                "`arena check` lists them."
            )

    def _seal(self) -> seals.Head | None:
        if self._sealed is None:
            self._sealed = seals.marks(self.conn)
        if self._behind is None:
            # Read once before the first write (the writer's lock keeps the file as read).
            self._behind = self.behind()
        sealed = seals.seal(self.conn, self._sealed)
        if sealed is not None and self._behind:
            # A head file ahead of the ledger: rows it vouched for are gone, and writing
            # on would re-anchor it and hide the loss.
            raise LedgerBehindHeadFile(
                f"{self.path}: nothing was written: {self._behind[0]}. Rows this ledger had "
                "recorded are gone (a restored copy, lost writes, or a deleted head file). "
                "`arena check` shows what; `arena check --accept-loss --reason TEXT` "
                "records the loss and lets writing go on."
            )
        return sealed

    def _record_heads(self, sealed: seals.Head | None) -> None:
        pending, self.pending_heads = self.pending_heads, []
        if self.path == MEMORY:
            return
        if self._heads is None:
            self._heads = heads.current(self.conn)
        for table, family, seq, digest in pending:
            self._heads.setdefault(table, {})[family] = {"seq": seq, "hash": digest}
        if sealed is not None:
            self._heads[heads.COMMITS] = {heads.LEDGER: {"seq": sealed.seq, "hash": sealed.hash}}
        self._heads_due = True
        if not self._holding:
            self.write_heads()

    @contextmanager
    def heads_held(self) -> Iterator[None]:
        """Inside, a commit's head-file write waits for ``write_heads``: the window writes
        it once the next pair is painted, so a key costs one durable commit before the
        pair shows, and the head file (synced, as ever) follows while the rater reads.
        The head file may lag the ledger, never lead it (heads.py): a crash before the
        write leaves it one commit behind, as a crash between a commit and its head-file
        write always could. The next write, ``beside`` and ``close`` write it first."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1

    def write_heads(self) -> None:
        """Write the head file a held commit left due (nothing when none is)."""
        if not self._heads_due or self.path == MEMORY:
            self._heads_due = False
            return
        if self._heads is None:  # ``beside`` dropped them: the ledger's committed state
            if self.conn.in_transaction:
                return  # rows not committed must not reach the head file: later
            self._heads = heads.current(self.conn)
        try:
            heads.write(self.path, self._heads)
            self._heads_due = False
        except OSError as exc:
            # The transaction is committed: say so, so nobody records it a second time.
            raise HeadFileNotUpdated(
                f"recorded; but the head file {heads.path_for(self.path)} could not be "
                f"updated ({exc.strerror or exc}); `arena check` will say so until a later "
                "write updates it"
            ) from exc

    @contextmanager
    def beside(self) -> Iterator[Ledger]:
        """This writer's ledger on a connection of the calling thread (a sqlite3 connection
        serves the thread that made it), under the lock this one holds: the window runs
        its long writes off its own thread so. WAL lets both connections read at once;
        their writes take turns (``busy_timeout``). On leaving, the connection is closed
        and this one reads its seal marks and heads again at its next write, since the
        other moved them."""
        if self.path == MEMORY or self.readonly:
            raise LedgerError(f"{self.path}: only a ledger file open for writing has two writers")
        if self._heads is not None:  # made here: nothing to read on the caller's thread
            with suppress(HeadFileNotUpdated):  # the other writer's head file follows ours
                self.write_heads()
        conn = sqlite3.connect(self.path)
        try:
            _apply_pragmas(conn, readonly=False)
            other = Ledger(self.path, conn, readonly=False, lock=None)
            yield other
        finally:
            conn.close()
            self._sealed, self._heads = None, None

    def head_digest(self) -> seals.Head | None:
        """The newest commit of the seal chain: the state to quote from outside."""
        return seals.head(self.conn)

    def behind(self) -> list[str]:
        """Why the ledger is behind its head file (empty when it is not)."""
        return [] if self.path == MEMORY else heads.behind(self.conn, self.path)

    def accept_loss(self, reason: str, lost: list[str]) -> seals.Head:
        """Acknowledge rows the head file vouched for and the ledger no longer holds: a
        commit records ``reason`` and what was lost, and the head file starts again from
        the ledger as it is. Only for a loss: the caller checks nothing else is wrong."""
        note = canonical_json({"reason": reason, "lost": lost})
        with transaction(self.conn):  # not self.atomic(): that refuses while the loss stands
            self._sealed = seals.marks(self.conn)
            sealed = seals.seal(self.conn, self._sealed, kind="accepted_loss", note=note)
        assert sealed is not None  # an accepted_loss commit is written even with no rows
        self._behind, self._heads, self.pending_heads = [], None, []
        self._heads_due = False
        self._record_heads(sealed)
        return sealed

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[dict[str, Any]]:
        """The rows of a query as dicts (as sqlite-utils' ``rows_where`` gives them), read
        on the bare connection."""
        cursor = self.conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def insert(self, table: str, row: dict[str, Any]) -> int:
        """Add ``row`` (column -> value) to ``table``; its rowid. Values go as they are:
        the ledger stores no JSON that its callers have not written out themselves."""
        columns = ", ".join(row)
        marks = ", ".join("?" * len(row))
        cursor = self.conn.execute(
            f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values())
        )
        return int(cursor.lastrowid or 0)

    def pragma(self, name: str) -> object:
        return self.conn.execute(f"PRAGMA {name}").fetchone()[0]

    def close(self) -> None:
        if self._heads_due and not self.conn.in_transaction:
            # Not written now, the head file stays one commit behind: allowed (heads.py).
            with suppress(HeadFileNotUpdated):
                self.write_heads()
        self.conn.close()
        if self._lock is not None:
            _unlock(self._inode_lock, self._lock)
            self._lock, self._inode_lock = None, None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
