"""The one pool of workers under every collecting run, and the run that drives it.

Jobs are sent a few at a time, each only once its most is reserved from the budget
(``arena.endpoint.budget``); each result is handed back on the calling thread, in the
order results arrive, so the caller can store it before the next one is handed back.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TypeVar

from arena.endpoint.budget import Budget

J = TypeVar("J")
R = TypeVar("R")


@dataclass(frozen=True)
class Progress:
    """How far a collecting run is, handed to its caller after each result."""

    answered: int
    failed: int
    total: int
    cost: float
    elapsed_s: float
    by_system: Mapping[str, tuple[int, int, int]]  # label -> (answered, failed, to do)

    @property
    def rate(self) -> float:
        return self.answered / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def not_sent(self) -> int:
        """Jobs neither answered nor failed: at the end of a run, left for a later one."""
        return self.total - self.answered - self.failed


def send_all(
    jobs: Sequence[J],
    *,
    workers: int,
    ask: Callable[[J], R],
    most: Callable[[J], float],
    cost: Callable[[R], float | None],
    on_result: Callable[[J, R], object],
    budget: Budget,
    stop: threading.Event,
) -> bool:
    """Send every job (``ask`` on a worker) and hand each result to ``on_result``.

    ``most`` is what a job may cost at most and ``cost`` what its result cost (None: not
    known, so it counts at its most). ``stop`` sends nothing more; an exception from
    ``on_result`` (or Ctrl-C) drops what is in flight. True when the budget stopped the
    run with jobs left unsent.
    """
    queue = list(reversed(jobs))
    over_budget = False
    executor = ThreadPoolExecutor(workers, thread_name_prefix="arena-collect")
    in_flight: dict[Future[R], J] = {}

    def send() -> None:
        nonlocal over_budget
        while queue and len(in_flight) < workers and not stop.is_set():
            if not budget.reserve(most(queue[-1])):
                over_budget = True
                return
            job = queue.pop()
            in_flight[executor.submit(ask, job)] = job

    try:
        send()
        while in_flight:
            finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            results = [(in_flight.pop(future), future.result()) for future in finished]
            for job, result in results:
                budget.settle(most(job), cost(result))
            # The workers get their next jobs before the results are stored: a store's
            # commit then overlaps the requests in flight instead of delaying them.
            send()
            for job, result in results:
                on_result(job, result)
    finally:
        stop.set()  # ends any back-off wait of a request left in flight
        # Waiting out in-flight requests would block Ctrl-C for up to the timeout.
        executor.shutdown(wait=False, cancel_futures=True)
    return over_budget and bool(queue)


def run_jobs(
    jobs: Sequence[J],
    *,
    workers: int,
    max_cost: float | None,
    worst: Callable[[J], float],
    ask: Callable[[J], R],
    cost: Callable[[R], float | None],
    store: Callable[[J, R], bool | None],
    system: Callable[[J], str],
    on_progress: Callable[[Progress], None] | None,
    stop: threading.Event,
) -> tuple[Progress, bool]:
    """Send every job (``send_all``) within a budget of ``max_cost``: how far the run got,
    and whether the budget stopped it.

    ``worst`` is the most a job can cost, read for every job before any is sent, and only
    when there is a budget. ``store`` keeps a result on the calling thread and says what
    it was: an answer (True), a failure (False) or neither (None: stopped). Progress,
    counted by each job's ``system`` label, goes to ``on_progress`` before the first
    result and after each.
    """
    budget = Budget(max_cost)
    most = [worst(job) if max_cost is not None else 0.0 for job in jobs]
    to_do = Counter(map(system, jobs))
    answered: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    started = time.monotonic()

    def progress() -> Progress:
        by_system = {label: (answered[label], failed[label], n) for label, n in to_do.items()}
        elapsed = time.monotonic() - started
        return Progress(
            answered.total(), failed.total(), len(jobs), budget.spent, elapsed, by_system
        )

    def keep(index: int, result: R) -> None:
        job = jobs[index]
        kept = store(job, result)
        if kept is not None:
            (answered if kept else failed)[system(job)] += 1
        if on_progress is not None:
            on_progress(progress())

    if on_progress is not None:
        on_progress(progress())
    stopped_by_budget = send_all(
        range(len(jobs)),
        workers=workers,
        ask=lambda index: ask(jobs[index]),
        most=most.__getitem__,
        cost=cost,
        on_result=keep,
        budget=budget,
        stop=stop,
    )
    return progress(), stopped_by_budget
