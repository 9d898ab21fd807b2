"""The ledger: the only package in Arena that speaks SQL."""

from arena.ledger.connection import Ledger

__all__ = ["Ledger"]
