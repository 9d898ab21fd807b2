"""`arena collect` killed (SIGKILL) at random moments, then run to the end: every
(case, system, sample) has exactly one output, and no output or vote is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.ledger import Ledger, catalog, voting
from arena.rating.session import RatingSession
from tests.collecting.helpers import KEY, make_family
from tests.graded.fake_endpoint import Echo, FakeEndpoint


def _collect(ledger_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ARENA_COLLECT_TEST_KEY": KEY}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "--ledger",
            str(ledger_path),
            "collect",
            "--family",
            "fam",
            "--workers",
            "8",
            "--timeout",
            "10",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _vote_once(ledger_path: Path) -> bool:
    """Vote on the next pair, if there is one yet (the rater between two runs)."""
    with Ledger.open(ledger_path) as ledger:
        session = RatingSession(ledger, "fam", seed=5)
        if session.current() is None:
            return False
        session.vote(random.choice(["left", "right", "tie"]))
        return True


def _stored(ledger_path: Path) -> int:
    with Ledger.open(ledger_path, readonly=True) as ledger:
        return catalog.count_outputs(ledger, "fam")


def _wait_for(run: subprocess.Popen[bytes], ledger_path: Path, outputs: int) -> None:
    """Until the ledger holds ``outputs`` outputs (or the run has ended)."""
    deadline = time.monotonic() + 60
    while run.poll() is None and time.monotonic() < deadline:
        if _stored(ledger_path) >= outputs:
            return
        time.sleep(0.02)


def _kill_and_resume(ledger_path: Path, tmp_path: Path, *, cases: int, kills: int, seed: int):
    rng = random.Random(seed)
    voted = 0
    stored_after_kills: list[int] = []
    with FakeEndpoint(default=Echo(delay=0.05)) as server:
        make_family(ledger_path, tmp_path, server.url, cases=cases)
        for kill in range(kills):
            run = _collect(ledger_path)
            stored = _stored(ledger_path)
            left = 2 * cases - stored
            if kill == 0 or left <= 4:
                time.sleep(rng.uniform(0.05, 0.5))  # before the ledger is open, or soon after
            else:  # with part of the work stored: a number of answers, not a time
                _wait_for(run, ledger_path, stored + rng.randint(1, left - 4))
            run.send_signal(signal.SIGKILL)
            run.wait()
            with Ledger.open(ledger_path, readonly=True) as ledger:
                stored_after_kills.append(catalog.count_outputs(ledger, "fam"))
            voted += _vote_once(ledger_path)
        final = _collect(ledger_path)
        _, err = final.communicate(timeout=300)
        assert final.returncode == 0, err.decode()
        asked = len(server.requests)
    with Ledger.open(ledger_path, readonly=True) as ledger:
        outputs = catalog.outputs(ledger, "fam")
        votes = voting.votes_in_force(ledger, "fam")
    counts = Counter((o.case_id, o.system_id, o.sample) for o in outputs)
    assert len(counts) == 2 * cases and set(counts.values()) == {1}
    assert len(votes) == voted
    check = subprocess.run(
        [sys.executable, "-m", "arena", "--ledger", str(ledger_path), "check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    # Some run was killed with part of the work stored (the case this test is for).
    assert any(0 < n < 2 * cases for n in stored_after_kills), stored_after_kills
    return asked, voted


def test_killed_runs_resume_with_every_output_once(ledger_path, tmp_path):
    asked, _ = _kill_and_resume(ledger_path, tmp_path, cases=30, kills=3, seed=1)
    assert asked >= 2 * 30 * 2  # every turn asked at least once


@pytest.mark.slow
def test_twenty_kills_of_a_two_by_eighty_collect_lose_and_repeat_nothing(ledger_path, tmp_path):
    asked, voted = _kill_and_resume(ledger_path, tmp_path, cases=80, kills=20, seed=33)
    assert asked >= 2 * 80 * 2 and voted >= 1
