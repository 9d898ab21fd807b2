"""The family-scoped check (``arena.ledger.soundness``) against `arena check` over the
tamper matrix: every edit of every table that a family's writes read is found by the
check of some family, and every line it gives is a line `arena check` gives."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ledger import Ledger, catalog, seal_spans, seals, soundness
from arena.ledger.guards import APPEND_ONLY
from arena.ledger.integrity import check
from tests.reliability.test_tamper_matrix import (  # noqa: F401 (fixtures)
    _ORDER,
    EDITS,
    _delete,
    _unguarded,
    _update,
    everything,
    full,
)

READ = sorted({*soundness.EXPORT, *soundness.VOTING})


@pytest.mark.parametrize("edit", ["update first", "update last", "delete last", "insert"])
@pytest.mark.parametrize("table", [*READ, "round_items"])
def test_each_edit_is_found_by_a_family_in_the_words_of_check(full, table, edit):  # noqa: F811
    make = EDITS[edit]
    if table in _ORDER and edit != "insert":
        first, last = _ORDER[table]
        kind = _update if edit.startswith("update") else _delete
        make = lambda t: kind(t, first if edit.endswith("first") else last)  # noqa: E731
    conn = sqlite3.connect(full)
    conn.execute("PRAGMA foreign_keys = OFF")
    _unguarded(conn, table, make(table))
    conn.close()
    with Ledger.open(full, readonly=True) as ledger:
        checked = set(check(ledger))
        found = {
            line
            for family in catalog.families(ledger)
            for line in soundness.problems(ledger, family.name, READ)
        }
        light = {
            line
            for family in catalog.families(ledger)
            for line in soundness.problems(ledger, family.name, READ, rows=False)
        }
    assert found <= checked, found - checked
    assert light <= found
    named = "rounds" if table == "round_items" else table  # sealed with its round
    assert any(line.startswith((f"{table}:", f"{table} ", f"{named}:")) for line in found)


def test_a_sound_ledger_has_no_problem_in_any_family(everything):  # noqa: F811
    with Ledger.open(everything, readonly=True) as ledger:
        names = [family.name for family in catalog.families(ledger)]
        assert len(names) >= 4
        assert [soundness.problems(ledger, name, READ) for name in names] == [[]] * len(names)


def test_sqlite_writes_every_seal_line_as_python_does(everything):  # noqa: F811
    """The fast lines are the lines: a table of every kind of value (floats, blobs, NULLs,
    text beyond ASCII) comes out of SQLite as ``seals`` writes it, so no span falls back."""
    kinds = set()
    with Ledger.open(everything, readonly=True) as ledger:
        for table in seals.sealed_tables(ledger.db):
            if table in APPEND_ONLY or table in seals.CHILDREN:
                continue
            fast = list(seal_spans._sql_lines(ledger.conn, table, 0, 2**62))
            exact = list(seals.row_lines(ledger.conn, table, 0))
            assert fast == exact, table
            kinds |= {
                type(v).__name__
                for row in ledger.conn.execute(f"SELECT * FROM {table}")
                for v in row
            }
    assert kinds == {"int", "float", "str", "bytes", "NoneType"}
