"""An endpoint that lies about its usage, or answers what cannot be stored, is held to
the budget and fails one job, not the run; each tried with the defence off."""

from __future__ import annotations

import json
import types
from dataclasses import replace

import pytest

from arena.cli.main import main
from arena.collecting.asking import RunOptions
from arena.collecting.fill import fill
from arena.endpoint import client
from arena.endpoint.budget import Counted, counted, worst_cost
from arena.endpoint.prices import Prices
from arena.endpoint.run_settings import CollectSettings
from arena.graded.runs import collect_run
from arena.graded.suites import load_suite
from arena.ledger import Ledger, catalog
from tests.collecting.helpers import KEY, make_family
from tests.graded.fake_endpoint import Echo, FakeEndpoint, Flood, Raw, Reply

LIMIT = 0.002  # the budget: a lying endpoint took it to 8000
LIE = Reply(usage=(12, 1_000_000))  # a million completion tokens, with max_tokens = 64
# 2 a million answer tokens: 64 of them cost 0.000128, a million cost 2.
PRICES = {"input_price": 1.0, "output_price": 2.0}


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", KEY)


def _believe_every_count(monkeypatch):
    """The defence off: a reply's counts taken as it gives them."""
    monkeypatch.setattr(
        client,
        "counted",
        lambda settings, messages, prompt, completion: Counted(prompt, completion),
    )


def _fill(ledger_path, tmp_path, server, *, workers=4, cases=40):
    make_family(ledger_path, tmp_path, server.url, cases=cases, turns=1, **PRICES)
    with Ledger.open(ledger_path) as ledger:
        report = fill(ledger, "fam", options=RunOptions(workers=workers, max_cost=LIMIT))
        return report.summary, catalog.outputs(ledger, "fam")


@pytest.mark.parametrize("workers", [1, 4])
def test_a_lying_endpoint_never_takes_a_family_run_past_max_cost(
    ledger_path, tmp_path, workers, figures
):
    with FakeEndpoint(default=LIE) as server:
        summary, outputs = _fill(ledger_path, tmp_path, server, workers=workers)
    figures["lying_replies"] += summary.answered
    figures["cost_with_a_budget_of_0.002"] = summary.cost
    assert summary.cost <= LIMIT and summary.stopped_by_budget
    assert summary.answered >= 4 and len(outputs) == summary.answered
    assert {o.completion_tokens for o in outputs} == {64}  # counted at max_tokens
    assert len(summary.suspicious) == summary.answered
    assert "1000000 completion tokens reported, max_tokens is 64" in summary.suspicious[0].error


def test_believing_the_lie_passes_max_cost(ledger_path, tmp_path, monkeypatch):
    _believe_every_count(monkeypatch)
    with FakeEndpoint(default=LIE) as server:
        summary, _ = _fill(ledger_path, tmp_path, server)
    assert summary.cost > 1000 * LIMIT  # every reply in flight counted at 2 each


def test_a_lying_endpoint_never_takes_a_graded_run_past_max_cost(ledger, monkeypatch):
    suite = load_suite("starter")
    with FakeEndpoint(default=LIE) as server:

        def run():
            return collect_run(ledger, suite, _graded(server.url), label="liar").summary

        summary = run()
        _believe_every_count(monkeypatch)
        unbelieved = run()  # the defence off: the tasks left, counts believed
    assert summary.cost <= LIMIT and summary.stopped_by_budget and summary.delivered >= 4
    assert set(summary.suspicious) and all(
        "max_tokens is 64" in w for w in summary.suspicious.values()
    )
    assert unbelieved.cost > LIMIT


def _graded(url: str) -> CollectSettings:
    return CollectSettings(
        endpoint=url,
        model="tiny",
        inference={"max_tokens": 64},
        prices=Prices(1.0, 2.0),
        timeout_s=2.0,
        retries=0,
        workers=4,
        max_cost=LIMIT,
    )


def test_collect_prints_what_it_did_not_believe(tmp_path, capsys):
    shown = {}
    with FakeEndpoint(default=LIE) as server:
        for form in ("text", "json"):
            path = tmp_path / f"{form}.sqlite"
            make_family(path, tmp_path, server.url, cases=3, turns=1, **PRICES)
            argv = ["--ledger", str(path), "collect", "--family", "fam", "--max-cost", "1"]
            assert main(argv + (["--json"] if form == "json" else [])) == 0
            shown[form] = capsys.readouterr().out
    assert (
        "  suspicious: brief on case c000 sample 0: turn 1: 1000000 completion tokens"
        in (shown["text"])
    )
    listed = json.loads(shown["json"])["suspicious"]
    assert len(listed) == 6 and {s["label"] for s in listed} == {"brief", "thorough"}


# --- replies that cannot be stored -----------------------------------------------------

BAD = {
    "lone_surrogate": Raw(
        b'{"choices": [{"message": {"content": "\\ud800 Answer: 42"}, "finish_reason": "stop"}]}'
    ),
    "nested_100000_deep": Raw(
        b'{"choices": [{"message": {"content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}]}"
    ),
    "not_json": Raw(b"<html>502 Bad Gateway</html>"),
    "too_large": Flood(20_000_000),
}


@pytest.mark.parametrize("bad", list(BAD))
def test_a_reply_that_cannot_be_stored_fails_its_job_and_the_run_goes_on(
    ledger_path, tmp_path, bad, figures
):
    script = {"Question 1, turn 1.": [BAD[bad]]}
    with FakeEndpoint(script, default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=4, turns=1)
        with Ledger.open(ledger_path) as ledger:
            summary = fill(ledger, "fam", options=RunOptions(workers=2, retries=0)).summary
    figures["bad_replies_failed_alone"] += len(summary.failures)
    assert summary.answered == 6 and len(summary.failures) == 2
    assert {f.case_id for f in summary.failures} == {"c001"}
    assert all(f.error.startswith("turn 1: ") for f in summary.failures)


@pytest.mark.parametrize("bad", ["lone_surrogate", "nested_100000_deep"])
def test_a_lax_parser_lets_a_bad_reply_end_the_run(ledger_path, tmp_path, monkeypatch, bad):
    # The defence off: Python's json, which takes lone surrogates and recurses.
    monkeypatch.setattr(
        client, "orjson", types.SimpleNamespace(loads=json.loads, JSONDecodeError=ValueError)
    )
    script = {"Question 1, turn 1.": [BAD[bad]]}
    with FakeEndpoint(script, default=Echo()) as server:
        make_family(ledger_path, tmp_path, server.url, cases=4, turns=1)
        with Ledger.open(ledger_path) as ledger, pytest.raises((UnicodeError, RecursionError)):
            fill(ledger, "fam", options=RunOptions(workers=2, retries=0))


def test_a_graded_run_records_a_bad_reply_as_malformed_and_goes_on(ledger):
    suite = load_suite("starter")
    script = {
        suite.tasks[0].input: [BAD["lone_surrogate"]],
        suite.tasks[1].input: [BAD["nested_100000_deep"]],
    }
    with FakeEndpoint(script, default=Reply()) as server:
        settings = replace(_graded(server.url), max_cost=None)
        summary = collect_run(ledger, suite, settings, label="odd").summary
    assert summary.status_counts["malformed_reply"] == 2
    assert summary.delivered == len(suite.tasks)


def test_the_most_a_job_can_cost_covers_what_it_is_counted_at():
    settings = _graded("http://127.0.0.1:9")
    most = worst_cost(settings, ("Question?",), label="x")
    messages = [{"role": "user", "content": "Question?"}]
    at = counted(settings, messages, 10**9, 10**9)
    assert Prices(1.0, 2.0).cost(at.prompt_tokens, at.completion_tokens) <= most
