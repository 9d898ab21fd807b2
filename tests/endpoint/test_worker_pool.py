"""The one pool of workers under both collecting kinds (arena.endpoint.worker_pool)."""

import threading

import pytest

from arena.endpoint.budget import Budget
from arena.endpoint.worker_pool import send_all


def _send(jobs, budget, on_result, workers=2):
    return send_all(
        jobs,
        workers=workers,
        ask=lambda job: job * 10,
        most=lambda job: 1.0,
        cost=lambda result: 0.5,
        on_result=on_result,
        budget=budget,
        stop=threading.Event(),
    )


def test_every_job_is_answered_and_counted_at_what_it_cost():
    got = {}
    budget = Budget(None)
    assert _send(range(7), budget, got.__setitem__) is False
    assert got == {job: job * 10 for job in range(7)} and budget.spent == 3.5


def test_the_budget_stops_sending_and_says_so():
    got = []
    budget = Budget(1.2)  # room for one job's most; then what it cost leaves too little
    assert _send(range(5), budget, lambda job, result: got.append(job), workers=1) is True
    assert got == [0]


def test_a_failing_store_drops_what_is_in_flight():
    def fail(job, result):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        _send(range(5), Budget(None), fail)
