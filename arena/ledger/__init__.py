"""The ledger: the only package in Arena that speaks SQL."""

import sqlite3

from arena.ledger.connection import Ledger

# What SQLite raises when the ledger file cannot be read or written (a full disk, an I/O
# error): callers catch it by this name so that nothing outside the ledger imports sqlite3.
StorageError = sqlite3.Error

__all__ = ["Ledger", "StorageError"]
