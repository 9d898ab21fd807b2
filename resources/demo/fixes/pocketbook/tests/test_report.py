import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Entry
from pocketbook.report import category_totals, monthly_totals, render_table

ENTRIES = [
    Entry(date(2024, 1, 3), "Corner Grocer", Decimal("-40.00"), "groceries"),
    Entry(date(2024, 1, 15), "Acme Payroll", Decimal("2100.00"), "salary"),
    Entry(date(2024, 2, 2), "Corner Grocer", Decimal("-35.25"), "groceries"),
    Entry(date(2024, 2, 28), "City Transit", Decimal("-30.00"), "transport"),
]


class ReportTest(unittest.TestCase):
    def test_category_totals(self):
        self.assertEqual(
            category_totals(ENTRIES),
            {
                "groceries": Decimal("-75.25"),
                "salary": Decimal("2100.00"),
                "transport": Decimal("-30.00"),
            },
        )

    def test_monthly_totals(self):
        totals = monthly_totals(reversed(ENTRIES))
        self.assertEqual(list(totals), ["2024-01", "2024-02"])
        self.assertEqual(totals["2024-02"], Decimal("-65.25"))

    def test_render_table(self):
        table = render_table({"rent": Decimal("-950"), "salary": Decimal("2100")}, "March")
        self.assertEqual(table, "March\n----------------\nrent     -950.00\nsalary  2,100.00\n")

    def test_render_an_empty_table(self):
        self.assertEqual(render_table({}, "April"), "April\n(nothing yet)\n")


if __name__ == "__main__":
    unittest.main()
