"""A hand-made family where a judge ``gpt`` and the rater disagree in every way the
disagreement list ranks, with the order worked out by hand (``EXPECTED``)."""

from __future__ import annotations

import json
from pathlib import Path

from arena.cli.main import main

# case: the rater's votes (left system, right system, choice; a second one is a repeat of
# the first with sides swapped) and gpt's games (left, right, winner).
PLAN = {
    # opposite, judge alike over both orders and rater over a repeat: support 2
    "q3": ([("a", "b", "left"), ("b", "a", "right")], [("a", "b", "right"), ("b", "a", "left")]),
    # opposite, judge alike over both orders: support 1
    "q1": ([("a", "b", "left")], [("a", "b", "right"), ("b", "a", "left")]),
    # opposite, rater alike over a repeat: support 1 (after q1: case order)
    "q2": ([("a", "b", "left"), ("b", "a", "right")], [("a", "b", "right")]),
    # opposite, single answers: support 0
    "q0": ([("a", "c", "left")], [("a", "c", "right")]),
    # the rater's tie against a judge alike over both orders
    "q4": ([("a", "c", "tie")], [("a", "c", "left"), ("c", "a", "right")]),
    # the judge chose the left side in both orders: its answer is a tie, against a decisive vote
    "q5": ([("b", "c", "left")], [("b", "c", "left"), ("c", "b", "left")]),
    # agreement: not listed
    "q6": ([("a", "c", "left")], [("a", "c", "left"), ("c", "a", "right")]),
    # the rater did not vote on it: not shared, not listed
    "q7": ([], [("a", "b", "left")]),
}
EXPECTED = ["q3", "q1", "q2", "q0", "q4", "q5"]
SHOWN = "2026-12-01T10:00:00Z"


def _lines(path: Path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def build(ledger: Path, folder: Path) -> Path:
    """Write the family ``f`` (systems a, b, c; cases q0–q7) with the rater's votes and the
    judge ``gpt``'s verdicts into ``ledger``."""
    outputs = [
        {"case": {"id": case, "prompt": f"Question {case}?"},
         "system": {"label": s, "model": s}, "output": f"**{s}** answers {case}."}
        for case in sorted(PLAN) for s in ("a", "b", "c")
    ]  # fmt: skip
    votes: list[dict] = []
    verdicts = []
    for case, (rater, judge) in PLAN.items():
        for n, (left, right, choice) in enumerate(rater):
            vote = {"case_id": case, "left_system": left, "right_system": right,
                    "choice": choice, "session": "s1", "actor": "rater",
                    "shown_at": SHOWN, "voted_at": SHOWN}  # fmt: skip
            if n:
                vote["repeat_of"] = len(votes)  # the line of the first vote (1-based)
            votes.append(vote)
        for game, (left, right, winner) in enumerate(judge, 1):
            verdicts.append({"case_id": case, "left_system": left, "right_system": right,
                             "winner": winner, "game": game})  # fmt: skip
    at = ["--ledger", str(ledger)]
    family = ["--family", "f", "--create"]
    assert main([*at, "import", _lines(folder / "o.jsonl", outputs), *family]) == 0
    assert main([*at, "import-votes", _lines(folder / "v.jsonl", votes), "--family", "f"]) == 0
    judge = ["--family", "f", "--judge", "gpt", "--kind", "model"]
    assert main([*at, "judges", "import", _lines(folder / "gpt.jsonl", verdicts), *judge]) == 0
    return ledger
