"""FastChat single-answer scores and arena-hard-auto judgments read as pairwise verdicts."""

from __future__ import annotations

import sqlite3

import pytest

from arena.cli.main import main
from arena.judges.comparison import judges_report
from arena.ledger import Ledger
from tests.judges.judge_files import answered_family, write_lines


@pytest.fixture
def family(tmp_path):
    """Questions 81 and 82 (FastChat's integer ids) answered by systems a, b and c."""
    return answered_family(tmp_path, ("81", "82"), ("a", "b", "c"))


def _import(ledger, path, fmt, *extra):
    return main(["--ledger", ledger, "judges", "import", path, "--family", "f", "--judge", "gpt",
                 "--kind", "model", "--format", fmt, *extra])  # fmt: skip


def _rows(ledger):
    """(case, left label, right label, winner, game, source line) of every verdict."""
    with sqlite3.connect(ledger) as conn:
        return conn.execute(
            "SELECT v.case_id, l.label, r.label, v.winner, v.game, v.source_line "
            "FROM judge_verdicts v JOIN systems l ON l.system_id = v.left_system "
            "JOIN systems r ON r.system_id = v.right_system ORDER BY v.seq"
        ).fetchall()


def _single(question, model, score, turn):
    judge = ["gpt-4", "single-v1" if turn == 1 else "single-v1-multi-turn"]
    return {"question_id": question, "model": model, "judge": judge, "user_prompt": "…",
            "judgment": f"Rating: [[{score}]]", "score": score, "turn": turn,
            "tstamp": 1700367448.5}  # fmt: skip


SINGLE = [
    _single(81, "a", 8, 1),
    _single(81, "b", 8, 1),
    _single(81, "c", 3, 1),
    _single(81, "c", 6.5, 2),
    _single(81, "b", 5, 2),
    _single(81, "a", -1, 2),  # FastChat found no rating
    _single(82, "c", 9, 1),  # alone on its question and turn: no pair
]


def test_single_scores_make_one_verdict_per_pair_equal_scores_a_tie(family, tmp_path, capsys):
    path = write_lines(tmp_path / "gpt-4_single.jsonl", SINGLE)
    assert _import(family, path, "fastchat-single") == 0
    out = capsys.readouterr().out
    assert "4 verdicts added from 7 records, 2 without a verdict skipped" in out
    # Left is the system whose name sorts first, in any order of the file; the verdict's
    # line is the left's score, and its game minus the line of the right's.
    assert _rows(family) == [
        ("81", "a", "b", "tie", -2, 1),
        ("81", "a", "c", "left", -3, 1),
        ("81", "b", "c", "left", -3, 2),
        ("81", "b", "c", "right", -4, 5),  # turn 2: 5 < 6.5; a's -1 pairs are skipped
    ]
    with Ledger.open(family, readonly=True) as ledger:
        [judge] = judges_report(ledger, "f")["judges"]
    assert judge["position_consistency"] is None  # scored apart: no position to compare


def test_single_first_turn_only(family, tmp_path, capsys):
    path = write_lines(tmp_path / "gpt-4_single.jsonl", SINGLE)
    assert _import(family, path, "fastchat-single", "--turns", "first") == 0
    assert "3 verdicts added from 4 records" in capsys.readouterr().out
    assert [row[3] for row in _rows(family)] == ["tie", "left", "left"]


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        ({**SINGLE[1], "model": "zz"}, "2: model: no system 'zz' in family 'f'"),
        ({**SINGLE[1], "model": "a"}, "2: model: scored twice on this question and turn (line 1)"),
        ({**SINGLE[1], "score": "8"}, "2: score: expected a number"),
        ({**SINGLE[1], "turn": 0}, "2: turn: expected a turn number"),
        ({**SINGLE[1], "question_id": 99}, "2: question_id: no case 99 in family 'f'"),
    ],
)
def test_a_bad_single_line_is_named_and_nothing_is_added(family, tmp_path, capsys, bad, where):
    path = write_lines(tmp_path / "s.jsonl", [SINGLE[0], bad, *SINGLE[2:]])
    assert _import(family, path, "fastchat-single") == 2
    assert f"{path}:{where}" in capsys.readouterr().err
    assert _rows(family) == []


def test_fastchat_pair_first_turn_only(family, tmp_path, capsys):
    line = {"question_id": 81, "model_1": "a", "model_2": "b", "g1_winner": "model_1",
            "g2_winner": "tie", "judge": ["gpt-4", "pair-v2"], "turn": 1}  # fmt: skip
    second = {**line, "g1_winner": "model_2", "judge": ["gpt-4", "pair-v2-multi-turn"], "turn": 2}
    path = write_lines(tmp_path / "gpt-4_pair.jsonl", [line, second])
    assert _import(family, path, "fastchat-pair", "--turns", "first") == 0
    assert "2 verdicts added from 1 record" in capsys.readouterr().out
    assert _rows(family) == [("81", "a", "b", "left", 1, 1), ("81", "b", "a", "tie", 2, 1)]


def _hard(question, model, first, second, **extra):
    games = [None if s is None else {"user_prompt": "…", "judgment": "…", "score": s}
             for s in (first, second)]  # fmt: skip
    return {"question_id": question, "model": model, "judge": "gpt-4-1106-preview",
            "games": games, **extra}  # fmt: skip


def test_arena_hard_game_one_shows_the_baseline_left_game_two_the_model(family, tmp_path, capsys):
    lines = [
        _hard("81", "b", "A>>B", "A>B"),  # game 1: baseline a wins; game 2: model b wins
        _hard("81", "c", "B>A", None),  # game 2 has no verdict
        _hard("82", "b", "A=B", "B>>A"),
        _hard("82", "c", "A<B", "B>A"),  # a label arena-hard gives no weight: skipped
    ]
    # arena-hard-auto v2.0 names the line by uid and its baseline.
    lines.append(
        {"uid": "82", "model": "b", "baseline": "c", "games": [{"score": "B>A"}, {"score": "A>B"}]}
    )
    path = write_lines(tmp_path / "b.jsonl", lines)
    assert _import(family, path, "arena-hard", "--baseline", "a") == 0
    assert "8 verdicts added from 5 records, 2 without a verdict skipped" in capsys.readouterr().out
    assert _rows(family) == [
        ("81", "a", "b", "left", 1, 1),
        ("81", "b", "a", "left", 2, 1),
        ("81", "a", "c", "right", 1, 2),
        ("82", "a", "b", "tie", 1, 3),
        ("82", "b", "a", "right", 2, 3),
        ("82", "c", "a", "right", 2, 4),
        ("82", "c", "b", "right", 1, 5),
        ("82", "b", "c", "left", 2, 5),
    ]
    with Ledger.open(family, readonly=True) as ledger:
        [judge] = judges_report(ledger, "f")["judges"]
    # Seen in both orders: (81, a, b), (82, a, b) and (82, b, c); the same answer both times
    # only on (82, b, c), where b won twice.
    assert judge["position_consistency"]["count"] == 3
    assert judge["position_consistency"]["value"] == pytest.approx(1 / 3)
    # The same judge's scores shown apart: (82, a, c), seen by arena-hard only with c left,
    # gains a verdict with a left, which has no position: still three items, one alike.
    scores = write_lines(tmp_path / "s.jsonl", [_single(82, "a", 4, 1), _single(82, "c", 9, 1)])
    assert _import(family, scores, "fastchat-single") == 0
    with Ledger.open(family, readonly=True) as ledger:
        [judge] = judges_report(ledger, "f")["judges"]
    assert judge["verdicts"] == 9
    assert judge["position_consistency"]["count"] == 3
    assert judge["position_consistency"]["value"] == pytest.approx(1 / 3)


def test_arena_hard_refusals_name_the_line_and_add_nothing(family, tmp_path, capsys):
    path = write_lines(tmp_path / "b.jsonl", [_hard("81", "b", "A>B", "B>A")])
    assert _import(family, path, "arena-hard") == 2  # the default baseline is not in f
    assert f"{path}:1: --baseline: no system 'gpt-4-0314' in family 'f'" in capsys.readouterr().err
    path = write_lines(
        tmp_path / "c.jsonl",
        [_hard("81", "b", "A>B", "B>A"), {"model": "b", "question_id": "81", "games": "A>B"}],
    )
    assert _import(family, path, "arena-hard", "--baseline", "a") == 2
    assert f"{path}:2: games: expected a list of two games" in capsys.readouterr().err
    path = write_lines(tmp_path / "d.jsonl", [_hard("81", "b", 3, "B>A")])
    assert _import(family, path, "arena-hard", "--baseline", "a") == 2
    assert f"{path}:1: games[0].score:" in capsys.readouterr().err
    assert _import(family, path, "native", "--baseline", "a") == 2
    assert "--baseline: only with --format arena-hard" in capsys.readouterr().err
    assert _rows(family) == []
