"""Running the gates of an import's outputs a batch at a time, on every core.

Language identification is most of an import's work. Where the machine has
more than one core and the file is large enough to repay starting them,
batches of outputs are gated in worker processes while the importing process
reads, checks and stores the next ones; it gates a batch itself rather than
wait for a busy pool. The gates are pure functions of (output, case, family),
so a batch's results are the same wherever it runs, and they are taken back
in the order the batches were sent: the ledger gets the same rows in the same
order as gating one output after the other.

Workers ignore Ctrl-C (the importing process stops them) and end themselves
if the importing process dies. They are started with ``spawn`` unless another
start method is asked for: it works on every platform and in a frozen app
(whose entry point calls ``multiprocessing.freeze_support()``), and unlike
``fork`` it is safe from a process that runs other threads (the window).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeAlias

from arena import gates
from arena.records import Case, Family, GateResult, Output

Batch: TypeAlias = Sequence[tuple[Output, Case]]
Verdicts: TypeAlias = list[tuple[GateResult, ...]]

# A file smaller than this is gated in the importing process: starting workers
# (about 0.3 s of CPU each with spawn: the interpreter, the libraries, the
# language model) costs about what they save on a few MB.
POOL_MIN_BYTES = 8 << 20
START_METHOD = "spawn"


def cores() -> int:
    """The cores this process may run on."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counted is not None:
        return int(counted() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers_for(file_bytes: int, asked: int | None) -> int:
    """How many worker processes gate an import (0: the importing process alone).

    ``asked`` None decides: every core for a file of ``POOL_MIN_BYTES`` or more
    on a machine with more than one, else none. A number is taken as it is.
    """
    if asked is None:
        available = cores()
        return available if available > 1 and file_bytes >= POOL_MIN_BYTES else 0
    return max(asked, 0)


def evaluate_batch(family: Family, batch: Batch) -> Verdicts:
    """Every gate's result for each (output, case) of ``batch``, in order."""
    return [gates.evaluate(output, case, family) for output, case in batch]


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(sentinel: int) -> None:
    """End this worker as soon as the importing process has gone (killed, crashed)."""
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


class _Pending:
    """A batch sent to the pool or gated here, in the order it was sent."""

    def __init__(self, family: Family, batch: Batch, future: Future[Verdicts] | None) -> None:
        self.family = family
        self.batch = batch
        self.future = future
        self.verdicts: Verdicts | None = (
            None if future is not None else evaluate_batch(family, batch)
        )


class Gating:
    """Gates batches in order: in this process (``workers`` 0) or with a pool beside it.

    ``submit`` a batch, then take results back with ``ready`` (those finished,
    oldest first) and ``drain`` (all of them). Use as a context manager: leaving
    it stops the workers, at once when an error or Ctrl-C left it.
    """

    def __init__(self, workers: int, *, start_method: str | None = None) -> None:
        self.workers = workers
        self._start_method = start_method or START_METHOD
        self._pool: ProcessPoolExecutor | None = None
        self._pending: deque[_Pending] = deque()

    def __enter__(self) -> Gating:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.close(abort=error is not None)

    def _executor(self) -> ProcessPoolExecutor | None:
        if self._pool is None and self.workers > 0:
            try:
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context(self._start_method),
                    initializer=_start_worker,
                )
            except (OSError, ImportError, NotImplementedError):
                self.workers = 0  # no processes here (a sandbox, no /dev/shm): gate in-process
        return self._pool

    def submit(self, family: Family, batch: Batch) -> None:
        pool = self._executor()
        future = None
        # Keep the workers busy, and no more: a batch waiting for a busy pool is
        # gated here instead, so nothing piles up in memory and no core idles.
        if pool is not None and self._waiting() < 2 * self.workers:
            try:
                future = pool.submit(evaluate_batch, family, batch)
            except (BrokenProcessPool, OSError):
                self._give_up()  # a worker died, or none could start: gate here
        self._pending.append(_Pending(family, batch, future))

    def _waiting(self) -> int:
        return sum(p.future is not None and not p.future.done() for p in self._pending)

    def ready(self) -> list[tuple[Batch, Verdicts]]:
        """The results of the oldest batches that are finished, in the order sent."""
        done = []
        while self._pending and (self._pending[0].future is None or self._pending[0].future.done()):
            done.append(self._take())
        # Never hold more than a few batches: wait for the oldest.
        while len(self._pending) > 3 * max(self.workers, 1):
            done.append(self._take())
        return done

    def drain(self) -> list[tuple[Batch, Verdicts]]:
        """The results of every batch sent, in the order sent."""
        return [self._take() for _ in range(len(self._pending))]

    def _take(self) -> tuple[Batch, Verdicts]:
        pending = self._pending.popleft()
        if pending.future is not None:
            try:
                pending.verdicts = pending.future.result()
            except BrokenProcessPool:
                # A worker died (killed, out of memory): gate this batch and the rest here.
                self._give_up()
                pending.verdicts = evaluate_batch(pending.family, pending.batch)
        assert pending.verdicts is not None
        return pending.batch, pending.verdicts

    def _give_up(self) -> None:
        self._stop(abort=True)
        self.workers = 0

    def close(self, *, abort: bool = False) -> None:
        """Stop the workers: after their work (``abort`` False), or at once, dropping
        every result not taken."""
        if abort:
            self._pending.clear()
        self._stop(abort=abort)

    def _stop(self, *, abort: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if not abort:
            pool.shutdown(wait=True)
            return
        # Stop the workers mid-batch; the pool's own thread then finds them gone, fails
        # what was pending and waits for them (so nothing else may wait for them here).
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
