"""A collecting run: every task of a suite not yet delivered, a few requests in flight,
each result handed to the caller (who commits it) before the next one is taken.

The budget, the progress and the workers are the run every collecting kind shares
(``arena.endpoint.worker_pool.run_jobs``)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from arena.endpoint.budget import worst_cost
from arena.endpoint.client import ITEM_STATUSES, ChatReply, Client
from arena.endpoint.run_settings import CollectSettings
from arena.endpoint.worker_pool import Progress, run_jobs
from arena.errors import LedgerError
from arena.graded.suites import Task
from arena.redact import Redactor


@dataclass(frozen=True, kw_only=True)
class CollectedItem(ChatReply):
    """One task's result from the endpoint."""

    task_id: str
    input_hash: str


def attempt(client: Client, task: Task) -> CollectedItem | None:
    """One task's answer; None when stopped during a back-off wait."""
    reply = client.ask(client.messages([{"role": "user", "content": task.input}]))
    if reply is None:
        return None
    fields = vars(reply)
    # A graded attempt records why its counts were not believed where a failed one
    # records its error.
    fields["error"] = reply.error or reply.suspicious
    return CollectedItem(task_id=task.task_id, input_hash=task.input_hash, **fields)


@dataclass(frozen=True)
class CollectSummary:
    total: int
    skipped: int
    delivered: int
    status_counts: Mapping[str, int]
    cost: float = 0.0  # as counted: reported usage, held to what each request allowed
    not_sent: int = 0  # left for a later run by the budget (or a stop)
    stopped_by_budget: bool = False
    suspicious: Mapping[str, str] = dataclasses.field(default_factory=dict)  # task -> why


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
    next arrives. At most ``settings.workers`` requests are in flight; if
    ``on_item`` raises (or Ctrl-C arrives) nothing new is sent, in-flight
    replies are dropped, and the exception propagates: a resumed run asks
    again only for what was never delivered.
    """
    settings.check()
    settings.check_secrets()
    stop = threading.Event()
    client = Client(settings, settings.api_key(), stop)
    every = list(tasks)
    todo = [t for t in every if t.task_id not in done]
    counts = dict.fromkeys(ITEM_STATUSES, 0)
    suspicious: dict[str, str] = {}

    def store(task: Task, item: CollectedItem | None) -> bool | None:
        if item is None:
            return None
        _refuse_leak(client.redactor, item)
        on_item(item)
        counts[item.status] += 1
        if item.suspicious:
            suspicious[item.task_id] = item.suspicious
        # An item delivered with a failed status is a failed job of the run.
        return item.status == "ok"

    try:
        ran, stopped_by_budget = run_jobs(
            todo,
            workers=settings.workers,
            max_cost=settings.max_cost,
            worst=lambda task: worst_cost(settings, (task.input,), label=settings.model),
            ask=lambda task: attempt(client, task),
            # A failed attempt reports no usage, and counts nothing; an answer without
            # usage counts at its most.
            cost=lambda item: item.cost if item and item.status == "ok" else 0,
            store=store,
            system=lambda task: settings.model,
            on_progress=on_progress,
            stop=stop,
        )
    finally:
        client.close()
    return CollectSummary(
        total=len(todo),
        skipped=len(every) - len(todo),
        delivered=ran.answered + ran.failed,
        status_counts=counts,
        cost=ran.cost,
        not_sent=ran.not_sent,
        stopped_by_budget=stopped_by_budget,
        suspicious=suspicious,
    )
