import unittest
from datetime import date
from decimal import Decimal

from pocketbook.book import Entry
from pocketbook.statement import read_statement, write_statement


class StatementTest(unittest.TestCase):
    def test_reads_rows_and_skips_blank_ones(self):
        text = '\ufeffdate,payee,amount\n2024-03-01,Acme Payroll,"2,100.00"\n,,\n'
        self.assertEqual(
            read_statement(text),
            [Entry(date(2024, 3, 1), "Acme Payroll", Decimal("2100.00"), "uncategorised")],
        )

    def test_names_the_bad_row(self):
        with self.assertRaisesRegex(ValueError, "row 3"):
            read_statement("date,payee,amount\n2024-03-01,A,1\n2024-03-02,B,lots\n")

    def test_needs_the_columns(self):
        with self.assertRaisesRegex(ValueError, "'amount'"):
            read_statement("date,payee\n2024-03-01,A\n")

    def test_round_trip(self):
        entries = [Entry(date(2024, 3, 9), "City Transit", Decimal("-30.00"), "transport")]
        self.assertEqual(read_statement(write_statement(entries)), entries)


if __name__ == "__main__":
    unittest.main()
