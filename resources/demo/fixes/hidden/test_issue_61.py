"""Hidden test for issue #61: balance(on=DAY) counts the entries of DAY itself."""

import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Book, Entry


class BalanceOnADayTest(unittest.TestCase):
    def setUp(self):
        self.book = Book(
            [
                Entry(date(2024, 3, 1), "Acme Payroll", Decimal("2100.00"), "salary"),
                Entry(date(2024, 3, 5), "Corner Grocer", Decimal("-42.10"), "groceries"),
                Entry(date(2024, 3, 5), "Bakery Lune", Decimal("-6.40"), "groceries"),
                Entry(date(2024, 3, 9), "City Transit", Decimal("-30.00"), "transport"),
            ]
        )

    def test_the_days_own_entries_count(self):
        self.assertEqual(self.book.balance(on=date(2024, 3, 5)), Decimal("2051.50"))

    def test_the_first_day(self):
        self.assertEqual(self.book.balance(on=date(2024, 3, 1)), Decimal("2100.00"))

    def test_a_day_without_entries(self):
        self.assertEqual(self.book.balance(on=date(2024, 3, 7)), Decimal("2051.50"))

    def test_the_last_day_is_everything(self):
        self.assertEqual(self.book.balance(on=date(2024, 3, 9)), self.book.balance())


if __name__ == "__main__":
    unittest.main()
