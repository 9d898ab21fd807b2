"""`arena collect --family F`: fill a family's jobs from its systems' endpoints."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.collecting import asking
from arena.collecting.asking import RunOptions, RunSummary
from arena.collecting.work import (
    Answer,
    Job,
    chosen_systems,
    family_to_collect,
    jobs,
    output_of,
    store,
)
from arena.endpoint.worker_pool import Progress
from arena.gates.screening import Fingerprints
from arena.ledger import Ledger, soundness
from arena.ledger.voting import new_id
from arena.records import Family


class Plan:
    """A run's jobs, read from the ledger, and how each answer is stored in it."""

    def __init__(self, ledger: Ledger, family: Family, labels: Sequence[str]) -> None:
        self.ledger = ledger
        self.family = family
        self.systems = tuple(chosen_systems(ledger, family.name, labels))
        todo, self.already_done = jobs(ledger, family, self.systems)
        self.jobs = tuple(todo)
        self.run_id = "collect-" + new_id()
        self._fingerprints = Fingerprints(family)

    def store(self, job: Job, answer: Answer) -> bool:
        """Store ``job``'s answer, gated, in its own transaction (on the ledger's thread)."""
        output = output_of(job, answer, self.family)
        return store(self.ledger, self.family, self._fingerprints, output, job.case, self.run_id)


def plan(ledger: Ledger, family: str, labels: Sequence[str] = ()) -> Plan:
    """Every job left for the chosen systems of ``family`` (those ``labels`` name, or all).

    Refused when the family's rows no longer match their seals: a system's endpoint
    edited in the ledger would otherwise be sent the rater's key."""
    soundness.require_sound(ledger, family, soundness.FILL)
    return Plan(ledger, family_to_collect(ledger, family), labels)


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
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
) -> FillReport:
    """Ask every chosen system of ``family`` for every job left; each answer is stored,
    gated, in its own transaction as it arrives."""
    work = plan(ledger, family, labels)
    summary = asking.run(
        work.jobs,
        options or RunOptions(),
        on_answer=work.store,
        on_progress=on_progress,
        stop=stop,
    )
    return FillReport(family, tuple(s.label for s in work.systems), work.already_done, summary)
