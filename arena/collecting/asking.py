"""A collecting run: every job's turns asked of its system's endpoint, a few at a time.

Workers ask; the calling thread stores each answer as it arrives (``on_answer``), so
what was stored stays stored whatever happens next. Each endpoint has one connection
pool and a limit on requests in flight, shared by the systems it serves. A budget
(``max_cost``) is kept by reserving each job's most before it is sent
(``arena.endpoint.budget``): a job is sent only while what was spent, plus what is
reserved, plus its own most stays within the budget.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpcore

from arena.collecting.systems_file import settings_of
from arena.collecting.work import Answer, Job, joined
from arena.endpoint import transport
from arena.endpoint.budget import worst_cost
from arena.endpoint.client import ChatReply, Client, Message
from arena.endpoint.run_settings import DEFAULT_MAX_REPLY_BYTES, completions_url
from arena.endpoint.worker_pool import Progress, run_jobs
from arena.errors import BadInput, LedgerError


@dataclass(frozen=True)
class RunOptions:
    workers: int = 4
    per_endpoint: int | None = None  # requests in flight to one endpoint (None: workers)
    max_cost: float | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 1.0  # the first retry's wait when the server gives no Retry-After
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES


@dataclass(frozen=True)
class Failure:
    """A job not answered (``error`` says why), or answered with token counts that were
    not believed (``error`` says what they were)."""

    label: str
    case_id: str
    sample: int
    error: str


@dataclass(frozen=True)
class RunSummary:
    total: int  # jobs this run had to do
    answered: int
    failures: tuple[Failure, ...]
    not_sent: int  # left for a later run: the budget, or a stop
    cost: float
    elapsed_s: float
    stopped_by_budget: bool
    suspicious: tuple[Failure, ...] = ()  # answers stored with their tokens held down


class _Endpoints:
    """One connection pool and one limit on requests in flight per endpoint; one client
    per system (its own key and settings) over its endpoint's pool."""

    def __init__(self, jobs: Sequence[Job], options: RunOptions, stop: threading.Event) -> None:
        limit = options.per_endpoint or options.workers
        self.pools: dict[str, httpcore.ConnectionPool] = {}
        self.slots: dict[str, threading.Semaphore] = {}
        self.clients: dict[str, Client] = {}
        for job in jobs:
            system = job.system
            if system.system_id in self.clients:
                continue
            settings = dataclasses.replace(
                settings_of(
                    system,
                    timeout_s=options.timeout_s,
                    retries=options.retries,
                    backoff_s=options.backoff_s,
                ),
                max_reply_bytes=options.max_reply_bytes,
            )
            settings.check()
            # The key is read from its variable now: an unset one stops the run unsent.
            settings.check_secrets(label=system.label)
            url = completions_url(settings.endpoint)
            if url not in self.pools:
                self.pools[url] = transport.pool(limit)
                self.slots[url] = threading.Semaphore(limit)
            self.clients[system.system_id] = Client(
                settings, settings.api_key(), stop, http=self.pools[url], slots=self.slots[url]
            )

    def close(self) -> None:
        for http in self.pools.values():
            http.close()


@dataclass(frozen=True)
class _Result:
    answer: Answer | None
    error: str
    cost: float | None  # None: a reply said no usage, so what it cost is not known


def _ask(job: Job, client: Client) -> _Result:
    """Every turn of ``job``, each sent with the system's own earlier answers."""
    conversation: list[Message] = []
    replies: list[ChatReply] = []
    spent: float | None = 0.0
    for turn in job.turns:
        conversation.append({"role": "user", "content": turn})
        reply = client.ask(client.messages(conversation))
        if reply is None:
            return _Result(None, "stopped", spent)
        if reply.status == "ok" and reply.cost is None:
            spent = None
        elif spent is not None:
            spent += reply.cost or 0.0
        if reply.status != "ok":
            return _Result(None, f"turn {len(replies) + 1}: {reply.error}", spent)
        replies.append(reply)
        conversation.append({"role": "assistant", "content": reply.text or ""})
    return _Result(_answer(replies), "", spent)


def _answer(replies: Sequence[ChatReply]) -> Answer:
    def total(name: str) -> float | None:
        values = [getattr(r, name) for r in replies]
        return None if any(v is None for v in values) else sum(values)

    reasons = [r.finish_reason for r in replies]
    # One turn cut short is an answer cut short (the Truncated gate reads this).
    cut = next((r for r in reasons if r in ("length", "max_tokens")), None)
    prompt, completion = total("prompt_tokens"), total("completion_tokens")
    return Answer(
        text=joined([r.text or "" for r in replies]),
        finish_reason=cut or reasons[-1],
        latency_ms=total("latency_ms"),
        prompt_tokens=None if prompt is None else int(prompt),
        completion_tokens=None if completion is None else int(completion),
        cost=total("cost"),
        suspicious="; ".join(
            f"turn {i}: {r.suspicious}" for i, r in enumerate(replies, 1) if r.suspicious
        ),
    )


def run(
    jobs: Sequence[Job],
    options: RunOptions,
    *,
    on_answer: Callable[[Job, Answer], object],
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
) -> RunSummary:
    """Ask for every job; hand each answer to ``on_answer`` on this thread, in the order
    they arrive. ``stop`` (set from another thread) sends nothing more and stores what
    is in flight; an exception from ``on_answer`` (or Ctrl-C) drops what is in flight."""
    if options.workers < 1:
        raise BadInput("at least 1", field="--workers")
    stop = stop or threading.Event()
    endpoints = _Endpoints(jobs, options, stop)
    failures: list[Failure] = []
    suspicious: list[Failure] = []

    def client(job: Job) -> Client:
        return endpoints.clients[job.system.system_id]

    def store(job: Job, result: _Result) -> bool | None:
        if result.answer is None:
            if result.error == "stopped":
                return None
            failures.append(Failure(job.system.label, job.case.case_id, job.sample, result.error))
            return False
        _refuse_leak(client(job), job, result.answer)
        on_answer(job, result.answer)
        if result.answer.suspicious:
            why = result.answer.suspicious
            suspicious.append(Failure(job.system.label, job.case.case_id, job.sample, why))
        return True

    try:
        ran, stopped_by_budget = run_jobs(
            jobs,
            workers=options.workers,
            max_cost=options.max_cost,
            worst=lambda job: worst_cost(client(job).settings, job.turns, label=job.system.label),
            ask=lambda job: _ask(job, client(job)),
            cost=lambda result: result.cost,
            store=store,
            system=lambda job: job.system.label,
            on_progress=on_progress,
            stop=stop,
        )
    finally:
        endpoints.close()
    return RunSummary(
        total=len(jobs),
        answered=ran.answered,
        failures=tuple(failures),
        not_sent=ran.not_sent,
        cost=ran.cost,
        elapsed_s=ran.elapsed_s,
        stopped_by_budget=stopped_by_budget,
        suspicious=tuple(suspicious),
    )


def _refuse_leak(client: Client, job: Job, answer: Answer) -> None:
    """The last look before an answer is stored: a key left in it stops the run instead."""
    leak = client.redactor.leak([answer.text, answer.finish_reason])
    if leak:
        raise LedgerError(
            f"{job.system.label}'s answer to case {job.case.case_id} still holds {leak} after "
            "redaction; nothing of it was stored, and the run stops"
        )
