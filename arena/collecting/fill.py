"""`arena collect --family F`: fill a family's jobs from its systems' endpoints."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.collecting import asking
from arena.collecting.asking import RunOptions, RunProgress, RunSummary
from arena.collecting.work import (
    Answer,
    Job,
    chosen_systems,
    family_to_collect,
    jobs,
    output_of,
    store,
)
from arena.gates.screening import Fingerprints
from arena.ledger import Ledger
from arena.ledger.voting import new_id


@dataclass(frozen=True)
class FillReport:
    family: str
    systems: tuple[str, ...]
    already_done: int
    summary: RunSummary


def fill(
    ledger: Ledger,
    family: str,
    *,
    labels: Sequence[str] = (),
    options: RunOptions | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    stop: threading.Event | None = None,
) -> FillReport:
    """Ask every chosen system of ``family`` for every job left; each answer is stored,
    gated, in its own transaction as it arrives."""
    found = family_to_collect(ledger, family)
    systems = chosen_systems(ledger, family, labels)
    todo, done = jobs(ledger, found, systems)
    fingerprints = Fingerprints(found)
    run_id = "collect-" + new_id()

    def on_answer(job: Job, answer: Answer) -> None:
        store(ledger, found, fingerprints, output_of(job, answer, found), job.case, run_id)

    summary = asking.run(
        todo, options or RunOptions(), on_answer=on_answer, on_progress=on_progress, stop=stop
    )
    return FillReport(family, tuple(s.label for s in systems), done, summary)
