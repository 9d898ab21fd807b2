"""Family changes: append-only rows overlaid on the family as it was created."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ledger import catalog, family_changes
from arena.ledger.integrity import check
from arena.records import Family


@pytest.fixture
def fam(ledger):
    with ledger.atomic():
        catalog.add_family(ledger, Family("f", language="en", max_chars=500))
    return ledger


def test_the_newest_change_of_each_setting_is_in_force(fam):
    family_changes.add_change(fam, "f", "language", "ja")
    family_changes.add_change(fam, "f", "max_chars", 800)
    family_changes.add_change(fam, "f", "language", "fr", reason="second thought")
    family = catalog.get_family(fam, "f")
    assert (family.language, family.max_chars, family.min_chars) == ("fr", 800, 1)
    created, _ = catalog.family_as_created(fam, "f")
    assert (created.language, created.max_chars) == ("en", 500)
    assert [c.setting for c in family_changes.changes(fam, "f")] == [
        "language",
        "max_chars",
        "language",
    ]


def test_label_and_archived_are_listed_and_never_a_setting(fam):
    family_changes.add_change(fam, "f", "label", "French prose")
    family_changes.add_change(fam, "f", "archived", True)
    ((family, listing),) = catalog.family_listings(fam)
    assert listing == family_changes.Listing("French prose", archived=True)
    assert family == catalog.get_family(fam, "f") == Family("f", max_chars=500)


def test_the_family_row_is_never_rewritten_and_changes_are_append_only(fam):
    family_changes.add_change(fam, "f", "language", "ja")
    row = fam.db.execute("SELECT language FROM families WHERE name = 'f'").fetchone()
    assert row == ("en",)
    for sql in ("UPDATE family_changes SET value = '\"de\"'", "DELETE FROM family_changes"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            fam.db.execute(sql)
    assert check(fam) == []


def test_an_unknown_setting_is_refused(fam):
    with pytest.raises(ValueError, match="setting"):
        family_changes.add_change(fam, "f", "name", "g")


def test_a_reference_by_label_names_the_system_once_the_family_has_it(fam, tmp_path):
    from arena.intake.outputs import import_file
    from tests.conftest import native_line

    family_changes.add_change(fam, "f", "reference", "beta")
    assert catalog.get_family(fam, "f").reference is None
    path = tmp_path / "f.jsonl"
    path.write_text(
        "\n".join(native_line("c1", s, f"{s} answers well enough.") for s in ("alpha", "beta"))
        + "\n",
        "utf-8",
    )
    import_file(fam, path, family="f", fmt="native")
    assert catalog.get_family(fam, "f").reference == catalog.find_system(fam, "beta").system_id


def test_an_unknown_name_is_refused_with_the_names_it_may_be_a_slip_of(fam):
    with fam.atomic():
        catalog.add_family(fam, Family("jmt-bench"))
    assert "did you mean 'jmt-bench'?" in str(catalog.no_such_family(fam, "jmt-bnech"))
    assert "did you mean 'jmt-bench'?" in str(catalog.no_such_family(fam, "jmt"))
    assert "did you mean" not in str(catalog.no_such_family(fam, "zzz"))


def test_repeat_settings_are_changes_read_apart_from_the_family(fam):
    family_changes.add_change(fam, "f", "repeat_minutes", 45)
    family_changes.add_change(fam, "f", "repeat_share", 0.2)
    family_changes.add_change(fam, "f", "repeat_minutes", 30.5)
    assert family_changes.repeat_settings(fam, "f") == {"repeat_minutes": 30.5, "repeat_share": 0.2}
    assert catalog.get_family(fam, "f") == Family("f", max_chars=500)
