"""A family with the rater's votes and two judges' verdict files, for pooled rounds.

Four systems of planted strengths answer ``CASES`` cases (one output each). The rater votes
once per case, on the pair ``case % 6``; the colleague judges the same pairs (its own
draws: it overlaps the rater on every case); the LLM judges every case on two pairs, each
in both orders, so it has four times the rater's verdicts and its weight is capped.
Choices are drawn from the Bradley–Terry model with ties, from fixed seeds.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

from arena.intake.outputs import import_file
from arena.intake.votes import import_votes
from arena.judges.importing import import_judge
from arena.ledger import Ledger
from tests.conftest import native_line

FAMILY = "p"
CASES = 120  # 60 votes of the rater on every system: a board with intervals
STRENGTH = {"alpha": 1.0, "beta": 0.4, "gamma": 0.0, "delta": -0.6}
PAIRS = list(itertools.combinations(STRENGTH, 2))
# (case, left system, right system, winner: left, right or tie)
Verdict = tuple[str, str, str, str]


def _draw(rng: random.Random, left: str, right: str) -> str:
    if rng.random() < 0.15:
        return "tie"
    p = 1 / (1 + math.exp(STRENGTH[right] - STRENGTH[left]))
    return "left" if rng.random() < p else "right"


def case_id(index: int) -> str:
    return f"q{index:02d}"


def rater_votes(cases: range = range(CASES)) -> list[Verdict]:
    rng = random.Random(1)
    return [(case_id(i), *PAIRS[i % 6], _draw(rng, *PAIRS[i % 6])) for i in cases]


def colleague(cases: range = range(CASES), seed: int = 2) -> list[Verdict]:
    rng = random.Random(seed)
    return [(case_id(i), *PAIRS[i % 6], _draw(rng, *PAIRS[i % 6])) for i in cases]


def llm() -> list[Verdict]:
    rng = random.Random(3)
    found = []
    for i in range(CASES):
        for left, right in (PAIRS[(i + 1) % 6], PAIRS[(i + 3) % 6]):
            found += [
                (case_id(i), left, right, _draw(rng, left, right)),
                (case_id(i), right, left, _draw(rng, right, left)),
            ]
    return found


def write_verdicts(path: Path, verdicts: list[Verdict], first_game: int = 1) -> Path:
    """A native judge file; a pair's second verdict on one case is its next game."""
    games: dict[tuple[str, frozenset[str]], int] = {}
    lines = []
    for case, left, right, winner in verdicts:
        key = (case, frozenset((left, right)))
        games[key] = games.get(key, first_game - 1) + 1
        record = {"case_id": case, "left_system": left, "right_system": right}
        lines.append(json.dumps({**record, "winner": winner, "game": games[key]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def build(ledger: Ledger, folder: Path, actor: str = "rater") -> None:
    """The family and the rater's votes (no judge yet), cast by ``actor``."""
    outputs = folder / "outputs.jsonl"
    outputs.write_text(
        "\n".join(
            native_line(
                case_id(i),
                label,
                f"{label} explains question {i} in plain English sentences. "
                + "It keeps the answer clear for the reader. " * (1 + (i + n) % 3),
            )
            for i in range(CASES)
            for n, label in enumerate(STRENGTH)
        )
        + "\n",
        encoding="utf-8",
    )
    import_file(ledger, outputs, family=FAMILY, fmt="native")
    log = folder / "votes.jsonl"
    log.write_text(
        "".join(
            json.dumps(
                {
                    "case_id": case,
                    "left_system": left,
                    "right_system": right,
                    "choice": choice,
                    "session": "s1",
                    "actor": actor,
                    "shown_at": "2026-01-01T00:00:00Z",
                    "voted_at": "2026-01-01T00:00:01Z",
                }
            )
            + "\n"
            for case, left, right, choice in rater_votes()
        ),
        encoding="utf-8",
    )
    import_votes(ledger, log, family=FAMILY)


def add_judge(
    ledger: Ledger,
    folder: Path,
    name: str,
    verdicts: list[Verdict],
    kind: str = "human",
    first_game: int = 1,
) -> None:
    path = write_verdicts(folder / f"{name}.jsonl", verdicts, first_game)
    import_judge(ledger, path, family=FAMILY, judge=name, kind=kind)


def add_judges(ledger: Ledger, folder: Path) -> None:
    """The colleague (human) and the LLM judge (model)."""
    add_judge(ledger, folder, "colleague", colleague())
    add_judge(ledger, folder, "llm", llm(), kind="model")
