import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Book, Entry
from pocketbook.budget import Budget


def _book():
    return Book(
        [
            Entry(date(2024, 4, 2), "Corner Grocer", Decimal("-120.00"), "groceries"),
            Entry(date(2024, 4, 20), "Corner Grocer", Decimal("-95.50"), "groceries"),
            Entry(date(2024, 4, 11), "Cinema Nova", Decimal("-60.00"), "fun"),
            Entry(date(2024, 5, 1), "Corner Grocer", Decimal("-80.00"), "groceries"),
        ]
    )


class BudgetTest(unittest.TestCase):
    def setUp(self):
        self.budget = Budget(2024, 4, {"groceries": "200", "fun": "100", "books": "0"})

    def test_spent_counts_only_the_month(self):
        self.assertEqual(self.budget.spent(_book(), "groceries"), Decimal("215.50"))

    def test_remaining(self):
        self.assertEqual(self.budget.remaining(_book(), "fun"), Decimal("40.00"))

    def test_used_percent(self):
        self.assertEqual(self.budget.used_percent(_book(), "fun"), Decimal("60.0"))
        self.assertEqual(self.budget.used_percent(_book(), "books"), Decimal("0"))

    def test_over_budget(self):
        self.assertEqual(self.budget.over_budget(_book()), ["groceries"])


if __name__ == "__main__":
    unittest.main()
