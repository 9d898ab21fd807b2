"""`arena-gui` opens the ledger the user named: --ledger, else $ARENA_LEDGER, else the last."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from arena.ui import app  # noqa: E402


@pytest.fixture
def started(monkeypatch, tmp_path, make_settings):
    """What `arena-gui` would open, given its command line, with one ledger in its recents."""
    last = tmp_path / "last.sqlite"
    last.touch()
    settings = make_settings()
    settings.remember_ledger(str(last))
    monkeypatch.setattr(app, "Settings", lambda: settings)
    monkeypatch.delenv("ARENA_LEDGER", raising=False)
    opened = {}

    def run(argv, *, ledger_path, family=None, rater=None):
        opened.update(argv=argv, ledger=ledger_path, family=family, rater=rater)
        return 0

    monkeypatch.setattr(app, "run", run)

    def start(*args: str) -> dict:
        monkeypatch.setattr(sys, "argv", ["arena-gui", *args])
        assert app.main() == 0
        return opened

    start.last = last
    return start


def test_without_a_name_the_last_ledger_opens(started):
    assert started()["ledger"] == started.last


def test_the_ledger_flag_opens_that_ledger_and_family(started, tmp_path):
    opened = started("--ledger", str(tmp_path / "team.sqlite"), "--family", "jmt")
    assert (opened["ledger"], opened["family"]) == (tmp_path / "team.sqlite", "jmt")


def test_the_environment_names_the_ledger(started, tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_LEDGER", str(tmp_path / "env.sqlite"))
    assert started()["ledger"] == tmp_path / "env.sqlite"
    # The flag wins over the environment.
    assert started("--ledger", str(tmp_path / "flag.sqlite"))["ledger"] == tmp_path / "flag.sqlite"


def test_qt_options_pass_through_to_the_application(started, tmp_path):
    opened = started("-style", "fusion", "--ledger", str(tmp_path / "a.sqlite"))
    assert opened["argv"] == ["arena-gui", "-style", "fusion"]


def test_the_title_names_the_ledger_and_its_folder(tmp_path, monkeypatch):
    from arena.ui.main_window import ledger_title

    monkeypatch.setenv("HOME", str(tmp_path))
    evals = tmp_path / "evals" / "arena.sqlite"
    assert ledger_title(evals, read_only=False) == "arena.sqlite (~/evals) — Arena"
    assert ledger_title(tmp_path / "a.sqlite", read_only=True) == "a.sqlite (~) (read-only) — Arena"
    elsewhere = Path("/srv/team/arena.sqlite")
    assert ledger_title(elsewhere, read_only=False) == "arena.sqlite (/srv/team) — Arena"
