"""arena.intake.battles: streaming battle files into arrays, and fitting them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from arena.errors import BadInput
from arena.intake import battles as battles_module
from arena.intake import jsonstream
from arena.intake.battles import read_battles
from arena.rounds.scoring import fit_battles

BATTLES = [
    {"model_a": "alpha", "model_b": "beta", "winner": "model_a", "judge": "x"},
    {"model_a": "beta", "model_b": "alpha", "winner": "model_b"},
    {"model_a": "alpha", "model_b": "beta", "winner": "tie"},
    {"model_a": "gamma", "model_b": "beta", "winner": "tie (bothbad)"},
    {"model_a": "gamma", "model_b": "alpha", "winner": "model_b"},
    {"model_a": "beta", "model_b": "gamma", "winner": "model_b"},
]


def _jsonl(path: Path, rows: list, *, blank_lines: bool = False) -> Path:
    text = "\n".join(json.dumps(row) for row in rows) + "\n"
    if blank_lines:
        text = "\n" + text.replace("\n", "\n\n")
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_fastchat_json_lines_into_arrays(tmp_path):
    got = read_battles(_jsonl(tmp_path / "b.jsonl", BATTLES))
    assert got.names == ["alpha", "beta", "gamma"]
    np.testing.assert_array_equal(got.a, [0, 1, 0, 2, 2, 1])
    np.testing.assert_array_equal(got.b, [1, 0, 1, 1, 0, 2])
    np.testing.assert_array_equal(got.y, [1, 0, 0.5, 0.5, 0, 0])
    np.testing.assert_array_equal(got.w, np.ones(6))
    # Decisive: battles with a winner, per system.
    np.testing.assert_array_equal(got.decisive, [3, 3, 2])


def test_reads_a_pretty_printed_json_list_streamed(tmp_path, monkeypatch):
    # Tiny chunks and batches force values across chunk and batch boundaries.
    monkeypatch.setattr(jsonstream, "_CHUNK", 7)
    monkeypatch.setattr(battles_module, "_BATCH", 2)
    rows = [*BATTLES, {"model_a": "δέλτα", "model_b": "alpha", "winner": "model_a"}]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(rows, indent=2, ensure_ascii=False), encoding="utf-8")
    got = read_battles(path)
    assert got.names == ["alpha", "beta", "gamma", "δέλτα"]
    np.testing.assert_array_equal(got.y, [1, 0, 0.5, 0.5, 0, 0, 1])


def test_json_lines_across_small_batches_and_blank_lines_keep_line_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr(battles_module, "_BATCH", 2)
    rows = [*BATTLES, {"model_a": "alpha", "model_b": "beta", "winner": "nobody"}]
    path = _jsonl(tmp_path / "b.jsonl", rows, blank_lines=True)
    with pytest.raises(BadInput) as caught:
        read_battles(path)
    # Line 1 is blank, then each row is followed by a blank line.
    assert str(caught.value).startswith(f"{path}:14: winner: ")


def test_native_format_reads_weights_and_outcomes(tmp_path):
    rows = [
        {"a": "x", "b": "y", "y": 1, "w": 0.5},
        {"a": "y", "b": "z", "y": 0.5},
        {"a": "z", "b": "x", "y": 0, "w": 2},
    ]
    got = read_battles(_jsonl(tmp_path / "n.jsonl", rows), fmt="native")
    assert got.names == ["x", "y", "z"]
    np.testing.assert_array_equal(got.y, [1, 0.5, 0])
    np.testing.assert_array_equal(got.w, [0.5, 1, 2])
    np.testing.assert_array_equal(got.decisive, [2, 1, 1])


@pytest.mark.parametrize(
    ("line", "field", "fmt"),
    [
        ('{"model_b": "b", "winner": "tie"}', "model_a", "fastchat-battles"),
        ('{"model_a": 3, "model_b": "b", "winner": "tie"}', "model_a", "fastchat-battles"),
        ('{"model_a": "a", "model_b": "", "winner": "tie"}', "model_b", "fastchat-battles"),
        ('{"model_a": "a", "model_b": "b", "winner": "draw"}', "winner", "fastchat-battles"),
        ('{"model_a": "a", "model_b": "a", "winner": "tie"}', "model_b", "fastchat-battles"),
        ('{"a": "a", "b": "b", "y": 2}', "y", "native"),
        ('{"a": "a", "b": "b", "y": true}', "y", "native"),
        ('{"a": "a", "b": "b", "y": 1, "w": -1}', "w", "native"),
        # NaN is not JSON: refused by the parser, before any field is looked at.
        ('{"a": "a", "b": "b", "y": 1, "w": NaN}', None, "native"),
    ],
)
def test_bad_records_name_file_line_and_field(tmp_path, line, field, fmt):
    good = (
        '{"model_a": "a", "model_b": "b", "winner": "tie"}'
        if fmt == "fastchat-battles"
        else '{"a": "a", "b": "b", "y": 1}'
    )
    path = tmp_path / "bad.jsonl"
    path.write_text(f"{good}\n{good}\n{line}\n{good}\n", encoding="utf-8")
    with pytest.raises(BadInput) as caught:
        read_battles(path, fmt=fmt)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 3, field)


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (b'{"model_a": "a", "model_b": "b", "winner": "tie"}\n{"model_a": \n', 2, "not valid JSON"),
        (b'{"model_a": "a", "model_b": "b", "winner": "tie"}\n[1, 2]\n', 2, "JSON object"),
        (b'{"model_a": "a", "model_b": "b", "winner": "tie"}, {"x": 1}\n', 1, "not valid JSON"),
        (b'{"model_a": "\xff", "model_b": "b", "winner": "tie"}\n', 1, "UTF-8"),
        (b'[{"model_a": "a", "model_b": "b", "winner": "tie"},\n {"model_a": }]', 2, "JSON"),
        (b'[{"model_a": "a", "model_b": "b", "winner": "tie"}\n\n', 3, "expected ','"),
        (b'[{"model_a": "a", "model_b": "b", "winner": "tie"}] x', 1, "after the JSON array"),
    ],
)
def test_malformed_files_name_the_line(tmp_path, content, line, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(BadInput, match=message) as caught:
        read_battles(path)
    assert caught.value.line == line


def test_empty_file_and_unknown_format_are_refused(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(BadInput, match="no battles"):
        read_battles(empty)
    with pytest.raises(BadInput, match="unknown format"):
        read_battles(empty, fmt="csv")
    with pytest.raises(BadInput, match="cannot read"):
        read_battles(tmp_path / "missing.jsonl")


def test_byte_order_mark_and_crlf_are_accepted(tmp_path):
    path = tmp_path / "bom.jsonl"
    text = "\r\n".join(json.dumps(row) for row in BATTLES) + "\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert read_battles(path).a.size == 6


def test_fit_battles_returns_the_json_ready_leaderboard(tmp_path):
    path = _jsonl(tmp_path / "b.jsonl", BATTLES * 3)
    board = fit_battles(path, anchor="beta", penalty=0.0, base=1200.0)
    assert board["anchor"] == "beta" and board["anchor_reason"] == "requested"
    assert board["penalty"] == 0.0
    systems = {row["system"]: row for row in board["systems"]}
    assert systems["beta"]["points"] == 1200.0
    assert [row["system"] for row in board["systems"]] == ["alpha", "gamma", "beta"]
    assert [row["rank"] for row in board["systems"]] == [1, 2, 3]
    assert set(board["systems"][0]) == {
        "system",
        "points",
        "rank",
        "unranked",
        "status",
        "decisive_votes",
    }
    json.dumps(board, allow_nan=False)


def test_fit_battles_lists_unranked_systems_last_without_points(tmp_path):
    rows = [*BATTLES, {"model_a": "delta", "model_b": "epsilon", "winner": "model_a"}]
    board = fit_battles(_jsonl(tmp_path / "b.jsonl", rows), anchor="nobody")
    assert board["anchor"] == "beta"  # the most-voted: in 5 of the 7 battles
    assert board["anchor_reason"] == "requested_has_no_comparisons"
    tail = board["systems"][-2:]
    assert [row["system"] for row in tail] == ["delta", "epsilon"]
    assert all(row["unranked"] and row["points"] is None and row["rank"] is None for row in tail)


def test_fit_battles_matches_fit_points_on_the_same_arrays(tmp_path):
    from fitting import fit_points

    rng = np.random.default_rng(0)
    names = [f"m{i}" for i in range(5)]
    rows = []
    for _ in range(400):
        i, j = rng.choice(5, 2, replace=False)
        rows.append(
            {
                "model_a": names[i],
                "model_b": names[j],
                "winner": str(rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"])),
            }
        )
    path = _jsonl(tmp_path / "b.jsonl", rows)
    board = fit_battles(path, anchor="m0")
    got = read_battles(path)
    direct = fit_points(got.a, got.b, got.y, n_systems=5, anchor=got.names.index("m0"))
    for row in board["systems"]:
        expected = direct.points[got.names.index(row["system"])]
        assert math.isclose(row["points"], expected)
