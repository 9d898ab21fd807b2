"""The one pool of workers under every collecting run.

Jobs are sent a few at a time, each only once its most is reserved from the budget
(``arena.endpoint.budget``); each result is handed back on the calling thread, in the
order results arrive, so the caller can store it before the next one is handed back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
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
    # label -> (answered, failed, to do) in this run; a graded run asks one system
    by_system: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.answered / self.elapsed_s if self.elapsed_s > 0 else 0.0


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
