"""An endpoint cannot hold the rater's memory or time: every reply ends at its cap, every
request at its deadline (``arena.endpoint.transport``), each tried with the defence off."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from arena.endpoint import transport
from arena.endpoint.client import ChatReply, Client
from arena.endpoint.run_settings import DEFAULT_MAX_REPLY_BYTES, CollectSettings
from tests.graded.fake_endpoint import FakeEndpoint, Flood, Raw, Trickle

TIMEOUT = 2.0


def _settings(url: str, **changes) -> CollectSettings:
    base = CollectSettings(
        endpoint=url, model="tiny", timeout_s=TIMEOUT, retries=0, backoff_s=0.0, workers=1
    )
    return replace(base, **changes)


def _ask(server: FakeEndpoint, **changes) -> tuple[ChatReply, float]:
    client = Client(_settings(server.url, **changes), None, threading.Event())
    started = time.monotonic()
    try:
        reply = client.ask([{"role": "user", "content": "hello"}])
    finally:
        client.close()
    assert reply is not None
    return reply, time.monotonic() - started


def _rss_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


class _PeakRss:
    """The process's largest resident size while inside, sampled every 10 ms."""

    def __enter__(self) -> _PeakRss:
        self.before = self.peak = _rss_bytes()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while not self.done.wait(0.01):
            self.peak = max(self.peak, _rss_bytes())

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()
        self.peak = max(self.peak, _rss_bytes())


def test_a_2_gb_reply_ends_at_the_cap_without_holding_the_memory(figures):
    with FakeEndpoint(default=Flood(2_000_000_000)) as server, _PeakRss() as rss:
        reply, elapsed = _ask(server, timeout_s=120.0)
    grown = rss.peak - rss.before
    figures["flood_2gb_seconds"] = round(elapsed, 2)
    figures["flood_2gb_rss_growth_mb"] = round(grown / 1e6, 1)
    figures["flood_2gb_sent_mb"] = round(server.sent / 1e6, 1)
    assert reply.status == "malformed_reply" and "larger than 8 MB" in reply.error
    assert grown < 300_000_000
    # The server is stopped soon after the cap: what the sockets buffer, not gigabytes.
    assert server.sent < DEFAULT_MAX_REPLY_BYTES + 32_000_000


def test_a_declared_length_past_the_cap_is_refused_before_the_body_is_read():
    body = b"{" + b" " * (DEFAULT_MAX_REPLY_BYTES + 1)
    with FakeEndpoint(default=Raw(body)) as server:
        reply, _ = _ask(server)
    assert reply.status == "malformed_reply" and "larger than" in reply.error


def test_without_the_cap_the_same_client_reads_on_past_it(monkeypatch):
    size = 3 * DEFAULT_MAX_REPLY_BYTES  # bounded by the test: the server stops here
    with FakeEndpoint(default=Flood(size)) as server:
        capped, _ = _ask(server)
        # The defence off: the body buffered whole, as it was before the cap.
        monkeypatch.setattr(
            transport, "read_capped", lambda response, cap: b"".join(response.iter_stream())
        )
        uncapped, _ = _ask(server)
    assert capped.status == "malformed_reply"
    assert uncapped.status == "ok" and len(uncapped.text or "") > 2 * DEFAULT_MAX_REPLY_BYTES


def test_a_raised_cap_lets_a_larger_reply_through():
    with FakeEndpoint(default=Flood(12_000_000)) as server:
        reply, _ = _ask(server, max_reply_bytes=16_000_000)
    assert reply.status == "ok"


@pytest.mark.parametrize("in_headers", [False, True], ids=["body", "headers"])
def test_a_reply_trickling_a_byte_a_second_ends_at_the_timeout(in_headers, figures):
    with FakeEndpoint(default=Trickle(30, in_headers=in_headers)) as server:
        reply, elapsed = _ask(server)
    figures[f"trickle_{'headers' if in_headers else 'body'}_seconds"] = round(elapsed, 2)
    assert reply.status == "timeout"
    assert TIMEOUT - 0.1 <= elapsed <= TIMEOUT + 1


@pytest.mark.parametrize("in_headers", [False, True], ids=["body", "headers"])
def test_without_the_deadline_a_trickle_outlasts_the_timeout(in_headers, monkeypatch):
    # The defence off: each socket call waits its own timeout, as it did before.
    monkeypatch.setattr(transport, "left", lambda timeout, error: timeout)
    slow = int(TIMEOUT) + 3  # bounded by the test: the server then sends the rest at once
    with FakeEndpoint(default=Trickle(slow, in_headers=in_headers)) as server:
        reply, elapsed = _ask(server)
    assert reply.status == "malformed_reply"  # read to its end: blanks, not JSON
    assert elapsed > TIMEOUT + 1


def test_the_deadline_ends_each_socket_call_and_then_refuses_more():
    with transport.deadline(0.05):
        assert transport.left(10.0, TimeoutError) <= 0.05
        assert transport.left(None, TimeoutError) <= 0.05
        time.sleep(0.06)
        with pytest.raises(TimeoutError):
            transport.left(10.0, TimeoutError)
    assert transport.left(10.0, TimeoutError) == 10.0  # outside a request: as given
