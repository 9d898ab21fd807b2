"""Hidden test for issue #62: split_evenly's shares add up to the total."""

import unittest
from decimal import Decimal

from pocketbook.money import split_evenly


class SplitEvenlyTest(unittest.TestCase):
    def test_a_third_of_ten(self):
        self.assertEqual(
            split_evenly(Decimal("10.00"), 3), [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]
        )

    def test_a_third_of_twenty(self):
        self.assertEqual(
            split_evenly(Decimal("20.00"), 3), [Decimal("6.67"), Decimal("6.67"), Decimal("6.66")]
        )

    def test_fewer_cents_than_parts(self):
        self.assertEqual(
            split_evenly(Decimal("0.02"), 3), [Decimal("0.01"), Decimal("0.01"), Decimal("0")]
        )

    def test_shares_add_up_and_differ_by_a_cent_at_most(self):
        for total in ("0.05", "1.00", "99.99", "1234.56"):
            for parts in range(1, 8):
                with self.subTest(total=total, parts=parts):
                    shares = split_evenly(Decimal(total), parts)
                    self.assertEqual(len(shares), parts)
                    self.assertEqual(sum(shares), Decimal(total))
                    self.assertEqual(shares, sorted(shares, reverse=True))
                    self.assertLessEqual(shares[0] - shares[-1], Decimal("0.01"))


if __name__ == "__main__":
    unittest.main()
