"""The status rows kept beside the ledger are never those of another state of it."""

from __future__ import annotations

import json

import pytest

from arena.intake.outputs import import_file
from arena.ledger import Ledger
from arena.rating import status, status_cache
from arena.rating.corrections import remove_output
from arena.rating.session import RatingSession
from arena.rating.status import family_status, full_status_row
from tests.conftest import native_line

TEXT = "answers the question step by step, naming each part plainly for a new reader."


@pytest.fixture
def rated(ledger, tmp_path):
    """Two votes families of three systems on four cases."""
    for family in ("a", "b"):
        lines = [
            native_line(case, system, f"{system} on {case} {TEXT}", family={"name": family})
            for case in ("c1", "c2", "c3", "c4")
            for system in ("x", "y", "z")
        ]
        path = tmp_path / f"{family}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        import_file(ledger, path, family=family, fmt="native")
    return ledger


def _counts(ledger):
    """Status as worked out from the whole of each family, nothing kept."""
    listed = ("aspect", "label", "archived")
    return [{k: v for k, v in r.items() if k not in listed} for r in family_status(ledger)]


def _recounted(ledger):
    return [full_status_row(ledger, name) for name in ("a", "b")]


def _kept(ledger):
    return json.loads(status_cache.path_for(ledger.path).read_text("utf-8"))


def test_an_unchanged_ledger_answers_from_the_rows_kept(rated, monkeypatch):
    first = family_status(rated)
    assert set(_kept(rated)["rows"]) == {"a", "b"}

    def recount(*args):
        raise AssertionError("counted again although the ledger did not change")

    monkeypatch.setattr(status, "_counted_rows", recount)
    assert family_status(rated) == first
    assert family_status(rated, "b") == first[1:]


def test_a_vote_undo_or_correction_is_counted_again(rated):
    before = _counts(rated)
    session = RatingSession(rated, "a", seed=1)
    session.vote("left")
    after = _counts(rated)
    assert after[0]["votes"] == before[0]["votes"] + 1 and after == _recounted(rated)
    session.undo()
    assert _counts(rated) == before == _recounted(rated)
    output = session.current().left
    remove_output(rated, output.output_id, reason="wrong file")
    assert _counts(rated)[0]["outputs"] == before[0]["outputs"] - 1
    assert _counts(rated) == _recounted(rated)


def test_a_write_by_another_process_is_counted_again(rated, ledger_path):
    _counts(rated)
    with Ledger.open(ledger_path, readonly=True) as reader:
        assert family_status(reader)[0]["votes"] == 0
        RatingSession(rated, "a", seed=1).vote("tie")  # the window, beside it
        assert family_status(reader)[0]["votes"] == 1


def test_an_edited_file_of_kept_rows_is_set_aside(rated):
    truth = _counts(rated)
    kept = _kept(rated)
    kept["rows"]["a"]["pending_pairs"] += 5
    status_cache.path_for(rated.path).write_text(json.dumps(kept), "utf-8")
    assert _counts(rated) == truth
    status_cache.path_for(rated.path).write_text("{not json", "utf-8")
    assert _counts(rated) == truth
    assert _kept(rated)["rows"]["a"] == truth[0]


def test_rows_changed_in_place_behind_the_guards_are_counted_again(rated):
    """Changing a row means dropping its table's guard, which the state digest sees
    although no table grew."""
    before = _counts(rated)
    conn = rated.conn
    (sql,) = conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'output_keys_no_update'"
    ).fetchone()
    with rated.atomic():
        conn.execute("DROP TRIGGER output_keys_no_update")
        # Two answers of case c1 made identical: their pair settles.
        conn.execute(
            "UPDATE output_keys SET text_key = 'same' WHERE family = 'a' AND case_id = 'c1' "
            "AND system_id IN (SELECT system_id FROM output_keys WHERE family = 'a' "
            "AND case_id = 'c1' ORDER BY system_id LIMIT 2)"
        )
        conn.execute(sql)
    after = _counts(rated)
    assert after[0]["settled_pairs"] == before[0]["settled_pairs"] + 1
    assert after[0]["pending_pairs"] == before[0]["pending_pairs"] - 1


def test_status_works_where_nothing_can_be_kept(rated, monkeypatch):
    def refuse(*args):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(status_cache.os, "replace", refuse)
    assert _counts(rated) == _recounted(rated)
    assert not status_cache.path_for(rated.path).exists()
