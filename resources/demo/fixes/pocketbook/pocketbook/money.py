"""Amounts of money: reading what people type, printing them, splitting a bill."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")


def parse_amount(text):
    """An amount as people type it: '12.50', '$3', '1,234.50', '-4.20' or '(4.20)'.

    Parentheses mean a negative amount, as bank statements print them.
    """
    cleaned = text.strip()
    negative = cleaned.startswith("(") and cleaned.endswith(")")
    if negative:
        cleaned = cleaned[1:-1].strip()
    cleaned = cleaned.replace("$", "").replace(",", "")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"not an amount: {text!r}")
    return -value if negative else value


def to_cents(value):
    """``value`` rounded to whole cents, halves away from zero."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def format_amount(value):
    """Two decimals and a thousands separator: '1,234.50', '-12.00'."""
    return f"{to_cents(value):,.2f}"


def split_evenly(total, parts):
    """``total`` split into ``parts`` shares of whole cents that add up to ``total``.

    The shares differ by at most one cent, the larger ones first.
    """
    if parts < 1:
        raise ValueError("parts must be at least 1")
    share = to_cents(Decimal(total) / parts)
    return [share] * parts
