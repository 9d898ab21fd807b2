"""Rounds stored by an earlier Arena, closed again today on copies of their ledgers: the
same boards, byte for byte.

``tests/fixtures/boards_before/ledgers.tar.xz`` holds two ledgers built and closed by the
commit its README names (the demo, and small families of every kind: votes with coverage
and adaptive pairs, categories, a pooled round with judges, tests, tests_then_votes,
graded). Each stored round is closed again afresh (``same_round.close_again``) and compared
with the stored one (``same_round.differences``): settings, results, comparisons, receipts
and what ``arena round show`` prints. Only the round's id, its time of closing and the case
set's link to the family's previous round are left out.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from arena.ledger import Ledger
from arena.rounds.closing import close_round, find_round
from tests.fixtures.boards_before.same_round import (
    _without_sequence,
    close,
    close_again,
    differences,
    round_ids,
)

ARCHIVE = Path(__file__).resolve().parents[1] / "fixtures" / "boards_before" / "ledgers.tar.xz"


def _unpacked(folder: Path) -> Path:
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(folder, filter="data")
    return folder


# The family two raters voted on: its round now adds each rater's figures (and shows them:
# every view of the round differs, the rest is the same).
TEAM = "cover"


# The family pooled with a model judge: its board is now prediction-powered, so its
# judges' record (settings), its board and every view differ; its comparisons do not.
POOLED = "pooled"


def _expected(family: str, found: list[str]) -> list[str]:
    if family == POOLED:
        return [name for name in found if name in ("settings", "results") or "show" in name]
    if family != TEAM:
        return []
    shown = [name for name in found if name.startswith("round show")]
    return ["results", *shown] if "round show --json" in shown else ["results", "round show --json"]


@pytest.mark.parametrize("name", ["demo.sqlite", "families.sqlite"])
def test_every_stored_round_closes_again_to_the_same_board(tmp_path, name):
    ledger = _unpacked(tmp_path) / name
    stored = round_ids(ledger)
    assert len(stored) >= 4
    found = {
        (family, before[:12]): differences(ledger, before, close_again(ledger, before))
        for before, family in stored
    }
    assert found == {key: _expected(key[0], value) for key, value in found.items()}


def _results(path: Path, round_id: str) -> dict:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        (results,) = db.execute(
            "SELECT results FROM rounds WHERE round_id = ?", [round_id]
        ).fetchone()
    return json.loads(_without_sequence(results))


def test_a_team_round_closes_again_the_same_but_for_each_raters_figures(tmp_path):
    ledger = _unpacked(tmp_path) / "families.sqlite"
    rounds = [r for r, family in round_ids(ledger) if family == TEAM]
    assert rounds
    for before in rounds:
        old, new = _results(ledger, before), _results(ledger, close_again(ledger, before))
        raters = new["summary"].pop("raters")
        assert "raters" not in old["summary"]
        assert close(
            {k: v for k, v in new.items() if k != "round"},
            {k: v for k, v in old.items() if k != "round"},
        )
        assert [r["rater"] for r in raters] == ["ana", "ben"]
        assert sum(r["votes"] for r in raters) == sum(s["votes"] for s in new["systems"]) // 2


def test_a_round_closed_with_another_figure_is_told_apart(tmp_path):
    ledger = _unpacked(tmp_path) / "families.sqlite"
    before = round_ids(ledger)[0][0]
    with Ledger.open(ledger) as opened:
        stored = find_round(opened, before)
        assert stored is not None
        settings = dataclasses.replace(stored.settings, penalty=stored.settings.penalty * 2)
        after = close_round(opened, stored.family, settings).round_id
    found = differences(ledger, before, after)
    assert "settings" in found and "results" in found and "round show" in found
