"""Dates: reading them, naming months, moving by whole months."""

from datetime import date, timedelta


def parse_date(text):
    """A date written 'YYYY-MM-DD' (spaces around it are fine)."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not a date (expected YYYY-MM-DD): {text!r}") from None


def month_key(day):
    """'2024-03' for any day of March 2024."""
    return f"{day.year:04d}-{day.month:02d}"


def month_range(year, month):
    """The first and the last day of a month."""
    first = date(year, month, 1)
    if month == 12:
        next_first = date(year + 1, 1, 1)
    else:
        next_first = date(year, month + 1, 1)
    return first, next_first - timedelta(days=1)


def add_months(day, months):
    """The same day of the month, ``months`` months later (earlier when negative)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return day.replace(year=year, month=month + 1)


def months_between(start, end):
    """The month keys from ``start``'s month to ``end``'s, both included."""
    keys = []
    current = date(start.year, start.month, 1)
    while current <= end:
        keys.append(month_key(current))
        current = add_months(current, 1)
    return keys
