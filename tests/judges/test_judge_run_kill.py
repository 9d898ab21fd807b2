"""`arena judges run` killed (SIGKILL) at random moments, then run to the end: every (item,
order) judged exactly once, unparsed replies kept as such, and the key in no file."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.ledger import Ledger, judge_runs, judge_store
from tests.collecting.helpers import KEY
from tests.graded.fake_endpoint import FakeEndpoint, Judging
from tests.judges.judge_run_helpers import KEY_ENV, answered_family, judge_file


def _judge(ledger_path: Path, judges: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "--ledger", str(ledger_path), "judges", "run",
         "--family", "fam", "--judge", "gpt-judge", "--systems", str(judges), "--workers", "8",
         "--timeout", "10", "--json"],
        env={**os.environ, KEY_ENV: KEY},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _stored(ledger_path: Path) -> int:
    with Ledger.open(ledger_path, readonly=True) as ledger:
        return len(judge_runs.replies(ledger, "fam"))


def _forms(secret: str) -> list[bytes]:
    return [
        secret.encode(),
        json.dumps(secret)[1:-1].encode(),
        "".join(f"\\u{ord(c):04x}" for c in secret).encode(),
    ]


def _kill_and_resume(ledger_path: Path, tmp_path: Path, monkeypatch, *, cases: int, kills: int):
    monkeypatch.setenv(KEY_ENV, KEY)
    rng = random.Random(kills)
    orders = 2 * cases  # two systems: one item a case, asked both ways round
    answered_family(ledger_path, tmp_path, cases=cases)
    after_kills = []
    with FakeEndpoint(default=Judging(delay=0.03, unparsed_every=7)) as server:
        judges = judge_file(tmp_path, server.url)
        for _ in range(kills):
            run = _judge(ledger_path, judges)
            stored = _stored(ledger_path)
            left = orders - stored
            if left <= 4:
                time.sleep(rng.uniform(0.05, 0.6))
            else:  # a number of replies, not a time: a quick run is not over before it
                deadline = time.monotonic() + 60
                goal = stored + rng.randint(1, left - 4)
                while run.poll() is None and time.monotonic() < deadline:
                    if _stored(ledger_path) >= goal:
                        break
                    time.sleep(0.01)
            run.send_signal(signal.SIGKILL)
            run.wait()
            after_kills.append(_stored(ledger_path))
        final = _judge(ledger_path, judges)
        out, err = final.communicate(timeout=300)
        sent = {r.headers.get("Authorization") for r in server.requests}
    assert final.returncode == 0, err.decode()
    summary = json.loads(out)
    assert sent == {f"Bearer {KEY}"}  # the control: the key was used
    with Ledger.open(ledger_path, readonly=True) as ledger:
        replies = judge_runs.replies(ledger, "fam", "gpt-judge")
        verdicts = judge_store.verdicts(ledger, "fam")
    asked = Counter((r.case_id, r.left_system, r.right_system) for r in replies)
    assert len(asked) == orders and set(asked.values()) == {1}
    items = Counter((r.case_id, *sorted((r.left_system, r.right_system))) for r in replies)
    assert len(items) == cases and set(items.values()) == {2}
    unparsed = sum(r.verdict == "unparsed" for r in replies)
    assert unparsed > 0 and len(verdicts) == orders - unparsed
    assert summary["already_done"] + summary["judged"] == orders
    assert any(0 < n < orders for n in after_kills), after_kills
    check = subprocess.run(
        [sys.executable, "-m", "arena", "--ledger", str(ledger_path), "check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    files = {str(f): f.read_bytes() for f in tmp_path.rglob("*") if f.is_file()}
    files |= {"stdout": out, "stderr": err}
    assert [n for n, blob in files.items() for form in _forms(KEY) if form in blob] == []
    assert any(".files" in n for n in files)  # the replies' file store was searched too


def test_two_kills_then_a_full_run_judge_each_item_order_once(ledger_path, tmp_path, monkeypatch):
    _kill_and_resume(ledger_path, tmp_path, monkeypatch, cases=30, kills=2)


@pytest.mark.slow
def test_ten_kills_of_a_two_by_eighty_judge_run_lose_and_repeat_nothing(
    ledger_path, tmp_path, monkeypatch
):
    _kill_and_resume(ledger_path, tmp_path, monkeypatch, cases=80, kills=10)
