"""Monthly spending limits per category."""

from decimal import Decimal

from .dates import month_range


class Budget:
    """Limits per category for one month, checked against a book."""

    def __init__(self, year, month, limits):
        self.year = year
        self.month = month
        self.limits = {category: Decimal(limit) for category, limit in limits.items()}

    def spent(self, book, category):
        """What went out on ``category`` in the budget's month, as a positive amount."""
        first, last = month_range(self.year, self.month)
        return sum(
            (abs(e.amount) for e in book.between(first, last) if e.category == category),
            Decimal("0"),
        )

    def remaining(self, book, category):
        """The limit less what was spent (negative once over the limit)."""
        return self.limits[category] - self.spent(book, category)

    def used_percent(self, book, category):
        """The share of the limit spent, in percent, to one decimal."""
        limit = self.limits[category]
        spent = self.spent(book, category)
        if limit == 0:
            return Decimal("0") if spent == 0 else Decimal("100")
        return round(spent / limit * 100, 1)

    def over_budget(self, book):
        """The categories spent past their limit, the furthest over first."""
        over = sorted((self.remaining(book, category), category) for category in self.limits)
        return [category for remaining, category in over if remaining < 0]
