"""A family a colleague has voted on: the new user's case, as `arena import-votes`
brings another person's votes in."""

from __future__ import annotations

import json
from pathlib import Path

from arena.intake.outputs import import_file
from arena.intake.votes import import_votes
from arena.ledger import Ledger
from tests.conftest import native_line

SYSTEMS = ("alpha", "beta", "gamma")
CHOICES = ("left", "right", "tie", "both_bad")


def rated_by_colleague(
    ledger: Ledger, folder: Path, *, cases: int = 40, votes: int = 24, actor: str = "dana"
) -> str:
    """A family ``team`` (three systems on ``cases`` cases, every pair for the rater) with
    ``votes`` votes by ``actor`` on pairs of different cases, imported as votes; its name."""
    outputs = folder / "team.jsonl"
    outputs.write_text(
        "\n".join(
            native_line(
                f"c{c:02d}",
                system,
                f"{system} answers case {c} in a few plain English sentences. It keeps "
                "the answer short and clear for the reader.",
            )
            for c in range(cases)
            for system in SYSTEMS
        )
        + "\n",
        encoding="utf-8",
    )
    import_file(ledger, outputs, family="team", fmt="native")
    lines = [
        {
            "case_id": f"c{n:02d}",
            "left_system": SYSTEMS[n % 3],
            "right_system": SYSTEMS[(n + 1) % 3],
            "choice": CHOICES[n % 4],
            "session": "dana's monday",
            "actor": actor,
            "shown_at": f"2026-11-01T10:{n:02d}:00Z",
            "voted_at": f"2026-11-01T10:{n:02d}:30Z",
        }
        for n in range(votes)
    ]
    path = folder / f"{actor}.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    import_votes(ledger, path, family="team")
    return "team"


def rated_by_two(ledger: Ledger, folder: Path) -> str:
    """``rated_by_colleague``'s family with 30 votes of lee's own beside dana's 24 (left,
    right and tie in turn, no repeats); its name."""
    from arena.rating.session import RatingSession

    family = rated_by_colleague(ledger, folder)
    session = RatingSession(ledger, family, seed=5, actor="lee", repeat_share=0.0)
    for n in range(30):
        session.vote(("left", "right", "tie")[n % 3])
    return family
