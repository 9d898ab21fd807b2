"""pocketbook: a small personal-finance library.

Amounts are ``decimal.Decimal``. Money in (income, refunds) is positive, money out
(spending) is negative.
"""

from .book import Book, Entry
from .budget import Budget
from .money import format_amount, parse_amount, split_evenly
from .recurring import Recurring

__all__ = [
    "Book",
    "Budget",
    "Entry",
    "Recurring",
    "format_amount",
    "parse_amount",
    "split_evenly",
]
__version__ = "0.4.0"
