"""Recurring entries: rent, subscriptions, a salary."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from .book import Entry
from .dates import add_months


@dataclass(frozen=True)
class Recurring:
    """An entry due every ``every_months`` months from ``start``, on ``start``'s day."""

    payee: str
    amount: Decimal
    category: str
    start: date
    every_months: int = 1

    def occurrences(self, until):
        """The entries due from ``start`` to ``until``, both included."""
        if self.every_months < 1:
            raise ValueError("every_months must be at least 1")
        found = []
        count = 0
        while True:
            # Counted from the start each time, so a day lost to a short month comes back.
            day = add_months(self.start, count * self.every_months)
            if day > until:
                return found
            found.append(Entry(day, self.payee, self.amount, self.category))
            count += 1
