"""A simulated rater at the real window's functions: import, rate, close, without Qt.

``fitting.simulate`` draws a family and a rater with planted truths; this module puts
the family into a ledger through the real import (the gates judge its outputs: an
output the simulation makes fail is cut off at the output limit, an identical one
repeats the other's text), then votes through ``RatingSession`` exactly as the window
does (``current``, then ``vote``), session after session, and closes a real round. The
pairs come from the session's own scheduler, whatever it is: the rater only answers
what it is shown.

Time spent answering (the simulation's own overhead) is kept apart from the time of
the session's calls (scheduler and ledger writes): ``RatingRun``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from arena import fit
from arena.intake.family_settings import FamilySettings
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog
from arena.rating.session import RatingSession
from arena.records import OutputId
from arena.rounds.closing import close_round
from arena.rounds.model import Round, RoundSettings

_WORDS = (
    "the answer explains each step of the method and why it holds for this case "
    "because a careful reader wants to check the result against the question before "
    "using it so every claim comes with a short reason and an example where one helps"
).split()


def label(system: int) -> str:
    return f"system-{system:02d}"


def _text(rng: np.random.Generator, case: int, output: int, size: int) -> str:
    """English prose of ``size`` characters, different for every output."""
    words = rng.choice(_WORDS, size=size // 4 + 8).tolist()
    text = f"Answer {output} to question {case}: " + " ".join(words)
    sentences = [s.strip().capitalize() for s in text[:size].split(" so ") if s.strip()]
    return ". ".join(sentences)[:size].rstrip() + "."


def build_family(
    ledger: Ledger,
    name: str,
    family: Any,
    *,
    folder: Path,
    seed: int = 0,
    kind: str = "votes",
) -> dict[OutputId, tuple[int, int]]:
    """Import ``family`` (a ``fitting.simulate.SimulatedFamily``) as family ``name``, with
    system 0 as its reference; returns each output's (case, output index)."""
    rng = np.random.default_rng(seed)
    lines = []
    for case in range(family.n_cases):
        texts = [
            _text(rng, case, out, int(family.length[case, out])) for out in range(family.n_outputs)
        ]
        for out in range(family.n_outputs):
            source = int(family.copy_of[case, out])
            text = texts[source if source >= 0 else out]  # a copy repeats its source's text
            system = out // family.samples
            lines.append(
                json.dumps(
                    {
                        "case": {"id": f"q{case:05d}", "prompt": f"Question {case}?"},
                        "system": {"label": label(system), "model": f"sim/{label(system)}"},
                        "sample": out % family.samples,
                        "output": text,
                        "finish_reason": "length" if family.failing[case, out] else "stop",
                    }
                )
            )
    path = folder / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = FamilySettings(kind=kind, language="en", reference=label(0))
    import_file(ledger, path, family=name, fmt="native", settings=settings, workers=0)
    where = {}
    for output in catalog.outputs(ledger, name):
        system = int(
            next(
                s for s in catalog.systems(ledger, name) if s.system_id == output.system_id
            ).label.rsplit("-", 1)[1]
        )
        case = int(output.case_id[1:])
        where[output.output_id] = (case, system * family.samples + output.sample)
    return where


class SimulatedClock:
    """A wall clock that moves ``step`` seconds each time it is read (ISO 8601, UTC)."""

    def __init__(self, start: str = "2026-12-01T09:00:00.000+00:00", step: float = 4.0) -> None:
        self.at = datetime.fromisoformat(start)
        self.step = timedelta(seconds=step)

    def __call__(self) -> str:
        now = self.at.isoformat(timespec="milliseconds")
        self.at += self.step
        return now


@dataclass
class RatingRun:
    """What a simulated rating did, and where its time went."""

    votes: int = 0
    sessions: int = 0
    repeats: int = 0
    # Seconds answering (the simulation's overhead) and in the session's calls.
    rater_seconds: float = 0.0
    session_seconds: float = 0.0


def rate(
    ledger: Ledger,
    name: str,
    rater: Any,
    where: dict[OutputId, tuple[int, int]],
    votes: int,
    *,
    session_votes: int = 200,
    seed: int = 0,
    repeat_share: float = 0.1,
    clock: Callable[[], str] | None = None,
    pair_choice: str | None = None,
) -> RatingRun:
    """Vote ``votes`` times (repeats included) with ``rater`` (a
    ``fitting.simulate.SimulatedRater``), a new session every ``session_votes``;
    ``pair_choice`` in place of the family's."""
    run = RatingRun()
    wall = clock or SimulatedClock()
    while run.votes < votes:
        started = time.perf_counter()
        session = RatingSession(
            ledger,
            name,
            seed=seed + run.sessions,
            repeat_share=repeat_share,
            wall_clock=wall,  # stamps the votes: repeats are spaced in time too
            pair_choice=pair_choice,
        )
        run.sessions += 1
        run.session_seconds += time.perf_counter() - started
        for _ in range(min(session_votes, votes - run.votes)):
            started = time.perf_counter()
            view = session.current()
            shown = time.perf_counter()
            run.session_seconds += shown - started
            if view is None:
                return run
            p = view.presentation
            case, left = where[p.left_output]
            choice = rater.choose(case, left, where[p.right_output][1])
            answered = time.perf_counter()
            run.rater_seconds += answered - shown
            session.vote(choice)
            run.session_seconds += time.perf_counter() - answered
            run.votes += 1
            run.repeats += p.repeat_of is not None
    return run


def simulate_round(
    ledger: Ledger,
    family: Any,
    traits: Any,
    votes: int,
    *,
    folder: Path,
    name: str = "simulated",
    seed: int = 0,
    session_votes: int = 200,
    repeat_share: float = 0.1,
    settings: RoundSettings | None = None,
    pair_choice: str | None = None,
) -> tuple[Round, RatingRun, Any]:
    """Import ``family``, rate it with a rater of ``traits`` (``fitting.simulate``
    records; ``pair_choice`` in place of the family's) and close a round; returns the
    round, the run and the rater."""
    where = build_family(ledger, name, family, folder=folder, seed=seed)
    rater = fit.simulate.SimulatedRater(family, traits, rng=np.random.default_rng(seed))
    run = rate(
        ledger,
        name,
        rater,
        where,
        votes,
        session_votes=session_votes,
        seed=seed,
        repeat_share=repeat_share,
        pair_choice=pair_choice,
    )
    return close_round(ledger, name, settings or RoundSettings(seed=seed)), run, rater
