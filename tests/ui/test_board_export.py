"""Exporting the board shown: CSV read back, PNG and SVG written."""

from __future__ import annotations

import csv

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QMessageBox

from arena.rounds.model import RoundSettings
from arena.ui import dialogs
from arena.ui.board import close_round_dialog


@pytest.fixture
def board_window(open_window, board_ledger, monkeypatch):
    """The prose board after a round closed from the window."""
    monkeypatch.setattr(
        close_round_dialog, "ask_round_settings", lambda *_: RoundSettings(penalty=0.02)
    )
    window = open_window(board_ledger)
    window.families.select("prose")
    assert window.round_actions.close_round()
    return window


@pytest.fixture
def save_to(monkeypatch):
    """Answer the save dialog with a path."""

    def answer(path):
        monkeypatch.setattr(dialogs, "ask_save_path", lambda *_: path)
        return path

    return answer


def test_the_csv_is_the_visible_board(board_window, save_to, tmp_path):
    path = save_to(tmp_path / "board.csv")
    assert board_window.round_actions.export_csv()
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    found = board_window.board.found.to_json()
    ranked = [r for r in found["systems"] if not r["unranked"]]
    assert [r["System"] for r in rows] == [r["label"] for r in ranked]
    points = next(k for k in rows[0] if k.startswith("Points"))
    assert [r[points] for r in rows] == [f"{r['points']:.0f}" for r in ranked]
    assert [r["Rank"] for r in rows] == [str(r["rank"]) for r in ranked]
    assert rows[2]["p50 latency"] == ""  # missing values are empty cells
    assert rows[2]["Marks"] == "far behind"
    assert list(rows[0]) == [
        "Rank",
        "System",
        points,
        "Marks",
        "Votes",
        "Both bad",
        "Gate failures",
        "Cost / output",
        "p50 latency",
    ]
    assert "Board written to" in board_window.statusBar().currentMessage()


def test_a_category_csv_names_the_family_wide_columns(board_window, save_to, tmp_path):
    board_window.board.choose_category("code")
    path = save_to(tmp_path / "code.csv")
    assert board_window.round_actions.export_csv()
    header = next(csv.reader(open(path, encoding="utf-8")))
    assert "Votes (all categories)" in header and "Rank" in header


def test_png_and_svg_images_are_written(board_window, save_to, tmp_path):
    for name in ("board.png", "board.svg"):
        path = save_to(tmp_path / name)
        assert board_window.round_actions.export_image()
        assert path.stat().st_size > 2_000
    image = QImage(str(tmp_path / "board.png"))
    assert image.width() > 1000 and image.height() > 300
    svg = (tmp_path / "board.svg").read_text(encoding="utf-8")
    assert "<svg" in svg and "prose — leaderboard" in svg and "far behind" in svg


def test_an_export_that_cannot_be_written_is_shown_as_an_error(board_window, save_to, tmp_path):
    save_to(tmp_path / "missing-folder" / "board.csv")
    assert board_window.round_actions.export_csv() is False
    boxes = [b for b in board_window.findChildren(QMessageBox) if b.objectName() == "arena-error"]
    assert boxes and "The board was not exported" in boxes[-1].text()
