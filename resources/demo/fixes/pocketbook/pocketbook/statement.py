"""Bank statements exported as CSV: a header row with date, payee, amount and,
optionally, category."""

import csv
import io

from .book import Entry
from .dates import parse_date
from .money import parse_amount

REQUIRED = ("date", "payee", "amount")


def read_statement(text):
    """The entries of a statement given as text; a ValueError names the bad row."""
    # utf-8-sig files keep their byte-order mark in the text: drop it.
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [name for name in REQUIRED if name not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"the statement has no column {missing[0]!r}")
    entries = []
    for number, row in enumerate(reader, start=2):
        if not any((value or "").strip() for value in row.values()):
            continue
        try:
            entries.append(
                Entry(
                    day=parse_date(row["date"]),
                    payee=row["payee"].strip(),
                    amount=parse_amount(row["amount"]),
                    category=(row.get("category") or "").strip() or "uncategorised",
                )
            )
        except ValueError as exc:
            raise ValueError(f"row {number}: {exc}") from None
    return entries


def write_statement(entries):
    """The entries as statement text, readable by read_statement."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*REQUIRED, "category"])
    for entry in entries:
        writer.writerow([entry.day.isoformat(), entry.payee, str(entry.amount), entry.category])
    return out.getvalue()
