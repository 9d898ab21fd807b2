"""What a verdict source must not bring: nothing at all, a verdict twice or two ways, a verdict
an earlier source gave otherwise, a name that is not one line; and a layout is no reason."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from arena.cli.main import main
from tests.judges.judge_files import answered_family, write_lines

GOOD = {"case_id": "q1", "left_system": "a", "right_system": "b", "winner": "left"}


@pytest.fixture
def family(tmp_path):
    """Two cases answered by systems a, b and c."""
    return answered_family(tmp_path, ("q1", "q2"), ("a", "b", "c"))


def _import(ledger, path, *extra, judge="gpt"):
    return main(["--ledger", ledger, "judges", "import", str(path), "--family", "f",
                 "--judge", judge, "--kind", "model", *extra])  # fmt: skip


def _digest(ledger: str) -> str:
    with sqlite3.connect(ledger) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(Path(ledger).read_bytes()).hexdigest()


def _rows(ledger):
    with sqlite3.connect(ledger) as conn:
        return conn.execute(
            "SELECT v.case_id, l.label, r.label, v.winner, v.game, v.source_line "
            "FROM judge_verdicts v JOIN systems l ON l.system_id = v.left_system "
            "JOIN systems r ON r.system_id = v.right_system ORDER BY v.seq"
        ).fetchall()


def _sources(ledger):
    with sqlite3.connect(ledger) as conn:
        return conn.execute("SELECT COUNT(*) FROM judge_sources").fetchone()[0]


EMPTY = "no verdicts: the source holds no records"
UNDECIDED = "no verdicts: its 1 record leaves every pair undecided"


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        ("", "native", EMPTY),
        ("\n  \n", "native", EMPTY),
        ("", "fastchat-pair", EMPTY),
        ("[]", "pandalm", EMPTY),
        # Records, but none a verdict: FastChat's error games, one model's scores alone.
        (json.dumps({"question_id": "q1", "model_1": "a", "model_2": "b", "g1_winner": "error",
                     "g2_winner": "error"}), "fastchat-pair", UNDECIDED),
        (json.dumps({"question_id": "q1", "model": "a", "score": 7}), "fastchat-single",
         UNDECIDED),
    ],
)  # fmt: skip
def test_a_source_without_a_verdict_is_refused_and_nothing_is_recorded(
    family, tmp_path, capsys, text, fmt, message
):
    path = tmp_path / "v.json"
    path.write_text(text, encoding="utf-8")
    before = _digest(family)
    extra = ["--column", "annotator2"] if fmt == "pandalm" else []
    assert _import(family, path, "--format", fmt, *extra) == 2
    err = capsys.readouterr().err
    assert f"{path}: {message}" in err and "imported for this judge before" not in err
    assert _digest(family) == before and _sources(family) == 0


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (GOOD, ":2: (record): the same verdict as line 1 (case 'q1', 'a' against 'b', game 1)"),
        ({**GOOD, "winner": "right"}, ":2: (record): contradicts line 1"),
        ({**GOOD, "game": 1}, ":2: (record): the same verdict as line 1"),
    ],
)
def test_a_verdict_given_twice_in_one_source_is_refused(family, tmp_path, capsys, second, message):
    other = {**GOOD, "game": 2}  # another game of the same pair is another verdict
    path = write_lines(tmp_path / "v.jsonl", [GOOD, second, other])
    before = _digest(family)
    assert _import(family, path) == 2
    assert f"{path}{message}" in capsys.readouterr().err
    assert _digest(family) == before


def test_the_same_pair_shown_the_other_way_is_another_verdict(family, tmp_path):
    swapped = {**GOOD, "left_system": "b", "right_system": "a"}
    assert _import(family, write_lines(tmp_path / "v.jsonl", [GOOD, swapped])) == 0
    assert [r[:3] for r in _rows(family)] == [("q1", "a", "b"), ("q1", "b", "a")]


def test_a_verdict_an_earlier_source_gave_otherwise_is_refused(family, tmp_path, capsys):
    assert _import(family, write_lines(tmp_path / "v1.jsonl", [GOOD])) == 0
    flipped = write_lines(
        tmp_path / "v2.jsonl", [{**GOOD, "case_id": "q2"}, {**GOOD, "winner": "tie"}]
    )
    before = _digest(family)
    assert _import(family, flipped) == 2
    err = capsys.readouterr().err
    assert f"{flipped}:2: (record): contradicts 'gpt''s verdict 'left' from source" in err
    assert "(line or array place 1) (case 'q1', 'a' against 'b', game 1)" in err
    assert _digest(family) == before
    # Another judge may say otherwise: verdicts are compared within one judge.
    assert _import(family, flipped, judge="claude") == 0


def test_verdicts_an_earlier_source_gave_alike_are_not_stored_twice(family, tmp_path, capsys):
    first = [GOOD, {**GOOD, "case_id": "q2", "winner": "tie"}]
    assert _import(family, write_lines(tmp_path / "v1.jsonl", first)) == 0
    # The same verdicts laid out otherwise: another sha256, nothing new.
    copy = tmp_path / "copy.jsonl"
    copy.write_text("".join(json.dumps(r, indent=None, separators=(",", ":")) + "\n\n"
                            for r in reversed(first)), encoding="utf-8")  # fmt: skip
    before = _digest(family)
    assert _import(family, copy) == 0
    assert "0 verdicts added from 2 records, 2 already stored" in capsys.readouterr().out
    assert _digest(family) == before and _sources(family) == 1
    # A later source with the earlier verdicts and a new one adds the new one only.
    later = write_lines(tmp_path / "v3.jsonl", [*first, {**GOOD, "right_system": "c"}])
    assert _import(family, later) == 0
    assert "1 verdict added from 3 records, 2 already stored" in capsys.readouterr().out
    assert len(_rows(family)) == 3 and _sources(family) == 2


def test_a_judge_name_that_is_not_one_line_is_refused(family, tmp_path, capsys):
    path = write_lines(tmp_path / "v.jsonl", [GOOD])
    assert _import(family, path, judge="gpt\n4") == 2
    assert "--judge: a judge's name holds U+000A" in capsys.readouterr().err
    assert _rows(family) == []


def test_fastchat_turns_are_games_of_the_questions_case(family, tmp_path, capsys):
    line = {"question_id": "q1", "model_1": "a", "model_2": "b", "g1_winner": "model_1",
            "g2_winner": "tie", "turn": 1}  # fmt: skip
    second = {**line, "g1_winner": "model_2", "turn": 2}
    path = write_lines(tmp_path / "gpt-4_pair.jsonl", [line, second])
    assert _import(family, path, "--format", "fastchat-pair") == 0
    assert "4 verdicts added from 2 records" in capsys.readouterr().out
    assert [r[:5] for r in _rows(family)] == [
        ("q1", "a", "b", "left", 1), ("q1", "b", "a", "tie", 2),
        ("q1", "a", "b", "right", 3), ("q1", "b", "a", "tie", 4),
    ]  # fmt: skip
    # The same turn twice is the same games twice.
    again = write_lines(tmp_path / "twice_pair.jsonl", [second, second])
    assert _import(family, again, "--format", "fastchat-pair", judge="other") == 2
    assert ":2: (record): the same verdict as line 1" in capsys.readouterr().err


PANDALM = [
    {"idx": "q1", "cmp_key": "a_b", "annotator1": 1, "annotator2": 2},
    {"idx": "q2", "cmp_key": "c_a", "annotator1": 0, "annotator2": 0},
    {"idx": "q2", "cmp_key": "b_c", "annotator1": 2, "annotator2": 1},
]


@pytest.mark.parametrize("layout", ["one line", "BOM and CRLF"])
def test_a_json_array_reads_the_same_whatever_its_layout(family, tmp_path, capsys, layout):
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(PANDALM, indent=4), encoding="utf-8")
    other = tmp_path / "other.json"
    if layout == "one line":
        other.write_text(json.dumps(PANDALM, separators=(",", ":")), encoding="utf-8")
    else:
        other.write_bytes(
            b"\xef\xbb\xbf" + json.dumps(PANDALM, indent=1).replace("\n", "\r\n").encode()
        )
    args = ["--format", "pandalm", "--column", "annotator2"]
    assert _import(family, pretty, *args) == 0
    assert _import(family, other, *args, judge="again") == 0
    assert "3 verdicts added from" in capsys.readouterr().out
    rows = _rows(family)
    # Each element is known by its place in the array, not by the line it starts on.
    assert rows[:3] == rows[3:] == [("q1", "a", "b", "right", 1, 1), ("q2", "c", "a", "tie", 1, 2),
                                    ("q2", "b", "c", "left", 1, 3)]  # fmt: skip
