"""A votes family whose two systems have answered two-turn cases, and a systems file
declaring a judge at a scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from arena.collecting.asking import RunOptions
from arena.collecting.fill import fill
from arena.ledger import Ledger
from tests.collecting.helpers import make_family
from tests.graded.fake_endpoint import Echo, FakeEndpoint, Reply

KEY_ENV = "ARENA_COLLECT_TEST_KEY"


def answered_family(ledger_path: Path, folder: Path, *, cases: int) -> None:
    """Family ``fam``: ``cases`` two-turn cases, each answered by two systems."""
    with FakeEndpoint(default=Echo()) as server:
        make_family(ledger_path, folder, server.url, cases=cases)
        with Ledger.open(ledger_path) as ledger:
            report = fill(ledger, "fam", options=RunOptions(workers=8))
    assert report.summary.answered == 2 * cases


def judge_file(folder: Path, url: str, *, name: str = "gpt-judge", **extra: object) -> Path:
    fields = {
        "name": name,
        "base_url": f"{url}/v1",
        "model": "judge-model",
        "template": "pairwise",
        "temperature": 0.0,
        "max_tokens": 64,
        "input_price": 1.0,
        "output_price": 2.0,
        "api_key_env": KEY_ENV,
        **extra,
    }
    path = folder / "judges.toml"
    path.write_text(
        "[[judge]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()),
        encoding="utf-8",
    )
    return path


# A judge whose replies hold markup, the first order's with a verdict, the second's none.
MARKUP = "<b>bold</b> & <i>x</i> <script>alert('x')</script>"


class MarkupJudge(FakeEndpoint):
    """Answers in turn a reply naming [[A]] and one naming no verdict, both with markup
    (asked by one worker, an item's two orders come one after the other)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def _next(self, content: str) -> Reply:
        with self.lock:
            self.count += 1
            parsed = self.count % 2 == 1
        tail = "Verdict: [[A]]" if parsed else "I cannot decide."
        return Reply(text=f"{MARKUP}\n\n{tail}", usage=(200, 20))


def judged_and_voted(ledger_path: Path, folder: Path, *, cases: int) -> None:
    """``answered_family``, judge ``gpt-judge`` run on it by ``MarkupJudge`` (every
    second order unparsed), and the rater's tie on every pair: each item the judge
    decided is a disagreement."""
    from arena.cli.main import main
    from arena.rating.session import RatingSession

    answered_family(ledger_path, folder, cases=cases)
    with MarkupJudge() as server:
        args = ["--ledger", str(ledger_path), "judges", "run", "--family", "fam"]
        args += ["--judge", "gpt-judge", "--workers", "1"]
        args += ["--systems", str(judge_file(folder, server.url))]
        assert main(args) == 0
    with Ledger.open(ledger_path) as ledger:
        session = RatingSession(ledger, "fam", seed=1, repeat_share=0.0)
        for _ in range(cases):
            session.vote("tie")
