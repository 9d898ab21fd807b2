"""`arena judges import`: native and FastChat pair files, refusals by FILE:LINE, all or none."""

from __future__ import annotations

import sqlite3

import pytest

from arena.cli.main import main
from tests.judges.judge_files import answered_family, write_lines


@pytest.fixture
def family(tmp_path):
    """Two cases answered by systems a and b."""
    return answered_family(tmp_path, ("q1", "q2"), ("a", "b"))


def _import(ledger, path, *extra):
    return main(["--ledger", ledger, "judges", "import", path, "--family", "f",
                 "--judge", "gpt", "--kind", "model", *extra])  # fmt: skip


def _rows(ledger):
    with sqlite3.connect(ledger) as conn:
        return conn.execute(
            "SELECT case_id, left_system = right_system, winner, game FROM judge_verdicts"
        ).fetchall()


def test_fastchat_pair_line_is_two_games_with_sides_swapped(family, tmp_path, capsys):
    line = {"question_id": "q1", "model_1": "a", "model_2": "b", "judge": ["gpt-4", "pair-v2"]}
    line = {**line, "g1_winner": "model_1", "g2_winner": "error"}
    line2 = {**line, "question_id": "q2", "g1_winner": "model_2", "g2_winner": "model_2"}
    path = write_lines(tmp_path / "gpt-4_pair.jsonl", [line, line2])
    assert _import(family, path, "--format", "fastchat-pair") == 0
    assert "1 without a verdict skipped" in capsys.readouterr().out
    # q2 game 2 shows model_2 (b) on the left: its win is a left win.
    assert _rows(family) == [("q1", 0, "left", 1), ("q2", 0, "right", 1), ("q2", 0, "left", 2)]


def test_a_bad_line_is_named_and_nothing_is_added(family, tmp_path, capsys):
    good = {"case_id": "q1", "left_system": "a", "right_system": "b", "winner": "tie"}
    path = write_lines(tmp_path / "v.jsonl", [good, {**good, "right_system": "zz"}])
    assert _import(family, path) == 2
    assert f"{path}:2: right_system: no system 'zz'" in capsys.readouterr().err
    assert _rows(family) == []
    path = write_lines(tmp_path / "w.jsonl", [good, {**good, "winner": "a"}])
    assert _import(family, path) == 2
    assert f"{path}:2: winner:" in capsys.readouterr().err


def test_verdicts_cannot_be_changed_once_stored(family, tmp_path):
    good = {"case_id": "q2", "left_system": "b", "right_system": "a", "winner": "left", "game": 3}
    assert _import(family, write_lines(tmp_path / "v.jsonl", [good])) == 0
    assert _rows(family) == [("q2", 0, "left", 3)]
    with (
        sqlite3.connect(family) as conn,
        pytest.raises(sqlite3.IntegrityError, match="append-only"),
    ):
        conn.execute("UPDATE judge_verdicts SET winner = 'right'")


def test_a_judge_keeps_its_kind(family, tmp_path, capsys):
    good = {"case_id": "q1", "left_system": "a", "right_system": "b", "winner": "tie"}
    assert _import(family, write_lines(tmp_path / "v.jsonl", [good])) == 0
    path = write_lines(tmp_path / "v2.jsonl", [{**good, "winner": "left"}])
    code = main(["--ledger", family, "judges", "import", path, "--family", "f",
                 "--judge", "gpt", "--kind", "human"])  # fmt: skip
    assert code == 2
    assert "already a model judge" in capsys.readouterr().err


def test_each_source_is_recorded_once_with_its_format(family, tmp_path, capsys):
    import hashlib

    from arena.ledger import Ledger, judge_store

    good = {"case_id": "q1", "left_system": "a", "right_system": "b", "winner": "tie"}
    path = write_lines(tmp_path / "v.jsonl", [good])
    assert _import(family, path) == 0 and _import(family, path) == 0
    assert "imported for this judge before" in capsys.readouterr().out
    with Ledger.open(family, readonly=True) as ledger:
        [source] = judge_store.judge_sources(ledger, "f")
        assert judge_store.judge_sources(ledger, "f", "someone else") == []
    sha = hashlib.sha256((tmp_path / "v.jsonl").read_bytes()).hexdigest()
    assert source == judge_store.JudgeSource("gpt", sha, "native", None, source.imported_at)


@pytest.mark.parametrize("table", ["judge_verdicts", "judge_sources"])
def test_a_dropped_guard_of_a_judges_table_is_found(family, tmp_path, table):
    from arena.ledger import Ledger
    from arena.ledger.integrity import check

    good = {"case_id": "q1", "left_system": "a", "right_system": "b", "winner": "tie"}
    assert _import(family, write_lines(tmp_path / "v.jsonl", [good])) == 0
    with sqlite3.connect(family) as conn:
        conn.execute(f"DROP TRIGGER {table}_no_delete")
    with Ledger.open(family, readonly=True) as ledger:
        problems = check(ledger)
    missing = f"{table}: the append-only guard {table}_no_delete is missing"
    assert any(p.startswith(missing) for p in problems), problems
