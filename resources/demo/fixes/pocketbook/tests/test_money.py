import unittest
from decimal import Decimal

from pocketbook.money import format_amount, parse_amount, split_evenly, to_cents


class ParseAmountTest(unittest.TestCase):
    def test_plain_and_dollar_amounts(self):
        self.assertEqual(parse_amount("12.50"), Decimal("12.50"))
        self.assertEqual(parse_amount(" $3 "), Decimal("3"))

    def test_thousands_separators(self):
        self.assertEqual(parse_amount("1,234.50"), Decimal("1234.50"))

    def test_negative_amounts(self):
        self.assertEqual(parse_amount("-4.20"), Decimal("-4.20"))
        self.assertEqual(parse_amount("(4.20)"), Decimal("-4.20"))

    def test_rejects_what_is_not_an_amount(self):
        for text in ("", "twelve", "NaN", "1.2.3"):
            with self.subTest(text=text), self.assertRaises(ValueError):
                parse_amount(text)


class FormatTest(unittest.TestCase):
    def test_two_decimals_and_separators(self):
        self.assertEqual(format_amount(Decimal("1234.5")), "1,234.50")
        self.assertEqual(format_amount(Decimal("-12")), "-12.00")

    def test_round_trip(self):
        self.assertEqual(parse_amount(format_amount(Decimal("98765.43"))), Decimal("98765.43"))

    def test_halves_round_away_from_zero(self):
        self.assertEqual(to_cents(Decimal("0.125")), Decimal("0.13"))
        self.assertEqual(to_cents(Decimal("-0.125")), Decimal("-0.13"))


class SplitTest(unittest.TestCase):
    def test_an_even_split(self):
        self.assertEqual(split_evenly(Decimal("9.00"), 3), [Decimal("3.00")] * 3)

    def test_one_part_is_the_total(self):
        self.assertEqual(split_evenly(Decimal("7.25"), 1), [Decimal("7.25")])

    def test_needs_a_part(self):
        with self.assertRaises(ValueError):
            split_evenly(Decimal("1.00"), 0)


if __name__ == "__main__":
    unittest.main()
