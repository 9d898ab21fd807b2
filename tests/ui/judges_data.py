"""A family with a few judges beside the rater, for the Judges page's layout tests and its
screenshot: six systems on 240 cases, the rater's votes drawn from planted strengths,
an LLM judge in both orders (with a lean toward the answer shown first), a colleague
close to the rater, and a second LLM that never compared the system the rater voted on
most (so the boards' one anchor is another system every board compares)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena.cli.main import main
from tests.judges.judge_files import write_lines

SYSTEMS = ("gpt-4", "claude-v1", "vicuna-13b", "koala-13b", "alpaca-13b", "llama-13b")
STRENGTH = dict(zip(SYSTEMS, (1.0, 0.7, 0.3, 0.0, -0.4, -0.8), strict=True))
SHOWN = "2026-12-01T10:00:00Z"


def _winner(rng: np.random.Generator, left: str, right: str, lean: float = 0.0) -> str:
    edge = STRENGTH[left] - STRENGTH[right] + lean
    if rng.random() < 0.15:
        return "tie"
    return "left" if rng.random() < 1 / (1 + np.exp(-edge)) else "right"


def build_judges_ledger(folder: Path, cases: int = 240) -> Path:
    """Family ``chat`` with the rater's votes and judges ``gpt-4-judge`` (model, both
    orders), ``colleague`` (human) and ``small-llm`` (model, never shown vicuna-13b)."""
    rng = np.random.default_rng(46)
    names = [f"q{case:03d}" for case in range(cases)]
    outputs = [
        {"case": {"id": c, "prompt": f"Question {c}: explain it plainly."},
         "system": {"label": s, "model": s},
         "output": f"{s} answers {c}. " + "A plain sentence. " * int(rng.integers(1, 9))}
        for c in names for s in SYSTEMS
    ]  # fmt: skip
    votes, judge, colleague, small = [], [], [], []
    others = [s for s in SYSTEMS if s != "vicuna-13b"]
    for n, case in enumerate(names):
        # The rater meets vicuna-13b most: every other case.
        pool = SYSTEMS if n % 2 else others
        left, right = (str(s) for s in rng.choice(pool, 2, replace=False))
        if n % 2 and "vicuna-13b" not in (left, right):
            left = "vicuna-13b" if left != "vicuna-13b" else right
        choice = _winner(rng, left, right)
        votes.append({"case_id": case, "left_system": left, "right_system": right,
                      "choice": choice, "session": f"s{n // 60}", "actor": "rater",
                      "shown_at": SHOWN, "voted_at": SHOWN})  # fmt: skip
        pair = {"case_id": case, "left_system": left, "right_system": right}
        swapped = {"case_id": case, "left_system": right, "right_system": left}
        judge.append({**pair, "winner": _winner(rng, left, right, 0.4)})
        judge.append({**swapped, "winner": _winner(rng, right, left, 0.4), "game": 2})
        colleague.append({**pair, "winner": choice if rng.random() < 0.8 else "tie"})
        a, b = (str(s) for s in rng.choice(others, 2, replace=False))
        small.append({"case_id": case, "left_system": a, "right_system": b,
                      "winner": _winner(rng, a, b, 0.8)})  # fmt: skip
    ledger = folder / "judges.sqlite"
    at = ["--ledger", str(ledger)]
    path = write_lines(folder / "o.jsonl", outputs)
    assert main([*at, "import", path, "--family", "chat", "--create"]) == 0
    assert (
        main([*at, "import-votes", write_lines(folder / "v.jsonl", votes), "--family", "chat"]) == 0
    )
    for name, kind, verdicts in (
        ("gpt-4-judge", "model", judge),
        ("colleague", "human", colleague),
        ("small-llm", "model", small),
    ):
        path = write_lines(folder / f"{name}.jsonl", verdicts)
        args = ["judges", "import", path, "--family", "chat", "--judge", name, "--kind", kind]
        assert main([*at, *args]) == 0
    return ledger
