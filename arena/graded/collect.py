"""A collecting run: every task of a suite not yet delivered, a few requests in flight,
each result handed to the caller (who commits it) before the next one is taken.

With ``settings.max_cost`` each task's most is reserved before it is sent, by the same
rule a votes family's run keeps (``arena.endpoint.budget``)."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from arena.endpoint.budget import Budget, worst_cost
from arena.endpoint.client import ITEM_STATUSES, ChatReply, Client
from arena.endpoint.run_settings import CollectSettings
from arena.endpoint.worker_pool import Progress, send_all
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
        # An item delivered with a failed status is a failed job of the run.
        answered = counts["ok"]
        elapsed = time.monotonic() - started
        on_progress(Progress(answered, delivered - answered, len(todo), budget.spent, elapsed))

    budget = Budget(settings.max_cost)
    most = {
        t.task_id: worst_cost(settings, (t.input,), label=settings.model)
        if settings.max_cost is not None
        else 0.0
        for t in todo
    }
    suspicious: dict[str, str] = {}

    def store(task: Task, item: CollectedItem | None) -> None:
        nonlocal delivered
        if item is None:
            return
        _refuse_leak(client.redactor, item)
        on_item(item)
        delivered += 1
        counts[item.status] += 1
        if item.suspicious:
            suspicious[item.task_id] = item.suspicious
        report()

    report()
    try:
        stopped_by_budget = send_all(
            todo,
            workers=settings.workers,
            ask=lambda task: attempt(client, task),
            most=lambda task: most[task.task_id],
            # A failed attempt reports no usage, and counts nothing; an answer without
            # usage counts at its most.
            cost=lambda item: item.cost if item and item.status == "ok" else 0,
            on_result=store,
            budget=budget,
            stop=stop,
        )
    finally:
        client.close()
    return CollectSummary(
        total=len(todo),
        skipped=skipped,
        delivered=delivered,
        status_counts=counts,
        cost=budget.spent,
        not_sent=len(todo) - delivered,
        stopped_by_budget=stopped_by_budget,
        suspicious=suspicious,
    )
