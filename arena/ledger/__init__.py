"""The ledger: the only package in Arena that speaks SQL."""

import sqlite3
import sys

# sqlite-utils imports pandas and numpy when they are installed, only to name the column
# types of tables it creates from Python values; Arena creates its tables in SQL, and the
# two imports took most of a command's start (0.4 s of `arena status`). Hidden while it
# loads, they are imported later only by the code that uses them.
_HIDDEN = [name for name in ("pandas", "numpy") if name not in sys.modules]
for _name in _HIDDEN:
    sys.modules[_name] = None  # type: ignore[assignment]
try:
    import sqlite_utils  # noqa: F401
finally:
    for _name in _HIDDEN:
        del sys.modules[_name]

from arena.ledger.connection import Ledger  # noqa: E402

# What SQLite raises when the ledger file cannot be read or written (a full disk, an I/O
# error): callers catch it by this name so that nothing outside the ledger imports sqlite3.
StorageError = sqlite3.Error

__all__ = ["Ledger", "StorageError"]
