"""Reports: totals by category and by month, as data and as a plain-text table."""

from decimal import Decimal

from .dates import month_key
from .money import format_amount


def category_totals(entries):
    """The total of each category, in the order the categories first appear."""
    totals = {}
    for entry in entries:
        totals[entry.category] = totals.get(entry.category, Decimal("0")) + entry.amount
    return totals


def monthly_totals(entries):
    """The total of each month ('YYYY-MM'), the oldest first."""
    totals = {}
    for entry in sorted(entries, key=lambda e: e.day):
        key = month_key(entry.day)
        totals[key] = totals.get(key, Decimal("0")) + entry.amount
    return totals


def render_table(totals, title):
    """``totals`` as a table under ``title``: names on the left, amounts right-aligned."""
    if not totals:
        return f"{title}\n(nothing yet)\n"
    amounts = {name: format_amount(value) for name, value in totals.items()}
    name_width = max(len(name) for name in amounts)
    amount_width = max(len(amount) for amount in amounts.values())
    lines = [title, "-" * (name_width + 2 + amount_width)]
    for name, amount in amounts.items():
        lines.append(f"{name:<{name_width}}  {amount:>{amount_width}}")
    return "\n".join(lines) + "\n"
