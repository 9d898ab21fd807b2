"""The chat-completions client against a scripted local server."""

from __future__ import annotations

import json
import socket
import string
import time
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from arena.endpoint import run_settings
from arena.endpoint.client import _retry_after_seconds
from arena.endpoint.prices import Prices, load_prices
from arena.endpoint.run_settings import (
    CollectSettings,
    completions_url,
    normalise_endpoint,
    run_descriptor,
)
from arena.errors import BadInput
from arena.graded.collect import collect
from arena.graded.graders import ExactMatch
from arena.graded.suites import Task
from arena.redact import REDACTED, skeleton
from tests.graded.fake_endpoint import EchoToken, Fail, FakeEndpoint, Hangup, Raw, Reply

TOKEN = 'sk-test-0123456789.abc"def'  # a '.' and a quote: what regexes over JSON miss
SUITE_HASH = "ab" * 32


def tasks(*inputs: str) -> list[Task]:
    return [Task(f"t{i}", "c", text, ExactMatch(("42",))) for i, text in enumerate(inputs)]


def settings(url: str, **changes) -> CollectSettings:
    base = CollectSettings(
        endpoint=url,
        model="tiny-model",
        timeout_s=2.0,
        retries=3,
        backoff_s=0.01,
        max_wait_s=2.0,
        workers=3,
    )
    return replace(base, **changes)


def run(items, config, **kwargs):
    got = []
    summary = collect(items, config, on_item=got.append, **kwargs)
    return got, summary


@pytest.fixture
def endpoint():
    with FakeEndpoint() as server:
        yield server


# --- the happy path ----------------------------------------------------------


def test_every_task_is_asked_once_and_recorded_with_usage_cost_and_latency(endpoint, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_KEY", TOKEN)
    config = settings(
        endpoint.url + "/v1/",
        system_prompt="Be brief.",
        inference={"temperature": 0.0, "max_tokens": 64, "seed": 7},
        api_key_env="ARENA_TEST_KEY",
        prices=Prices(1.0, 2.0),
    )
    got, summary = run(tasks("a", "b", "c", "d", "e"), config)
    assert sorted(i.task_id for i in got) == ["t0", "t1", "t2", "t3", "t4"]
    assert summary.delivered == 5 and summary.status_counts["ok"] == 5
    item = got[0]
    assert (item.status, item.text, item.finish_reason) == ("ok", "Answer: 42", "stop")
    assert (item.prompt_tokens, item.completion_tokens, item.attempts) == (12, 5, 1)
    assert item.cost == pytest.approx((12 * 1.0 + 5 * 2.0) / 1e6)
    assert item.latency_ms is not None and item.latency_ms >= 0 and item.error == ""
    seen = endpoint.requests[0]
    assert seen.headers["Authorization"] == f"Bearer {TOKEN}"
    assert seen.body["model"] == "tiny-model" and seen.body["seed"] == 7
    assert seen.body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert seen.body["messages"][1]["role"] == "user"


def test_requests_run_concurrently_up_to_the_limit():
    with FakeEndpoint(default=Reply(delay=0.2)) as server:
        started = time.monotonic()
        got, _ = run(tasks(*"abcdefgh"), settings(server.url, workers=4))
        elapsed = time.monotonic() - started
    assert len(got) == 8 and all(i.status == "ok" for i in got)
    assert elapsed < 1.2  # one at a time would take 1.6 s


def test_endpoint_url_forms_name_one_server():
    for form in (
        "http://Host:8000",
        "http://host:8000/",
        "http://host:8000/v1",
        "http://host:8000/v1/",
        "http://host:8000/v1/chat/completions",
    ):
        assert completions_url(form) == "http://host:8000/v1/chat/completions"
    assert normalise_endpoint("https://h/proxy/v1") == "https://h/proxy"
    for bad in ("host:8000", "ftp://h", "http://u:p@h", "http://h/v1?key=1"):
        with pytest.raises(BadInput):
            normalise_endpoint(bad)


def test_null_content_and_missing_usage_are_kept_as_such():
    with FakeEndpoint(
        default=Reply(text=None, finish_reason="content_filter", usage=None)
    ) as server:
        (item,), _ = run(tasks("a"), settings(server.url, prices=Prices(1, 1)))
    assert (item.status, item.text, item.finish_reason) == ("ok", "", "content_filter")
    assert (item.prompt_tokens, item.cost) == (None, None)


# --- failures ----------------------------------------------------------------


def test_a_slow_reply_is_a_timeout_and_is_not_retried():
    with FakeEndpoint({"slow": [Reply(delay=1.5)]}) as server:
        got, _ = run(tasks("slow", "fast"), settings(server.url, timeout_s=0.3))
        assert server.seen("slow") == 1
    by_id = {i.task_id: i for i in got}
    assert by_id["t0"].status == "timeout" and "0.3 s" in by_id["t0"].error
    assert by_id["t0"].text is None and by_id["t1"].status == "ok"


def test_429_and_5xx_are_retried_until_an_answer():
    script = {"busy": [Fail(429), Fail(500), Fail(503), Reply(text="Answer: 7")]}
    with FakeEndpoint(script) as server:
        (item,), _ = run(tasks("busy"), settings(server.url))
        assert server.seen("busy") == 4
    assert (item.status, item.text, item.attempts) == ("ok", "Answer: 7", 4)


def test_retry_after_is_honoured():
    with FakeEndpoint({"wait": [Fail(429, retry_after="1"), Reply()]}) as server:
        run(tasks("wait"), settings(server.url, backoff_s=0.0))
        first, second = (r.at for r in server.requests)
    assert second - first >= 0.95


def test_retry_after_reads_seconds_and_http_dates():
    assert _retry_after_seconds("3") == 3.0
    assert _retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert _retry_after_seconds("soon") is None


def test_other_4xx_fail_at_once_with_the_code_and_message():
    script = {"bad": [Fail(400, body='{"error": {"message": "max_tokens too large"}}')]}
    with FakeEndpoint(script) as server:
        (item,), _ = run(tasks("bad"), settings(server.url))
        assert server.seen("bad") == 1
    assert (item.status, item.http_status, item.attempts) == ("http_error", 400, 1)
    assert item.error == "HTTP 400: max_tokens too large"


def test_retries_run_out_with_the_last_error_kept():
    with FakeEndpoint({"down": [Fail(502, body="<html>bad gateway</html>")]}) as server:
        (item,), _ = run(tasks("down"), settings(server.url, retries=2))
    assert (item.status, item.http_status, item.attempts) == ("http_error", 502, 3)
    assert "bad gateway" in item.error


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"this is not json", "not JSON"),
        (b'{"choices": []}', "choices[0].message"),
        (b'{"choices": [{"message": {"content": 3}}]}', "not text"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_malformed_replies_are_recorded_not_dropped(body, why):
    with FakeEndpoint(default=Raw(body)) as server:
        (item,), _ = run(tasks("a"), settings(server.url))
    assert item.status == "malformed_reply" and why in item.error and item.text is None


def test_an_unreachable_endpoint_is_a_connection_error_after_retries():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (item,), _ = run(tasks("a"), settings(f"http://127.0.0.1:{port}", retries=2))
    assert (item.status, item.attempts) == ("connection_error", 3)
    assert "cannot reach" in item.error


def test_a_dropped_connection_is_retried():
    with FakeEndpoint({"drop": [Hangup(), Reply()]}) as server:
        (item,), _ = run(tasks("drop"), settings(server.url))
    assert (item.status, item.attempts) == ("ok", 2)


# --- secrets -----------------------------------------------------------------


def test_an_echoed_bearer_token_is_redacted_before_on_item(monkeypatch):
    monkeypatch.setenv("ARENA_TEST_KEY", TOKEN)
    script = {
        "echo": [EchoToken()],
        "err": [Fail(400, body='{"error": {"message": "bad key TOKEN"}}')],
        "raw": [Fail(401, body="denied for TOKEN")],
    }
    with FakeEndpoint(script) as server:
        got, _ = run(
            tasks("echo", "err", "raw"), settings(server.url, api_key_env="ARENA_TEST_KEY")
        )
    for item in got:
        assert not any(TOKEN in v for v in item.__dict__.values() if isinstance(v, str))
    by_id = {i.task_id: i for i in got}
    assert by_id["t0"].text == f"Your key is {REDACTED}. Answer: 42"
    assert by_id["t0"].response_model == f"tiny-model-{REDACTED}"
    assert REDACTED in by_id["t1"].error and REDACTED in by_id["t2"].error


# No brackets: a key overlapping the "[REDACTED]" marker would seem to survive it.
KEY_CHARS = string.ascii_letters + string.digits + "._-+/=\"\\{}:,'"


@hypothesis_settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# A key with fewer letters and digits is not looked for (it would blank out words).
@given(key=st.text(KEY_CHARS, min_size=8, max_size=48).filter(lambda k: len(skeleton(k)) >= 8))
def test_any_echoed_key_is_redacted(endpoint, monkeypatch, key):
    monkeypatch.setenv("ARENA_TEST_KEY", key)
    endpoint.default = EchoToken()
    (item,), _ = run(tasks("echo"), settings(endpoint.url, api_key_env="ARENA_TEST_KEY"))
    assert item.status == "ok" and REDACTED in item.text
    assert all(key not in (value or "") for value in (item.text, item.response_model, item.error))


def test_an_unset_key_variable_is_refused_before_any_request(endpoint):
    with pytest.raises(BadInput, match="ARENA_NOPE"):
        run(tasks("a"), settings(endpoint.url, api_key_env="ARENA_NOPE"))
    assert endpoint.requests == []


def test_a_key_too_short_to_redact_is_never_sent(endpoint, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_KEY", "k3y!")
    endpoint.default = EchoToken()
    with pytest.raises(BadInput, match="ARENA_TEST_KEY has fewer than 8 letters and digits"):
        run(tasks("echo"), settings(endpoint.url, api_key_env="ARENA_TEST_KEY"))
    assert endpoint.requests == []
    # The control: sent, the endpoint hands it back and nothing could take it out.
    monkeypatch.setattr(run_settings, "MIN_SECRET_LENGTH", 0)
    (item,), _ = run(tasks("echo"), settings(endpoint.url, api_key_env="ARENA_TEST_KEY"))
    assert "k3y!" in (item.text or "")


def test_reserved_or_unserialisable_inference_settings_are_refused(endpoint):
    with pytest.raises(BadInput, match="inference.messages"):
        run(tasks("a"), settings(endpoint.url, inference={"messages": []}))
    with pytest.raises(BadInput, match="inference"):
        run(tasks("a"), settings(endpoint.url, inference={"t": float("nan")}))


# --- resume and progress -----------------------------------------------------


class Boom(Exception):
    pass


@pytest.mark.parametrize("error", [Boom, KeyboardInterrupt])
def test_an_interrupted_run_resumes_without_collecting_anything_twice(endpoint, error):
    items = tasks(*(f"q{i}" for i in range(10)))
    stored = []

    def store_then_crash(item):
        if len(stored) == 3:
            raise error()
        stored.append(item)

    with pytest.raises(error):
        collect(items, settings(endpoint.url), on_item=store_then_crash)
    assert len(stored) == 3
    done = {i.task_id for i in stored if i.status == "ok"}
    resumed, summary = run(items, settings(endpoint.url), done=done)
    stored.extend(resumed)
    assert summary.skipped == 3 and summary.delivered == 7
    ids = [i.task_id for i in stored]
    assert len(ids) == len(set(ids)) == 10 and all(i.status == "ok" for i in stored)


def test_progress_reports_what_is_done_of_what_is_left_and_the_rate(endpoint):
    seen = []
    items = tasks("a", "b", "c", "d")
    run(items, settings(endpoint.url), done={"t0"}, on_progress=seen.append)
    assert [p.answered + p.failed for p in seen] == [0, 1, 2, 3]
    assert {p.total for p in seen} == {3}  # the task already done is not counted
    assert seen[0].rate == 0 and seen[-1].rate > 0


# --- prices and the run tuple ------------------------------------------------


def test_prices_come_from_a_table_by_model_or_star(tmp_path):
    table = tmp_path / "prices.toml"
    table.write_text(
        '["tiny-model"]\nprompt = 0.15\ncompletion = 0.6\n["*"]\nprompt = 1\ncompletion = 2\n',
        "utf-8",
    )
    assert load_prices(table, "tiny-model") == Prices(0.15, 0.6)
    assert load_prices(table, "other") == Prices(1.0, 2.0)
    as_json = tmp_path / "prices.json"
    as_json.write_text(json.dumps({"m": {"prompt": 3, "completion": -1}}), "utf-8")
    with pytest.raises(BadInput, match="m.completion"):
        load_prices(as_json, "m")
    with pytest.raises(BadInput, match="no prices"):
        load_prices(as_json, "x")
    assert Prices(0.15, 0.6).cost(1_000_000, 500_000) == pytest.approx(0.45)


def _descriptor(**changes):
    fields = {
        "endpoint": "http://h:8000/v1",
        "suite_hash": SUITE_HASH,
        "answer_contract": "final_line",
        "parser": "p1",
        "system_prompt": None,
        "inference": {"temperature": 0.2, "max_tokens": 256},
    }
    fields.update(changes)
    model = fields.pop("model", "m")
    return run_descriptor(model, **fields)


def test_every_field_of_the_run_tuple_changes_the_system_id():
    base = _descriptor().system_id
    assert _descriptor(endpoint="http://h:8000/").system_id == base
    variants = [
        {"model": "m2"},
        {"endpoint": "http://h:8001"},
        {"suite_hash": "cd" * 32},
        {"answer_contract": "json"},
        {"parser": "p2"},
        {"system_prompt": "Be brief."},
        {"inference": {"temperature": 0.3, "max_tokens": 256}},
        {"harness": "other/1"},
        {"revision": "abc"},
        {"artifact_digest": "sha256:00"},
        {"quantization": "Q4_K_M"},
        {"timeout_s": 30.0},
        {"retry_policy": "retries=0"},
    ]
    ids = {_descriptor(**v).system_id for v in variants}
    assert base not in ids and len(ids) == len(variants)


def test_secrets_never_enter_the_descriptor(monkeypatch):
    with pytest.raises(BadInput, match="api_key"):
        _descriptor(inference={"api_key": "sk-123456789"})
    with pytest.raises(BadInput, match="suite_hash"):
        _descriptor(suite_hash="abc")
    monkeypatch.setenv("ARENA_TEST_KEY", TOKEN)
    config = settings("http://h:1", api_key_env="ARENA_TEST_KEY", inference={"seed": 1})
    described = config.descriptor(suite_hash=SUITE_HASH, answer_contract="final_line", parser="p1")
    assert TOKEN not in json.dumps(described.canonical())
    assert (described.suite_hash, described.answer_contract) == (SUITE_HASH, "final_line")
    assert described.inference["timeout_s"] == 2.0 and "retries=3" in described.retry_policy


def test_both_forms_of_collect_take_workers_and_the_old_concurrency_still_parses(capsys):
    from arena.cli.main import build_parser

    parser = build_parser()
    suite = ["collect", "starter", "--endpoint", "http://h:1", "--model", "m"]
    assert parser.parse_args([*suite, "--workers", "3"]).workers == 3
    assert parser.parse_args([*suite, "--concurrency", "5"]).workers == 5
    assert parser.parse_args(["collect", "--family", "f"]).workers == 4
    with pytest.raises(SystemExit):
        parser.parse_args(["collect", "--help"])
    assert "--concurrency" not in capsys.readouterr().out  # a hidden alias
