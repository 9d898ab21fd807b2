"""Other faults: a full disk, a read-only ledger, two windows, a ledger from a newer Arena.

tests/ledger/test_ledger_connection.py already covers a second writer process being refused
(LedgerLocked) and LedgerTooNew at the API level; here: what the rater and the
command line see.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.cli.main import main as arena_main
from arena.errors import ArenaError, HeadFileNotUpdated, LedgerError, LedgerLocked
from arena.ledger import Ledger, connection, voting
from arena.ledger.integrity import check
from arena.ledger.schema import SCHEMA_VERSION
from arena.rating.session import RatingSession
from tests.conftest import copy_ledger

from .helpers import build_ledger, family_lines

FULL = "database or disk is full"


@pytest.fixture
def small(tmp_path_factory) -> Path:
    return build_ledger(
        tmp_path_factory.mktemp("small") / "small.sqlite", family="fz", n_systems=3, n_cases=5
    )


def _vote_until_full(session: RatingSession) -> Exception:
    for _ in range(10_000):
        try:
            session.vote("left")
        except HeadFileNotUpdated:
            continue  # the vote is in; only the head file beside it could not follow
        except sqlite3.OperationalError as exc:
            return exc
    raise AssertionError("the disk never filled")


def _assert_refused_vote_left_nothing(
    ledger: Ledger, session: RatingSession, error: Exception
) -> str | None:
    """Nothing of the refused write is in the ledger; the presentation kept on screen, if
    the refused write was a vote (None: it was the next pair's presentation)."""
    # The error says what happened; the window shows it as "Nothing was recorded: ..."
    # (arena/ui/operations.py WRITE_ERRORS).
    assert FULL in str(error)
    votes = ledger.db["votes"].count
    try:
        view = session.current()
    except sqlite3.OperationalError as again:
        # The disk filled on the next pair's presentation, before any vote on it: that
        # pair cannot be shown, and nothing of it was written.
        assert FULL in str(again) and ledger.db["votes"].count == votes
        return None
    assert view is not None, "the session left the pair"
    assert voting.vote_on(ledger, view.presentation.presentation_id) is None, (
        "the refused vote is in the ledger"
    )
    return view.presentation.presentation_id


def test_disk_full_during_a_vote_keeps_the_pair_and_records_nothing(tmp_path, template_ledger):
    path = copy_ledger(template_ledger, tmp_path / "ledger.sqlite")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "rel", seed=2)
        session.vote("left")
        assert session.current() is not None
        (pages,) = ledger.db.execute("PRAGMA page_count").fetchone()
        ledger.db.execute(f"PRAGMA max_page_count = {pages}")
        # Fill what is left of the last pages, so the next vote needs a new page.
        error = _vote_until_full(session)
        kept = _assert_refused_vote_left_nothing(ledger, session, error)
        ledger.db.execute("PRAGMA max_page_count = 1073741823")
        vote = session.vote("right")  # space again: the same pair, recorded once
        assert kept is None or vote.presentation_id == kept
        assert voting.get_vote(ledger, vote.vote_id) == vote
        assert check(ledger) == []


@contextmanager
def _tmpfs(where: Path, size: str):
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_really_full_disk_keeps_the_pair_and_records_nothing(tmp_path, small):
    """The same on a real file system that runs out of space (a 2 MB tmpfs, filled but
    for 96 kB; the filler taken away then leaves room to go on)."""
    with _tmpfs(tmp_path / "tiny", "2m") as tiny:
        path = copy_ledger(small, tiny / "ledger.sqlite")
        with Ledger.open(path) as ledger:
            session = RatingSession(ledger, "fz", seed=2)
            filler = tiny / "filler"
            free = os.statvfs(tiny).f_bavail * os.statvfs(tiny).f_frsize
            filler.write_bytes(b"\0" * max(0, free - 96 * 1024))
            error = _vote_until_full(session)
            _assert_refused_vote_left_nothing(ledger, session, error)
            filler.unlink()
            vote = session.vote("tie")
            assert voting.get_vote(ledger, vote.vote_id) == vote
            assert check(ledger) == []


def test_the_cli_reports_a_full_disk_in_one_line(tmp_path, small, monkeypatch, capsys):
    path = copy_ledger(small, tmp_path / "ledger.sqlite")
    source = tmp_path / "big.jsonl"
    source.write_text("\n".join(family_lines(4, 300)) + "\n", encoding="utf-8")
    apply = connection._apply_pragmas

    def tiny_disk(conn, *, readonly):
        apply(conn, readonly=readonly)
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(connection, "_apply_pragmas", tiny_disk)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    code = arena_main(["--ledger", str(path), "import", str(source), "--family", "big", "--create"])
    assert code != 0
    assert FULL in capsys.readouterr().err
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


# ---------------------------------------------------------------------------------------
# Read-only ledgers


def test_a_read_only_ledger_file_is_refused_for_writing_and_opens_for_reading(tmp_path, small):
    if os.geteuid() == 0:
        pytest.skip("root writes through file modes; see the read-only file system test")
    path = copy_ledger(small, tmp_path / "ledger.sqlite")
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # 0444
    with pytest.raises(LedgerError, match="readonly|read-only"):
        Ledger.open(path)
    with Ledger.open(path, readonly=True) as reader:
        assert check(reader) == []


@pytest.fixture
def read_only_fs(tmp_path, small):
    """The ledger on a file system mounted read-only (a tmpfs, remounted ro)."""
    with _tmpfs(tmp_path / "ro", "4m") as where:
        path = copy_ledger(small, where / "ledger.sqlite")
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        yield path


def test_opening_for_writing_on_a_read_only_file_system_is_refused_clearly(read_only_fs):
    with pytest.raises(ArenaError, match="read-only|readonly"):
        Ledger.open(read_only_fs)


def test_a_ledger_on_a_read_only_file_system_opens_for_reading(read_only_fs):
    with Ledger.open(read_only_fs, readonly=True) as reader:
        assert check(reader) == []


# ---------------------------------------------------------------------------------------
# Two windows; a newer ledger


def test_a_second_window_is_refused_while_the_first_keeps_voting(tmp_path, small):
    """Two processes: this one rates; `arena init` in another is refused (exit 3)."""
    path = copy_ledger(small, tmp_path / "ledger.sqlite")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "fz", seed=1)
        session.vote("left")
        done = subprocess.run(
            [sys.executable, "-m", "arena", "--ledger", str(path), "init"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == LedgerLocked.exit_code == 3
        assert "open for writing in another Arena process" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        session.vote("right")  # the first window is unaffected
        assert check(ledger) == []
        assert len(voting.votes_in_force(ledger, "fz")) == 2


def test_a_ledger_from_a_newer_arena_is_refused_and_never_migrated_down(tmp_path, small, capsys):
    path = copy_ledger(small, tmp_path / "ledger.sqlite")
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    for command in (["init"], ["status"], ["check"]):
        assert arena_main(["--ledger", str(path), *command]) == 3
        err = capsys.readouterr().err
        assert f"schema version {SCHEMA_VERSION + 1}" in err, err
        assert len(err.strip().splitlines()) == 1
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    conn.close()


def test_a_full_disk_after_the_commit_says_recorded_and_a_second_press_adds_nothing(
    tmp_path, template_ledger, monkeypatch
):
    from arena.ledger import heads

    path = copy_ledger(template_ledger, tmp_path / "ledger.sqlite")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "rel", seed=2)
        shown = session.current().presentation.presentation_id
        votes = ledger.db["votes"].count

        def full(*_args):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(heads, "write", full)
        with pytest.raises(HeadFileNotUpdated, match="^recorded"):
            session.vote("left")
        assert ledger.db["votes"].count == votes + 1  # committed, and said so
        monkeypatch.undo()
        # The rater presses again on the same pair: the first vote stands, nothing is added.
        again = session.vote("right")
        assert (again.presentation_id, again.choice) == (shown, "left")
        assert ledger.db["votes"].count == votes + 1
        assert session.current().presentation.presentation_id != shown
        session.vote("tie")  # the next write brings the head file up to date
        assert check(ledger) == []


def test_one_vote_in_force_per_presentation_even_through_sql(tmp_path, template_ledger):
    import dataclasses
    import sqlite3

    path = copy_ledger(template_ledger, tmp_path / "ledger.sqlite")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "rel", seed=2)
        first = session.vote("left")
        second = dataclasses.replace(first, vote_id=voting.new_id(), choice="right")
        with pytest.raises(voting.AlreadyVoted):
            voting.record_vote(ledger, second)
        row = dict(next(iter(ledger.db["votes"].rows_where("vote_id = ?", [first.vote_id]))))
        row.update(seq=None, vote_id="forged", choice="right")
        with pytest.raises(sqlite3.IntegrityError, match="already has a vote in force"):
            ledger.db["votes"].insert(row)
        voting.retract(ledger, first.vote_id)  # undo: the same presentation votes again
        assert voting.record_vote(ledger, second) == "recorded"
