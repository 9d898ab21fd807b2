"""SIGKILL at random moments of the rater's vote path: no acknowledged vote is ever lost.

The child (kill_child.py) votes through ``RatingSession.current()/vote()/skip()/undo()``,
the functions the window calls, and says which vote it is about to write and which
ones returned. After each kill the parent checks, on the same ledger file:

- every acknowledged vote (and undo) is in the ledger;
- ``arena check`` (integrity_check, foreign keys, every hash chain) finds nothing;
- the vote that was being written when the kill landed, retried with the very same
  ``Vote``, is ``already_recorded`` when it had been committed and ``recorded`` when
  not, and is stored exactly once.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.ledger import Ledger, voting
from arena.ledger.integrity import check
from arena.records import Vote
from tests.conftest import copy_ledger

from .kill_child import child_main

FAMILY = "rel"
CHILD = Path(__file__).with_name("kill_child.py")
# Kills per ledger copy: each child's session reads the whole history when it starts,
# so a fresh copy keeps every child's start fast.
KILLS_PER_LEDGER = 40


def _fork_child(path: Path, seed: int) -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: vote until killed, never return into pytest
        code = 0
        try:
            os.close(read_fd)
            child_main(str(path), FAMILY, seed, write_fd)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


def _read_until(fd: int, buffer: bytearray, marker: bytes, deadline: float) -> bool:
    while marker not in buffer:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                return marker in buffer
            buffer += chunk
    return True


def _drain(fd: int, buffer: bytearray) -> None:
    while chunk := os.read(fd, 65536):
        buffer += chunk
    os.close(fd)


class Outcome:
    """What the child said before it died."""

    def __init__(self, text: str) -> None:
        self.acked: list[str] = []
        self.undone: list[str] = []
        self.pending: Vote | None = None
        self.ended = False
        for line in text.splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "P":
                try:
                    self.pending = Vote(**json.loads(rest))
                except ValueError:  # the kill cut the line: the write had not begun
                    self.pending = None
            elif kind == "A":
                assert self.pending is not None and self.pending.vote_id == rest
                self.acked.append(rest)
                self.pending = None
            elif kind == "U":
                self.undone.append(rest)
            elif kind == "END":
                self.ended = True


def _kill_once(path: Path, rng: random.Random, *, spawn: str = "fork") -> Outcome:
    seed = rng.randrange(2**31)
    buffer = bytearray()
    if spawn == "fork":
        pid, fd = _fork_child(path, seed)
        proc = None
    else:
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(path), FAMILY, str(seed)], stdout=subprocess.PIPE
        )
        pid, fd = proc.pid, proc.stdout.fileno()
    if rng.random() < 0.1:
        # Sometimes while it opens the ledger and starts its session.
        time.sleep(rng.uniform(0, 0.05))
    else:
        assert _read_until(fd, buffer, b"READY\n", time.monotonic() + 30), "child never ready"
        time.sleep(rng.uniform(0, 0.15))
    os.kill(pid, signal.SIGKILL)
    if proc is None:
        os.waitpid(pid, 0)
        _drain(fd, buffer)
    else:
        buffer += proc.stdout.read()
        proc.wait()
    return Outcome(buffer.decode("utf-8", errors="replace"))


def _after_kill(path: Path, outcome: Outcome, figures) -> None:
    with Ledger.open(path) as ledger:
        assert check(ledger) == [], "the ledger is damaged after a kill"
        stored = {r[0] for r in ledger.db.execute("SELECT vote_id FROM votes")}
        retracted = {r[0] for r in ledger.db.execute("SELECT vote_id FROM retractions")}
        lost = [v for v in outcome.acked if v not in stored]
        figures["acknowledged_votes"] += len(outcome.acked)
        figures["acknowledged_votes_lost"] += len(lost)
        figures["acknowledged_undos"] += len(outcome.undone)
        figures["acknowledged_undos_lost"] += len(set(outcome.undone) - retracted)
        assert not lost, f"acknowledged votes lost: {lost}"
        assert set(outcome.undone) <= retracted, "an acknowledged undo was lost"
        if outcome.pending is not None:
            vote = outcome.pending
            committed = vote.vote_id in stored
            result = voting.record_vote(ledger, vote)
            assert result == ("already_recorded" if committed else "recorded")
            (count,) = ledger.db.execute(
                "SELECT COUNT(*) FROM votes WHERE vote_id = ?", [vote.vote_id]
            ).fetchone()
            assert count == 1
            figures[
                "committed_unacknowledged_recognised"
                if committed
                else "uncommitted_retried_recorded"
            ] += 1
        assert check(ledger) == []


def _run(tmp_path: Path, template: Path, kills: int, seed: int, figures) -> None:
    rng = random.Random(seed)
    path = None
    for n in range(kills):
        if n % KILLS_PER_LEDGER == 0:
            path = copy_ledger(template, tmp_path / f"ledger{n}.sqlite")
        outcome = _kill_once(path, rng)
        figures["kills"] += 1
        _after_kill(path, outcome, figures)
        if outcome.ended:  # every pair voted: go on with a fresh copy
            path = copy_ledger(template, tmp_path / f"ledger{n}-fresh.sqlite")


def test_sigkill_during_voting_loses_no_acknowledged_vote(tmp_path, template_ledger, figures):
    _run(tmp_path, template_ledger, kills=30, seed=8, figures=figures)
    assert figures["acknowledged_votes"] > 0


def test_sigkill_of_a_fresh_interpreter_loses_nothing(tmp_path, template_ledger, figures):
    """The same harness once through a real `python kill_child.py` (no fork)."""
    path = copy_ledger(template_ledger, tmp_path / "ledger.sqlite")
    rng = random.Random(1)
    for _ in range(2):
        outcome = _kill_once(path, rng, spawn="exec")
        figures["kills"] += 1
        _after_kill(path, outcome, figures)


@pytest.mark.slow
def test_sigkill_during_voting_full(tmp_path, template_ledger, figures):
    _run(tmp_path, template_ledger, kills=240, seed=2026, figures=figures)
    assert (
        figures["committed_unacknowledged_recognised"] + figures["uncommitted_retried_recorded"] > 0
    )
