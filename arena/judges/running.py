"""`arena judges run --family F --judge NAME`: an LLM judge asked over an endpoint.

Every item (a case and a pair of the family's systems, among the outputs in force that
pass the gates: the pairs the rater is given) is asked in both orders by default, with the
judge's template; each reply is stored as it arrives, in its own transaction, so a run
killed at any moment resumes where it stopped and asks no (item, order) twice.

The run shares collect's machinery (``arena.endpoint``): the same client (retries,
Retry-After, the reply's cap, the key redacted from every value kept), one connection
pool and one limit on requests in flight for the endpoint, and the same budget, which
reserves each request's most before it is sent, so ``--max-cost`` holds with requests in
flight. The key is read from its variable and sent, never stored.

Storage. Each reply is a ``judge_replies`` row (migration 0026: the pair as shown, the
order, the verdict or ``unparsed``, the graded strength, the sha256 of the full reply in
the ledger's file store, the template's sha256) and, when it names a verdict, a
``judge_verdicts`` row of a ``model`` judge in the same transaction, whose source is the
run judge (``source_sha256`` its id, ``source_line`` the reply's seq, recorded once in
``judge_sources`` with the format ``run``). Writing verdicts into ``judge_verdicts`` too,
rather than teaching each reader a second table, keeps every reader of judges' verdicts
(`judges show`, the disagreements, a pooled round, the bundle and `arena verify`) as it
is and sound by construction: a run judge's verdicts are read exactly as an imported
judge's, and the replies table holds only what those readers never need (the reply, the
strength, the cost, the unparsed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.clock import now_iso
from arena.endpoint import transport
from arena.endpoint.budget import worst_cost
from arena.endpoint.client import ChatReply, Client
from arena.endpoint.run_settings import DEFAULT_MAX_REPLY_BYTES
from arena.endpoint.worker_pool import Progress, run_jobs
from arena.errors import BadInput, LedgerError
from arena.family_state import for_rating
from arena.judges.declared import DeclaredJudge
from arena.judges.templates import SHIPPED, Item, parse_verdict, template_of
from arena.ledger import Ledger, catalog, judge_runs, judge_store, roster, soundness
from arena.ledger.file_store import FileStore
from arena.ledger.judge_runs import StoredJudge
from arena.records import CaseId, OutputId, name_problem

RUN_FORMAT = "run"  # judge_sources.format of a run judge
_TURN = re.compile(r"\*\*Turn (\d+)\*\*\n\n")


@dataclass(frozen=True)
class RunOptions:
    workers: int = 4
    per_endpoint: int | None = None
    max_cost: float | None = None
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 1.0
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    one_order: bool = False
    sample: int | None = None
    seed: int = 0


@dataclass(frozen=True)
class JudgeJob:
    case_id: str
    left: str  # system ids, as shown
    right: str
    game: int  # 1: the item's first order, 2: swapped
    prompt: str


@dataclass(frozen=True)
class Failure:
    case_id: str
    left: str
    right: str
    game: int
    error: str


@dataclass(frozen=True)
class JudgeRunReport:
    family: str
    judge: str
    judge_id: str
    items: int  # items this run covers (all pending, or the sample)
    already_done: int  # (item, order) asked by earlier runs
    total: int  # (item, order) this run had to ask
    judged: int  # replies stored (verdicts and unparsed)
    unparsed: int
    failures: tuple[Failure, ...]
    not_sent: int
    cost: float
    elapsed_s: float
    stopped_by_budget: bool
    verdicts: dict[str, int] = field(default_factory=dict)  # left, right, tie


def items_of(ledger: Ledger, family: str) -> list[tuple[str, str, str, str, str]]:
    """Each item once: (case, system a, system b, output a, output b), systems sorted,
    from the rater's pending pairs (the first samples' outputs where a system has several)."""
    found: dict[tuple[str, str, str], tuple[str, str, str, str, str]] = {}
    for p in for_rating(ledger, family).pending:
        (sa, oa), (sb, ob) = sorted([(p.system_a, p.output_a), (p.system_b, p.output_b)])
        found.setdefault((p.case_id, sa, sb), (p.case_id, sa, sb, oa, ob))
    return [found[k] for k in sorted(found)]


def first_shown_left(case_id: str, a: str, b: str) -> bool:
    """Whether the item's first order shows ``a`` left: half the items each way, fixed by
    the item (a run resumed asks the same order)."""
    return hashlib.sha256(f"{case_id}\n{a}\n{b}".encode()).digest()[0] % 2 == 0


def by_turn(text: str, turns: int) -> tuple[str, ...]:
    """An answer of ``turns`` turns, split as collect joined it (``**Turn N**``); whole
    when it was not joined so."""
    if turns <= 1:
        return (text,)
    marks = list(_TURN.finditer(text))
    if [int(m[1]) for m in marks] != list(range(1, turns + 1)) or marks[0].start() != 0:
        return (text,)
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return tuple(text[m.end() : end].rstrip("\n") for m, end in zip(marks, ends, strict=True))


def _resolve(
    ledger: Ledger, family: str, name: str, declared: DeclaredJudge | None, store: FileStore
) -> tuple[DeclaredJudge, bool]:
    """The judge to run, and whether it is new to the family: as declared, which must
    match what the ledger holds under its name, or as the ledger holds it."""
    stored = judge_runs.stored_judge(ledger, family, name)
    if declared is not None:
        if stored is not None and stored.judge_id != declared.judge_id:
            raise BadInput(
                f"judge {name!r} of family {family!r} was run with another descriptor "
                f"({stored.judge_id[:12]}; this one is {declared.judge_id[:12]}): a changed "
                "template or setting is a new judge; give it a new name",
                field="--judge",
            )
        return declared, stored is None
    if stored is None:
        raise BadInput(
            f"no judge {name!r} has run in family {family!r}: declare it in a systems file "
            "([[judge]], with --systems FILE) or with --base-url, --model and --template",
            field="--judge",
        )
    template = stored.descriptor["template"]
    data = store.get(stored.template_sha256)
    toml = template["name"] in SHIPPED or template["name"].endswith(".toml")
    return DeclaredJudge(
        name,
        stored.descriptor,
        template_of(data, path=template["name"], name=template["name"], toml=toml),
    ), False


def _check_name(ledger: Ledger, family: str, name: str) -> None:
    if catalog.get_family(ledger, family) is None:
        raise catalog.no_such_family(ledger, family)
    problem = name_problem(name)
    if not name or name == "rater" or problem is not None:
        raise BadInput(problem or "a judge needs a name other than 'rater'", field="--judge")
    kind = judge_store.judge_kind(ledger, family, name)
    if kind is not None and judge_runs.stored_judge(ledger, family, name) is None:
        raise BadInput(
            f"judge {name!r} holds verdicts imported from files; a run judge takes a name "
            "of its own",
            field="--judge",
        )


class JudgeRun:
    """One run's jobs, read from the ledger, and how each reply is stored in it."""

    def __init__(
        self,
        ledger: Ledger,
        family: str,
        name: str,
        declared: DeclaredJudge | None,
        options: RunOptions,
    ) -> None:
        _check_name(ledger, family, name)
        soundness.require_sound(ledger, family, soundness.JUDGE_IMPORT)
        self.ledger, self.family, self.options = ledger, family, options
        self.store_files = FileStore.beside(ledger)
        self.judge, self.new = _resolve(ledger, family, name, declared, self.store_files)
        self.judge_id = self.judge.judge_id
        items = items_of(ledger, family)
        if options.sample is not None:
            if options.sample < 1:
                raise BadInput("expected a whole number ≥ 1", field="--sample")
            items = sorted(
                random.Random(options.seed).sample(items, min(options.sample, len(items)))
            )
        self.items = items
        done = judge_runs.asked(ledger, family, name)
        details = roster.case_details(ledger, family)
        cases = {c.case_id: c for c in catalog.cases(ledger, family)}
        jobs: list[JudgeJob] = []
        self.already_done = 0
        for case_id, sa, sb, oa, ob in items:
            orders = [(sa, oa, sb, ob), (sb, ob, sa, oa)]
            if not first_shown_left(case_id, sa, sb):
                orders.reverse()
            wanted = orders[:1] if options.one_order else orders
            todo = [(g, o) for g, o in enumerate(wanted, 1) if (case_id, o[0], o[2]) not in done]
            self.already_done += len(wanted) - len(todo)
            if not todo:
                continue
            found = details.get(CaseId(case_id))
            turns = found.turns if found is not None else (cases[CaseId(case_id)].prompt,)
            reference = found.reference if found is not None else None
            texts = {}
            for oid in (oa, ob):
                output = catalog.get_output(ledger, OutputId(oid))
                texts[oid] = by_turn(output.text if output else "", len(turns))
            for game, (left, lo, right, ro) in todo:
                item = Item(tuple(turns), texts[lo], texts[ro], reference)
                jobs.append(
                    JudgeJob(case_id, left, right, game, self.judge.template.prompt_for(item))
                )
        self.jobs = tuple(jobs)
        self.unparsed = 0
        self.verdicts = {"left": 0, "right": 0, "tie": 0}
        self.last = ""  # the verdict of the reply stored last ("" when another run had it)

    def record_judge(self) -> None:
        """Record the judge (its descriptor, its template's bytes, its source) if new."""
        if not self.new:
            return
        self.store_files.put(self.judge.template.text.encode("utf-8"))
        at = now_iso()
        stored = StoredJudge(
            self.judge.name, self.judge_id, self.judge.descriptor, self.judge.template.sha256
        )
        with self.ledger.atomic():
            judge_runs.add_judge(self.ledger, self.family, stored, at)
            judge_store.add_source(
                self.ledger,
                {
                    "family": self.family,
                    "judge": self.judge.name,
                    "source_sha256": self.judge_id,
                    "format": RUN_FORMAT,
                    "signer": None,
                    "imported_at": at,
                },
            )
        self.new = False

    def store(self, job: JudgeJob, reply: ChatReply) -> None:
        """Store one reply (and its verdict) in its own transaction."""
        text = reply.text or ""
        verdict = parse_verdict(text, self.judge.template.scale)
        digest = self.store_files.put(text.encode("utf-8"))
        at = reply.finished_at or now_iso()
        row = judge_runs.Reply(
            self.judge.name,
            self.judge_id,
            job.case_id,
            job.left,
            job.right,
            job.game,
            verdict.winner,
            verdict.strength,
            digest,
            self.judge.template.sha256,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.cost,
            at,
        )
        with self.ledger.atomic():
            if (job.case_id, job.left, job.right) in judge_runs.asked(
                self.ledger, self.family, self.judge.name
            ):
                self.last = ""
                return  # another run stored it first
            seq = judge_runs.add_reply(self.ledger, self.family, row)
            if verdict.winner != "unparsed":
                judge_store.add_verdicts(
                    self.ledger,
                    [
                        {
                            "family": self.family,
                            "judge": self.judge.name,
                            "kind": "model",
                            "case_id": job.case_id,
                            "left_system": job.left,
                            "right_system": job.right,
                            "winner": verdict.winner,
                            "game": job.game,
                            "source_sha256": self.judge_id,
                            "source_line": seq,
                            "imported_at": at,
                        }
                    ],
                )
        if verdict.winner == "unparsed":
            self.unparsed += 1
        else:
            self.verdicts[verdict.winner] += 1
        self.last = verdict.winner


def run_judge(
    ledger: Ledger,
    family: str,
    name: str,
    *,
    declared: DeclaredJudge | None = None,
    options: RunOptions | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
    on_stored: Callable[[str], None] | None = None,
) -> JudgeRunReport:
    """Ask judge ``name`` of ``family`` (as ``declared``, else as the ledger holds it) for
    every (item, order) not asked yet; each reply stored as it arrives (``on_stored``
    hears its verdict, ``unparsed`` included, once committed)."""
    options = options or RunOptions()
    if options.workers < 1:
        raise BadInput("at least 1", field="--workers")
    if options.per_endpoint is not None and options.per_endpoint < 1:
        raise BadInput("at least 1", field="--per-endpoint")
    work = JudgeRun(ledger, family, name, declared, options)
    settings = work.judge.settings(
        timeout_s=options.timeout_s, retries=options.retries, backoff_s=options.backoff_s
    )
    settings = dataclasses.replace(settings, max_reply_bytes=options.max_reply_bytes)
    settings.check()
    settings.check_secrets(label=name)
    if options.max_cost is not None and work.jobs:
        worst_cost(settings, (work.jobs[0].prompt,), label=name)  # refuses without prices
    work.record_judge()
    stop = stop or threading.Event()
    limit = options.per_endpoint or options.workers
    http = transport.pool(limit)
    client = Client(settings, settings.api_key(), stop, http=http, slots=threading.Semaphore(limit))
    failures: list[Failure] = []

    def ask(job: JudgeJob) -> ChatReply | None:
        return client.ask(client.messages([{"role": "user", "content": job.prompt}]))

    def cost(reply: ChatReply | None) -> float | None:
        if reply is None or reply.status != "ok":
            return 0.0 if reply is None else reply.cost or 0.0
        return reply.cost

    def store(job: JudgeJob, reply: ChatReply | None) -> bool | None:
        if reply is None:
            return None
        if reply.status != "ok":
            failures.append(Failure(job.case_id, job.left, job.right, job.game, reply.error))
            return False
        leak = client.redactor.leak([reply.text or ""])
        if leak:
            raise LedgerError(
                f"judge {name!r}'s reply on case {job.case_id} still holds {leak} after "
                "redaction; nothing of it was stored, and the run stops"
            )
        work.store(job, reply)
        if on_stored is not None and work.last:
            on_stored(work.last)
        return True

    try:
        ran, stopped_by_budget = run_jobs(
            work.jobs,
            workers=options.workers,
            max_cost=options.max_cost,
            worst=lambda job: worst_cost(settings, (job.prompt,), label=name),
            ask=ask,
            cost=cost,
            store=store,
            system=lambda job: name,
            on_progress=on_progress,
            stop=stop,
        )
    finally:
        http.close()
    return JudgeRunReport(
        family=family,
        judge=name,
        judge_id=work.judge_id,
        items=len(work.items),
        already_done=work.already_done,
        total=len(work.jobs),
        judged=ran.answered,
        unparsed=work.unparsed,
        failures=tuple(failures),
        not_sent=ran.not_sent,
        cost=ran.cost,
        elapsed_s=ran.elapsed_s,
        stopped_by_budget=stopped_by_budget,
        verdicts=dict(work.verdicts),
    )


def reply_text(ledger: Ledger, digest: str) -> str:
    """A run judge's full reply, from the ledger's file store."""
    return FileStore.beside(ledger).get(digest).decode("utf-8")
