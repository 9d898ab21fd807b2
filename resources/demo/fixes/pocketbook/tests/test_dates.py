import unittest
from datetime import date

from pocketbook.dates import add_months, month_key, month_range, months_between, parse_date


class DatesTest(unittest.TestCase):
    def test_parse_date(self):
        self.assertEqual(parse_date(" 2024-02-29 "), date(2024, 2, 29))
        with self.assertRaises(ValueError):
            parse_date("29/02/2024")

    def test_month_key(self):
        self.assertEqual(month_key(date(2024, 3, 17)), "2024-03")

    def test_month_range(self):
        self.assertEqual(month_range(2024, 2), (date(2024, 2, 1), date(2024, 2, 29)))
        self.assertEqual(month_range(2023, 12), (date(2023, 12, 1), date(2023, 12, 31)))

    def test_add_months_within_a_month_length(self):
        self.assertEqual(add_months(date(2024, 1, 15), 2), date(2024, 3, 15))
        self.assertEqual(add_months(date(2024, 11, 5), 3), date(2025, 2, 5))
        self.assertEqual(add_months(date(2024, 1, 5), -1), date(2023, 12, 5))

    def test_months_between(self):
        self.assertEqual(
            months_between(date(2023, 11, 20), date(2024, 2, 3)),
            ["2023-11", "2023-12", "2024-01", "2024-02"],
        )
        self.assertEqual(months_between(date(2024, 5, 1), date(2024, 5, 31)), ["2024-05"])


if __name__ == "__main__":
    unittest.main()
