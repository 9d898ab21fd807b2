"""Hidden test for issue #64: category totals match names whatever their case and the
spaces around them, under the first spelling met."""

import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Entry
from pocketbook.report import category_totals

ENTRIES = [
    Entry(date(2024, 6, 1), "Corner Grocer", Decimal("-40.00"), "Groceries"),
    Entry(date(2024, 6, 2), "Harbour Lets", Decimal("-950.00"), "rent"),
    Entry(date(2024, 6, 3), "Corner Grocer", Decimal("-12.50"), "groceries "),
    Entry(date(2024, 6, 9), "Bakery Lune", Decimal("-7.25"), "GROCERIES"),
    Entry(date(2024, 6, 15), "Acme Payroll", Decimal("2100.00"), " Salary"),
]


class CategoryTotalsTest(unittest.TestCase):
    def test_spellings_of_one_category_are_merged(self):
        self.assertEqual(
            category_totals(ENTRIES),
            {
                "Groceries": Decimal("-59.75"),
                "rent": Decimal("-950.00"),
                "Salary": Decimal("2100.00"),
            },
        )

    def test_first_appearance_orders_them(self):
        self.assertEqual(list(category_totals(ENTRIES)), ["Groceries", "rent", "Salary"])

    def test_nothing(self):
        self.assertEqual(category_totals([]), {})


if __name__ == "__main__":
    unittest.main()
