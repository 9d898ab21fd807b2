"""A collecting run: every task of a suite not yet delivered, a few requests in flight,
each result handed to the caller (who commits it) before the next one is taken."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from arena.errors import LedgerError
from arena.graded.endpoint import ITEM_STATUSES, Client, CollectedItem
from arena.graded.run_settings import CollectSettings
from arena.graded.suites import Task
from arena.redact import Redactor


@dataclass(frozen=True)
class Progress:
    completed: int  # delivered in this call
    total: int  # to do in this call (skipped ones excluded)
    skipped: int
    elapsed_s: float
    rate: float | None  # items per second
    eta_s: float | None


@dataclass(frozen=True)
class CollectSummary:
    total: int
    skipped: int
    delivered: int
    status_counts: Mapping[str, int]


def _refuse_leak(redactor: Redactor, item: CollectedItem) -> None:
    """The last look before an item is stored: a key left in it stops the run instead."""
    # The values only: the item's field names are Arena's, not the endpoint's.
    leak = redactor.leak(list(dataclasses.asdict(item).values()))
    if leak:
        raise LedgerError(
            f"the endpoint's reply to task {item.task_id} still holds {leak} "
            "after redaction; nothing of it was stored, and the run stops"
        )


def collect(
    tasks: Iterable[Task],
    settings: CollectSettings,
    *,
    on_item: Callable[[CollectedItem], None],
    done: Collection[str] = (),
    on_progress: Callable[[Progress], None] | None = None,
) -> CollectSummary:
    """Ask the endpoint for every task not in ``done``; hand each result to ``on_item``.

    ``on_item`` and ``on_progress`` run on the calling thread, one item at a
    time, in completion order, so the caller can commit each item before the
    next arrives. At most ``settings.concurrency`` requests are in flight; if
    ``on_item`` raises (or Ctrl-C arrives) nothing new is sent, in-flight
    replies are dropped, and the exception propagates: a resumed run asks
    again only for what was never delivered.
    """
    settings.check()
    settings.check_secrets()
    key = settings.api_key()
    stop = threading.Event()
    client = Client(settings, key, stop)
    every = list(tasks)
    todo = [t for t in every if t.task_id not in done]
    skipped = len(every) - len(todo)
    counts = dict.fromkeys(ITEM_STATUSES, 0)
    started = time.monotonic()
    delivered = 0

    def report() -> None:
        if on_progress is None:
            return
        elapsed = time.monotonic() - started
        rate = delivered / elapsed if delivered and elapsed > 0 else None
        eta = (len(todo) - delivered) / rate if rate else None
        on_progress(Progress(delivered, len(todo), skipped, elapsed, rate, eta))

    report()
    queue = iter(todo)
    pool = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="arena-collect")
    in_flight: set[Future[CollectedItem | None]] = set()
    try:
        for task in queue:
            in_flight.add(pool.submit(client.run, task))
            if len(in_flight) >= settings.concurrency:
                break
        while in_flight:
            finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in finished:
                item = future.result()
                if item is None:
                    continue
                _refuse_leak(client.redactor, item)
                on_item(item)
                delivered += 1
                counts[item.status] += 1
                report()
                following = next(queue, None)
                if following is not None:
                    in_flight.add(pool.submit(client.run, following))
    finally:
        # Waiting out in-flight requests would block Ctrl-C for up to the timeout.
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        client.close()
    return CollectSummary(
        total=len(todo), skipped=skipped, delivered=delivered, status_counts=counts
    )
