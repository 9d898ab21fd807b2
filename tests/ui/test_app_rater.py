"""`arena-gui --rater NAME` names who is voting; a name Arena refuses stops it at once."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("PySide6")

from arena.ui import app  # noqa: E402


@pytest.fixture
def started(monkeypatch, tmp_path):
    """What `arena-gui` would open, given its command line."""
    opened = {}

    def run(argv, *, ledger_path, family=None, rater=None):
        opened.update(ledger=ledger_path, family=family, rater=rater)
        return 0

    monkeypatch.setattr(app, "run", run)

    def start(*args: str) -> dict:
        monkeypatch.setattr(
            sys, "argv", ["arena-gui", "--ledger", str(tmp_path / "l.sqlite"), *args]
        )
        assert app.main() == 0
        return opened

    return start


def test_the_rater_flag_reaches_the_window(started):
    assert started("--family", "team", "--rater", "dana")["rater"] == "dana"
    assert started()["rater"] is None  # the window finds out: remembered, or asked


@pytest.mark.parametrize("name", ["", "settler", "da\tna"])
def test_a_name_arena_refuses_stops_it(started, capsys, name):
    with pytest.raises(SystemExit) as stopped:
        started("--rater", name)
    assert stopped.value.code == 2 and "--rater: " in capsys.readouterr().err
