"""A stored round read as typed records and written back gives the very bytes the ledger
holds: rounds closed today, rounds closed by an earlier Arena (tests/fixtures), and rounds
closed before the newer keys were recorded."""

from __future__ import annotations

import copy
import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.cli.round_text import print_round
from arena.ledger import Ledger, events
from arena.ledger.round_store import find_round
from arena.rounds.closing import close_round
from arena.rounds.model import UNCERTAINTY_FIELDS, Round, RoundSettings
from arena.rounds.round_records import RoundEvent, describe_events
from tests.rounds import pooled_ledger as pl
from tests.ui.board_data import build_board_ledger

BEFORE = Path(__file__).resolve().parents[1] / "fixtures" / "boards_before" / "ledgers.tar.xz"
# As round_store.add_round writes a round's two columns.
LEFT_OUT_OF_RESULTS = ("round", "family", "closed_at", "settings")


def _columns(round_json: dict) -> tuple[str, str]:
    results = {k: v for k, v in round_json.items() if k not in LEFT_OUT_OF_RESULTS}
    return (
        json.dumps(round_json["settings"], ensure_ascii=False, sort_keys=True),
        json.dumps(results, ensure_ascii=False, sort_keys=True, allow_nan=False),
    )


def _stored_columns(path: Path) -> dict[str, tuple[str, str]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT round_id, settings, results FROM rounds").fetchall()
    return {round_id: (settings, results) for round_id, settings, results in rows}


def _round_trips(path: Path) -> int:
    """Every round of the ledger at ``path`` read and written back: the stored bytes."""
    stored = _stored_columns(path)
    with Ledger.open(path) as ledger:
        for round_id, columns in stored.items():
            found = find_round(ledger, round_id)
            assert found is not None
            again = Round.from_json(found).to_json()
            assert _columns(again) == columns, round_id
            # Read as stored, the records print in the ledger's order of keys.
            assert again == found and list(again) == list(Round.from_json(again).to_json())
    return len(stored)


@pytest.fixture
def today(tmp_path: Path) -> Path:
    """Rounds of every record closed today: corrections and categories (``prose``), a
    tested family (``patches``), and a round pooled with two judges (intervals)."""
    path = build_board_ledger(tmp_path / "board.sqlite", tmp_path)
    with Ledger.open(path) as ledger:
        events.add_event(ledger, "prose", "retire_case", case_id="e2")
        close_round(ledger, "prose", RoundSettings())
        close_round(ledger, "prose", RoundSettings(weighting="ledger", penalty=0.0, seed=3))
        close_round(ledger, "patches", RoundSettings())
        pl.build(ledger, tmp_path)
        pl.add_judges(ledger, tmp_path)
        close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("colleague", "llm")))
    return path


def test_rounds_closed_today_round_trip_to_the_stored_bytes(today):
    assert _round_trips(today) == 4


@pytest.mark.skipif(not BEFORE.is_file(), reason="no rounds closed by an earlier Arena")
@pytest.mark.parametrize("name", ["demo.sqlite", "families.sqlite"])
def test_rounds_closed_by_an_earlier_arena_round_trip_to_the_stored_bytes(tmp_path, name):
    with tarfile.open(BEFORE) as tar:
        tar.extractall(tmp_path, filter="data")
    assert _round_trips(tmp_path / name) >= 4


def _older(shown: dict) -> dict:
    """``shown`` as a round closed before Arena recorded its newer keys."""
    old = copy.deepcopy(shown)
    for key in ("method", "coverage", "seeds", "case_set", "agents", "family", "pairs"):
        old["settings"].pop(key, None)
    del old["case_ids"]
    for board in (old, *old["categories"].values()):
        board.pop("uncertainty")
        board["anchor"].pop("fallback")
        for row in board["systems"]:
            for key in ("ci95", "category_votes", "category_both_bad_share"):
                row.pop(key, None)
    summary = old["summary"]
    for key in ("settled", "unavailable", "length_bias_standard_error", *UNCERTAINTY_FIELDS):
        summary.pop(key)
    del summary["within_session_tau"], old["kind"], old["settings"]["seed"]
    old["settings"].pop("events")
    return old


def test_a_round_closed_before_the_newer_keys_reads_and_writes_back_as_stored(today, capsys):
    with Ledger.open(today) as ledger:
        shown = Round.from_json(find_round(ledger, family="prose")).to_json()
    old = _older(shown)
    found = Round.from_json(old)
    assert found.to_json() == old and _columns(found.to_json()) == _columns(old)
    assert found.settings_record is None and found.board.uncertainty is None
    assert found.summary.settled is None and found.board.anchor.fallback is None
    print_round(found)
    text = capsys.readouterr().out
    assert "  corrections: 0 in force at closing\n" in text
    assert "  not recorded: this round was closed before Arena recorded" in text
    assert "settled without a vote" not in text
    # An uncertainty recorded before judges could be pooled: no judges in its regime.
    sure = json.loads(json.dumps(shown["uncertainty"]))
    del sure["regime"]["judges"], sure["region"]["max_judges"]
    older = {**shown, "uncertainty": sure}
    again = Round.from_json(older).to_json()
    assert again["uncertainty"] == sure and _columns(again) == _columns(older)


def test_round_show_says_which_corrections_were_in_force(today, capsys):
    assert main(["--ledger", str(today), "round", "show", "--family", "prose"]) == 0
    text = capsys.readouterr().out
    assert "  corrections: 2 in force at closing: 2 cases retired\n" in text
    assert "{" not in text


def test_corrections_are_counted_by_kind_most_first():
    def event(kind: str, n: int) -> RoundEvent:
        return RoundEvent(f"e{n}", kind, "rater", "2026-12-01T10:00:00Z", None)

    kinds = ["overrule", "retire_case", "overrule", "remove_output", "set_language"]
    assert describe_events(event(k, n) for n, k in enumerate(kinds)) == (
        "5 in force at closing: 2 gate verdicts overruled, 1 output removed, 1 case retired, "
        "1 case language set"
    )
    assert describe_events([]) == "0 in force at closing"
