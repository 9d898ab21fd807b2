import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Book, Entry


def _book():
    return Book(
        [
            Entry(date(2024, 3, 5), "Corner Grocer", Decimal("-42.10"), "groceries"),
            Entry(date(2024, 3, 1), "Acme Payroll", Decimal("2100.00"), "salary"),
            Entry(date(2024, 3, 9), "City Transit", Decimal("-30.00"), "transport"),
        ]
    )


class BookTest(unittest.TestCase):
    def test_entries_are_kept_in_date_order(self):
        self.assertEqual([e.day.day for e in _book()], [1, 5, 9])

    def test_amounts_must_be_decimals(self):
        with self.assertRaises(TypeError):
            Book([Entry(date(2024, 3, 1), "Acme Payroll", 2100, "salary")])

    def test_between_includes_both_ends(self):
        found = _book().between(date(2024, 3, 1), date(2024, 3, 5))
        self.assertEqual([e.payee for e in found], ["Acme Payroll", "Corner Grocer"])

    def test_balance_of_everything(self):
        self.assertEqual(_book().balance(), Decimal("2027.90"))

    def test_balance_before_any_entry(self):
        self.assertEqual(_book().balance(on=date(2024, 2, 28)), Decimal("0"))

    def test_payees_in_order_of_appearance(self):
        self.assertEqual(_book().payees(), ["Acme Payroll", "Corner Grocer", "City Transit"])


if __name__ == "__main__":
    unittest.main()
