"""The connections to an endpoint: every request ends by its deadline, every reply by its cap.

Timeouts that apply to each socket call one at a time never end a reply trickling a
byte at a time (each call gets its byte), nor headers sent that way. Here every socket
call a request makes (connect, TLS handshake, each send, each read) is given what is
left of the request's own deadline, set by ``deadline`` on the thread that sends it,
so the whole exchange ends when the deadline passes. Replies come in raw (no content
coding is asked for, none is undone) and are read a chunk at a time up to a cap.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpcore

_local = threading.local()


class ReplyTooLarge(Exception):
    """The reply is larger than the cap; what was read of it is dropped."""

    def __init__(self, cap: int) -> None:
        super().__init__(
            f"the reply is larger than {cap / 1_000_000:g} MB, the cap on a reply "
            "(raise it with --max-reply-mb)"
        )


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every socket call this thread makes inside ends within ``seconds`` from now."""
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = None


def left(timeout: float | None, error: type[Exception]) -> float | None:
    """What a socket call may wait: ``timeout``, or less if the deadline comes first."""
    end = getattr(_local, "deadline", None)
    if end is None:
        return timeout
    remaining = end - time.monotonic()
    if remaining <= 0:
        raise error("the deadline of the request has passed")
    return remaining if timeout is None else min(timeout, remaining)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        tls = self.inner.start_tls(
            ssl_context, server_hostname, left(timeout, httpcore.ConnectTimeout)
        )
        return _Stream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self.inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        stream = self.inner.connect_tcp(
            host, port, left(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return _Stream(stream)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def pool(connections: int) -> httpcore.ConnectionPool:
    """Kept-alive connections to one endpoint, ``connections`` at a time. No proxy is
    read from the environment: it would see the bearer token."""
    return httpcore.ConnectionPool(
        max_connections=connections,
        max_keepalive_connections=connections,
        network_backend=_Backend(),
    )


def read_capped(response: httpcore.Response, cap: int) -> bytes:
    """The reply's body, or ReplyTooLarge as soon as it passes ``cap`` bytes (a declared
    length is believed only when it is small enough)."""
    for name, value in response.headers:
        if name.lower() == b"content-length" and value.strip().isdigit() and int(value) > cap:
            raise ReplyTooLarge(cap)
    chunks, size = [], 0
    for chunk in response.iter_stream():
        size += len(chunk)
        if size > cap:
            raise ReplyTooLarge(cap)
        chunks.append(chunk)
    return b"".join(chunks)
