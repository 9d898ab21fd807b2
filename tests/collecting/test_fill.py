"""Collecting a votes family's outputs from a scripted server on 127.0.0.1."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from arena.collecting.asking import RunOptions
from arena.collecting.fill import fill
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, verdicts
from tests.collecting.helpers import make_family
from tests.graded.fake_endpoint import Echo, Fail, FakeEndpoint, Reply, echo

FAST = RunOptions(workers=4, timeout_s=2.0, retries=4, backoff_s=0.01)


def _outputs(ledger_path):
    with Ledger.open(ledger_path, readonly=True) as ledger:
        return catalog.outputs(ledger, "fam")


def test_each_turn_is_sent_with_the_systems_own_earlier_answers(ledger_path, tmp_path, key):
    with FakeEndpoint(default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=3)
        with Ledger.open(ledger_path) as ledger:
            report = fill(ledger, "fam", options=FAST)
        requests = list(server.requests)
    assert report.summary.answered == 6 and not report.summary.failures
    assert len(requests) == 12  # 3 cases x 2 systems x 2 turns
    second = [r.body["messages"] for r in requests if r.content.endswith("turn 2.")]
    for messages in second:
        system, first, answer, turn = messages
        assert system["role"] == "system" and turn["role"] == "user"
        # The assistant turn is this system's own answer to the first turn.
        assert answer == {
            "role": "assistant",
            "content": echo({"model": "tiny-model", "messages": [system, first]}),
        }
    assert all(r.headers["Authorization"] == f"Bearer {key}" for r in requests)
    outputs = _outputs(ledger_path)
    assert len(outputs) == 6
    one = outputs[0]
    assert "**Turn 1**" in one.text and "**Turn 2**" in one.text and "after 1:" in one.text
    assert (one.prompt_tokens, one.completion_tokens, one.finish_reason) == (24, 10, "stop")
    assert one.latency_ms is not None and one.latency_ms >= 0


def test_every_output_is_gated_as_it_is_stored(ledger_path, tmp_path, key):
    script = {"Question 0, turn 2.": [Reply(text="cut", finish_reason="length")]}
    with FakeEndpoint(script, default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=2)
        with Ledger.open(ledger_path) as ledger:
            fill(ledger, "fam", options=FAST)
            outputs = catalog.outputs(ledger, "fam")
            found = verdicts.in_force(ledger, [o.output_id for o in outputs])
    cut = [o for o in outputs if o.case_id == "c000"]
    assert len(cut) == 2 and all(o.finish_reason == "length" for o in cut)
    for o in outputs:
        truncated = next(r for r in found[o.output_id] if r.gate == "truncated")
        assert truncated.passed == (o.case_id != "c000")


def test_a_second_run_asks_only_for_what_is_missing(ledger_path, tmp_path, key):
    with FakeEndpoint(default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=4, samples=2)
        with Ledger.open(ledger_path) as ledger:
            first = fill(ledger, "fam", labels=["brief"], options=FAST)
            asked = len(server.requests)
            second = fill(ledger, "fam", options=FAST)
            third = fill(ledger, "fam", options=FAST)
        assert (first.summary.answered, asked) == (8, 16)
        assert (second.already_done, second.summary.answered) == (8, 8)
        assert (third.already_done, third.summary.total) == (16, 0)
        assert len(server.requests) == 32
    counts = Counter((o.case_id, o.system_id, o.sample) for o in _outputs(ledger_path))
    assert len(counts) == 16 and set(counts.values()) == {1}


def test_bursts_of_429_and_500_and_a_stalling_server_lose_and_repeat_nothing(
    ledger_path, tmp_path, key
):
    stall = Reply(delay=1.0)  # past the 0.3 s timeout below
    script = {
        **{
            f"Question {i}, turn 1.": [Fail(429, retry_after="0"), Fail(500), Echo()]
            for i in range(0, 30, 3)
        },
        **{f"Question {i}, turn 2.": [Fail(503), stall, Echo()] for i in range(1, 30, 3)},
        # Never answers: reported as failed, not stored.
        "Question 2, turn 1.": [stall],
        "Question 5, turn 2.": [Fail(500)],
    }
    options = RunOptions(workers=6, timeout_s=0.3, retries=3, backoff_s=0.01)
    with FakeEndpoint(script, default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=30)
        with Ledger.open(ledger_path) as ledger:
            report = fill(ledger, "fam", options=options)
            again = fill(ledger, "fam", options=options)
    failed = sorted((f.case_id, f.label) for f in report.summary.failures)
    assert failed == sorted((c, s) for c in ("c002", "c005") for s in ("brief", "thorough"))
    assert all("turn" in f.error for f in report.summary.failures)
    assert report.summary.answered == 56 and report.summary.not_sent == 0
    # What failed is asked again by the next run, and fails again here: still reported.
    assert again.summary.total == 4 and len(again.summary.failures) == 4
    counts = Counter((o.case_id, o.system_id, o.sample) for o in _outputs(ledger_path))
    assert len(counts) == 56 and set(counts.values()) == {1}


def test_max_cost_is_never_passed(ledger_path, tmp_path, key):
    # Each reply says 12 + 5 tokens: at 1000 and 2000 a million, 0.022 a turn.
    per_turn = (12 * 1000 + 5 * 2000) / 1e6
    with FakeEndpoint(default=Echo(delay=0.01)) as server:
        make_family(
            ledger_path, tmp_path, server.url, cases=20, input_price=1000, output_price=2000
        )
        with Ledger.open(ledger_path) as ledger:
            report = fill(ledger, "fam", options=RunOptions(workers=4, max_cost=0.8))
        served = len(server.requests)
    assert served * per_turn <= 0.8  # what the server billed, not what we counted
    assert report.summary.cost == pytest.approx(served * per_turn)
    assert report.summary.stopped_by_budget and report.summary.not_sent > 0
    assert report.summary.answered >= 1
    assert len(_outputs(ledger_path)) == report.summary.answered


def test_a_reply_without_usage_counts_at_the_most_it_could_cost(ledger_path, tmp_path, key):
    from arena.collecting.fill import plan
    from arena.collecting.systems_file import settings_of
    from arena.endpoint.budget import worst_cost

    with FakeEndpoint(default=Reply(usage=None)) as server:
        make_family(
            ledger_path, tmp_path, server.url, cases=20, input_price=1000, output_price=2000
        )
        with Ledger.open(ledger_path) as ledger:
            most = {}
            for job in plan(ledger, "fam").jobs:
                settings = settings_of(job.system, timeout_s=1, retries=0, backoff_s=0)
                most[job.output_id] = worst_cost(settings, job.turns, label=job.system.label)
            limit = 5 * max(most.values())
            report = fill(ledger, "fam", options=RunOptions(workers=2, max_cost=limit))
            stored = [o.output_id for o in catalog.outputs(ledger, "fam")]
    assert report.summary.stopped_by_budget and 4 <= len(stored) == report.summary.answered
    assert report.summary.cost == pytest.approx(sum(most[o] for o in stored))
    assert report.summary.cost <= limit


def test_max_cost_needs_prices_and_max_tokens(ledger_path, tmp_path, key):
    with FakeEndpoint(default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=2)
        with Ledger.open(ledger_path) as ledger, pytest.raises(BadInput, match="prices"):
            fill(ledger, "fam", options=RunOptions(max_cost=1.0))
        assert server.requests == []


def test_an_unset_key_variable_stops_the_run_before_any_request(ledger_path, tmp_path, monkeypatch):
    with FakeEndpoint(default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=2)
        monkeypatch.delenv("ARENA_COLLECT_TEST_KEY", raising=False)
        with Ledger.open(ledger_path) as ledger, pytest.raises(BadInput, match="not set"):
            fill(ledger, "fam", options=FAST)
        assert server.requests == []


def test_requests_to_one_endpoint_stay_within_its_limit(ledger_path, tmp_path, key):
    with FakeEndpoint(default=Echo(delay=0.1)) as server:
        make_family(ledger_path, tmp_path, server.url, cases=6, turns=1)
        with Ledger.open(ledger_path) as ledger:
            fill(ledger, "fam", options=RunOptions(workers=6, per_endpoint=2))
        starts = sorted(r.at for r in server.requests)
    # At most two in flight: the third request starts only once the first has answered.
    most = max(sum(1 for t in starts if s <= t < s + 0.09) for s in starts)
    assert len(starts) == 12 and most <= 2


def test_a_stop_sends_nothing_more_and_keeps_what_arrived(ledger_path, tmp_path, key):
    stop = threading.Event()
    with FakeEndpoint(default=Echo(delay=0.05)) as server:
        make_family(ledger_path, tmp_path, server.url, cases=40, turns=1)
        with Ledger.open(ledger_path) as ledger:

            def progress(p):
                if p.answered >= 10:
                    stop.set()

            report = fill(ledger, "fam", options=FAST, on_progress=progress, stop=stop)
            stored = catalog.count_outputs(ledger, "fam")
            rest = fill(ledger, "fam", options=FAST)
    assert 10 <= report.summary.answered < 80 and stored == report.summary.answered
    assert rest.summary.answered == 80 - stored and rest.already_done == stored


def test_a_tests_then_votes_family_stores_the_replys_diff(ledger_path, tmp_path, key):
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    reply = Reply(text=f"The fix:\n\n```diff\n{diff}```\nDone.")
    with FakeEndpoint(default=reply) as server:
        make_family(ledger_path, tmp_path, server.url, cases=2, turns=1, kind="tests_then_votes")
        with Ledger.open(ledger_path) as ledger:
            fill(ledger, "fam", options=FAST)
    outputs = _outputs(ledger_path)
    assert len(outputs) == 4 and all(o.is_diff and o.text == diff for o in outputs)


def test_only_votes_and_tests_then_votes_families_collect(ledger_path, tmp_path, key):
    from arena.intake.families import create_family
    from arena.intake.family_settings import FamilySettings

    with Ledger.open(ledger_path) as ledger:
        create_family(ledger, "t", FamilySettings(kind="tests", language="en"))
        with pytest.raises(BadInput, match="tests family"):
            fill(ledger, "t")
        with pytest.raises(BadInput, match="no family"):
            fill(ledger, "nope")
