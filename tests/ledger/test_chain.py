"""`arena check` finds tampering done outside the app."""

import sqlite3

import pytest

from arena.canonical import canonical_json, sha256_hex
from arena.ledger import Ledger
from arena.ledger.guards import GENESIS_HASH
from arena.ledger.integrity import check
from tests.votes_helpers import cast


@pytest.fixture
def voted(small_family):
    for index in range(3):
        cast(small_family, case_index=index, choice=("left", "right", "tie")[index])
    return small_family


def test_an_untouched_ledger_checks_clean(voted):
    assert check(voted) == []


def test_each_hash_covers_the_previous_hash_and_the_row(voted):
    rows = list(voted.db.query("SELECT * FROM votes ORDER BY seq"))
    assert rows[0]["prev_hash"] == GENESIS_HASH
    for earlier, later in zip(rows, rows[1:], strict=False):
        assert later["prev_hash"] == earlier["hash"]
    body = {k: v for k, v in rows[1].items() if k not in ("seq", "hash", "prev_hash")}
    assert rows[1]["hash"] == sha256_hex(rows[1]["prev_hash"] + canonical_json(body))


def _tamper(path, *statements):
    conn = sqlite3.connect(path)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def test_an_edit_after_dropping_the_trigger_is_found(voted):
    voted.close()
    _tamper(
        voted.path,
        "DROP TRIGGER votes_no_update",
        "UPDATE votes SET choice = 'right' WHERE seq = 1",
    )
    with Ledger.open(voted.path, readonly=True) as reader:
        problems = check(reader)
    assert any("votes seq 1" in p and "edited" in p for p in problems)


def test_a_removed_vote_is_found(voted):
    voted.close()
    _tamper(voted.path, "DROP TRIGGER votes_no_delete", "DELETE FROM votes WHERE seq = 2")
    with Ledger.open(voted.path, readonly=True) as reader:
        problems = check(reader)
    assert any("votes seq 3" in p and "removed" in p for p in problems)


def test_a_byte_edited_in_the_file_is_found(voted):
    voted.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    voted.close()
    data = bytearray(open(voted.path, "rb").read())
    # The vote's choice is stored as text; turn one 'tie' into 'tIe' in the page.
    at = data.find(b"tie" + b"2026")
    assert at > 0, "vote row not found in the file"
    data[at + 1] = ord("I")
    open(voted.path, "wb").write(bytes(data))
    with Ledger.open(voted.path, readonly=True) as reader:
        problems = check(reader)
    assert any("edited" in p or "integrity" in p for p in problems), problems


def test_each_family_keeps_its_own_chain(voted, tmp_path):
    from arena.intake.outputs import import_file
    from tests.conftest import native_line

    other = tmp_path / "other.jsonl"
    other.write_text(
        "\n".join(native_line("o1", s, f"{s} says something useful here.") for s in ("p", "q")),
        encoding="utf-8",
    )
    import_file(voted, other, family="other", fmt="native")
    cast(voted, family="other")
    cast(voted, case_index=3)
    rows = list(voted.db.query("SELECT family, prev_hash, hash FROM votes ORDER BY seq"))
    small = [r for r in rows if r["family"] == "small"]
    (theirs,) = [r for r in rows if r["family"] == "other"]
    assert theirs["prev_hash"] == GENESIS_HASH
    assert small[-1]["prev_hash"] == small[-2]["hash"]
    assert check(voted) == []
