"""Hidden test for issue #63: add_months keeps to the last day of a shorter month."""

import unittest
from datetime import date
from decimal import Decimal

from pocketbook.dates import add_months
from pocketbook.recurring import Recurring


class AddMonthsTest(unittest.TestCase):
    def test_the_31st_into_february(self):
        self.assertEqual(add_months(date(2024, 1, 31), 1), date(2024, 2, 29))
        self.assertEqual(add_months(date(2023, 1, 31), 1), date(2023, 2, 28))

    def test_into_a_30_day_month(self):
        self.assertEqual(add_months(date(2024, 3, 31), 1), date(2024, 4, 30))
        self.assertEqual(add_months(date(2024, 5, 31), -1), date(2024, 4, 30))

    def test_across_the_year(self):
        self.assertEqual(add_months(date(2023, 12, 31), 2), date(2024, 2, 29))
        self.assertEqual(add_months(date(2024, 2, 29), 12), date(2025, 2, 28))

    def test_days_that_fit_stay(self):
        self.assertEqual(add_months(date(2024, 1, 30), 0), date(2024, 1, 30))
        self.assertEqual(add_months(date(2024, 1, 29), 1), date(2024, 2, 29))

    def test_rent_on_the_31st(self):
        rent = Recurring("Harbour Lets", Decimal("-950.00"), "rent", date(2024, 1, 31))
        days = [entry.day for entry in rent.occurrences(until=date(2024, 5, 31))]
        self.assertEqual(
            days,
            [
                date(2024, 1, 31),
                date(2024, 2, 29),
                date(2024, 3, 31),
                date(2024, 4, 30),
                date(2024, 5, 31),
            ],
        )


if __name__ == "__main__":
    unittest.main()
