"""A votes family whose two systems have answered two-turn cases, and a systems file
declaring a judge at a scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from arena.collecting.asking import RunOptions
from arena.collecting.fill import fill
from arena.ledger import Ledger
from tests.collecting.helpers import make_family
from tests.graded.fake_endpoint import Echo, FakeEndpoint

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
