"""The book: every entry in date order, and what they add up to."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class Entry:
    """One movement of money: positive in (income, refunds), negative out (spending)."""

    day: date
    payee: str
    amount: Decimal
    category: str = "uncategorised"


class Book:
    """Entries kept in date order; entries of the same day keep the order they came in."""

    def __init__(self, entries=()):
        self._entries = []
        for entry in entries:
            self.add(entry)

    def add(self, entry):
        if not isinstance(entry.amount, Decimal):
            raise TypeError("amounts are Decimals; parse_amount() reads them from text")
        self._entries.append(entry)
        self._entries.sort(key=lambda e: e.day)

    def __len__(self):
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries)

    def between(self, start, end):
        """The entries from ``start`` to ``end``, both days included."""
        return [e for e in self._entries if start <= e.day <= end]

    def balance(self, on=None):
        """What the book adds up to at the end of the day ``on`` (of every entry when None)."""
        if on is None:
            return sum((e.amount for e in self._entries), Decimal("0"))
        return sum((e.amount for e in self._entries if e.day < on), Decimal("0"))

    def payees(self):
        """Every payee, in the order they first appear."""
        return list(dict.fromkeys(e.payee for e in self._entries))
