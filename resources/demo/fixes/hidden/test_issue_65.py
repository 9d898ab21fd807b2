"""Hidden test for issue #65: refunds lower what a budget counts as spent."""

import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Book, Entry
from pocketbook.budget import Budget


class RefundsTest(unittest.TestCase):
    def setUp(self):
        self.book = Book(
            [
                Entry(date(2024, 4, 2), "Corner Grocer", Decimal("-50.00"), "groceries"),
                Entry(date(2024, 4, 9), "Corner Grocer", Decimal("-30.00"), "groceries"),
                Entry(date(2024, 4, 10), "Corner Grocer", Decimal("20.00"), "groceries"),
                Entry(date(2024, 4, 12), "Shoe Barn", Decimal("45.00"), "clothes"),
            ]
        )
        self.budget = Budget(2024, 4, {"groceries": "70", "clothes": "100"})

    def test_a_refund_is_taken_off(self):
        self.assertEqual(self.budget.spent(self.book, "groceries"), Decimal("60.00"))

    def test_no_longer_over_budget(self):
        self.assertEqual(self.budget.over_budget(self.book), [])
        self.assertEqual(self.budget.remaining(self.book, "groceries"), Decimal("10.00"))

    def test_only_refunds_is_nothing_spent(self):
        self.assertEqual(self.budget.spent(self.book, "clothes"), Decimal("0"))
        self.assertEqual(self.budget.used_percent(self.book, "clothes"), Decimal("0"))


if __name__ == "__main__":
    unittest.main()
