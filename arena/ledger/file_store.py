"""Files kept beside a ledger by their sha256 (a task's hidden tests and repository).

The ledger stores only the hashes; the bytes live in ``<ledger>.files/sha256/ab/<hash>``.
A file is written once (to a temporary name, synced, then renamed) and checked against
its hash each time it is read, so a file edited or swapped on disk is refused, never used.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from arena.errors import LedgerError
from arena.ledger.connection import MEMORY, Ledger

SUFFIX = ".files"


class FileStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def beside(cls, ledger: Ledger) -> FileStore:
        """The store of ``ledger`` (a temporary folder for a ledger in memory)."""
        if ledger.path == MEMORY:
            return cls(Path(tempfile.mkdtemp(prefix="arena-files-")))
        return cls(Path(ledger.path + SUFFIX))

    def path(self, digest: str) -> Path:
        return self.root / "sha256" / digest[:2] / digest

    def put(self, data: bytes) -> str:
        """Keep ``data``; its sha256, by which it is read back."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if target.exists() and self._digest(target) == digest:
            return digest
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return digest

    def get(self, digest: str) -> bytes:
        """The bytes stored under ``digest``; refused when missing or changed on disk."""
        target = self.path(digest)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise LedgerError(
                f"{target}: a file the ledger refers to is missing from its file store"
            ) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise LedgerError(f"{target}: this file was changed on disk (its sha256 differs)")
        return data

    @staticmethod
    def _digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()
