"""Hidden test for issue #66: monthly totals show the months without entries too."""

import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Entry
from pocketbook.report import monthly_totals


class MonthlyGapsTest(unittest.TestCase):
    def test_empty_months_between_are_zero(self):
        entries = [
            Entry(date(2024, 4, 30), "Harbour Lets", Decimal("-950.00"), "rent"),
            Entry(date(2023, 12, 31), "Harbour Lets", Decimal("-900.00"), "rent"),
            Entry(date(2024, 2, 1), "Acme Payroll", Decimal("2100.00"), "salary"),
        ]
        totals = monthly_totals(entries)
        self.assertEqual(list(totals), ["2023-12", "2024-01", "2024-02", "2024-03", "2024-04"])
        self.assertEqual(totals["2024-01"], Decimal("0"))
        self.assertEqual(totals["2024-03"], Decimal("0"))
        self.assertEqual(totals["2024-04"], Decimal("-950.00"))

    def test_one_month(self):
        entries = [Entry(date(2024, 5, 2), "Cinema Nova", Decimal("-12.00"), "fun")]
        self.assertEqual(monthly_totals(entries), {"2024-05": Decimal("-12.00")})

    def test_no_entries(self):
        self.assertEqual(monthly_totals([]), {})


if __name__ == "__main__":
    unittest.main()
