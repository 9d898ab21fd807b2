"""Asking an OpenAI-compatible chat-completions endpoint for an answer.

The requests go through httpx: one connection pool per endpoint keeps a run's
requests on a few kept-alive connections, and its per-phase timeouts and
streamed body let a whole-reply deadline hold. Replies are parsed, then the
configured bearer token is removed from the parsed values, before anything
leaves this module.
"""

from __future__ import annotations

import email.utils
import json
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import httpx

from arena.graded.run_settings import HARNESS, CollectSettings, completions_url
from arena.graded.suites import Task
from arena.redact import Redactor

# "no_answer" is an imported answer file's item without an answer; collect never makes one.
ItemStatus = Literal[
    "ok", "timeout", "http_error", "malformed_reply", "connection_error", "no_answer"
]
ITEM_STATUSES: tuple[str, ...] = (
    "ok",
    "timeout",
    "http_error",
    "malformed_reply",
    "connection_error",
)
Message = dict[str, str]


@dataclass(frozen=True, kw_only=True)
class ChatReply:
    """The endpoint's answer to one request (after retries); every value already redacted."""

    status: ItemStatus
    text: str | None = None
    finish_reason: str | None = None
    latency_ms: int | None = None  # of the last attempt
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    http_status: int | None = None
    error: str = ""
    attempts: int = 1
    response_model: str | None = None  # the model id the endpoint says answered
    finished_at: str = ""


@dataclass(frozen=True, kw_only=True)
class CollectedItem(ChatReply):
    """One task's result from the endpoint."""

    task_id: str
    input_hash: str


def pool(settings: CollectSettings, connections: int) -> httpx.Client:
    """A connection pool for one endpoint, ``connections`` requests at a time."""
    return httpx.Client(
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        timeout=settings.timeout_s,
        # A proxy from the environment would see the bearer token; endpoints are named whole.
        trust_env=False,
    )


class Client:
    """Asks the endpoint for answers, with retries, and redacts each reply.

    ``http`` is the endpoint's connection pool when several clients share it (else one
    of its own, closed by ``close``); ``slots`` bounds the requests in flight to the
    endpoint across those clients; a retry waits outside it.
    """

    def __init__(
        self,
        settings: CollectSettings,
        key: str | None,
        stop: threading.Event,
        *,
        http: httpx.Client | None = None,
        slots: threading.Semaphore | None = None,
    ):
        self.settings = settings
        self.url = completions_url(settings.endpoint)
        self.key = key
        # The configured key, plus the keys importers also redact ($ARENA_API_KEY, ...).
        self.redactor = Redactor.from_environment(extra=[key] if key else [])
        self.stop = stop
        self.own_http = http is None
        self.http = http if http is not None else pool(settings, settings.concurrency)
        self.slots = slots

    def close(self) -> None:
        if self.own_http:
            self.http.close()

    def messages(self, turns: list[Message]) -> list[Message]:
        """The conversation sent: the system prompt, if any, then ``turns``."""
        prompt = self.settings.system_prompt
        return ([{"role": "system", "content": prompt}] if prompt else []) + turns

    def body(self, messages: list[Message]) -> bytes:
        payload = {**self.settings.inference, "model": self.settings.model, "messages": messages}
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def run(self, task: Task) -> CollectedItem | None:
        """One task's answer; None when stopped during a back-off wait."""
        reply = self.ask(self.messages([{"role": "user", "content": task.input}]))
        if reply is None:
            return None
        return CollectedItem(task_id=task.task_id, input_hash=task.input_hash, **vars(reply))

    def ask(self, messages: list[Message]) -> ChatReply | None:
        """Send ``messages`` with retries; None when stopped during a back-off wait."""
        attempt = 0
        body = self.body(messages)
        while True:
            attempt += 1
            started = time.monotonic()
            with self._slot():
                item, retryable, retry_after = self._attempt(body)
            latency = round((time.monotonic() - started) * 1000)
            if not retryable or attempt > self.settings.retries:
                return ChatReply(latency_ms=latency, attempts=attempt, finished_at=_now(), **item)
            # Retry-After is the server's own word; otherwise back off exponentially.
            wait_s = (
                retry_after
                if retry_after is not None
                else self.settings.backoff_s * 2 ** (attempt - 1)
            )
            if self.stop.wait(min(wait_s, self.settings.max_wait_s)):
                return None

    def _slot(self) -> AbstractContextManager[Any]:
        return self.slots if self.slots is not None else nullcontext()

    def _attempt(self, body: bytes) -> tuple[dict[str, Any], bool, float | None]:
        """(fields of the reply, whether to retry, the server's Retry-After in seconds)."""
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": HARNESS,
        }
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        timeout = self.settings.timeout_s
        deadline = time.monotonic() + timeout
        try:
            with self.http.stream("POST", self.url, content=body, headers=headers) as response:
                raw = _read(response, deadline)
                if response.status_code >= 400:
                    return self._http_error(response, raw)
        except (TimeoutError, httpx.TimeoutException):
            return (
                {"status": "timeout", "error": f"no complete reply within {timeout:g} s"},
                self.settings.retry_timeouts,
                None,
            )
        except httpx.TransportError as error:  # refused, reset, hung up, cut short
            return self._connection(error)
        return self._reply(raw), False, None

    def _connection(self, reason: Any) -> tuple[dict[str, Any], bool, float | None]:
        message = self.redactor.text(f"cannot reach {self.url}: {reason}")
        return {"status": "connection_error", "error": message}, True, None

    def _http_error(
        self, response: httpx.Response, body: bytes
    ) -> tuple[dict[str, Any], bool, float | None]:
        code = response.status_code
        detail = self._error_detail(body)
        item = {
            "status": "http_error",
            "http_status": code,
            "error": f"HTTP {code}: {detail}" if detail else f"HTTP {code}",
        }
        retryable = code == 429 or code >= 500
        header = response.headers.get("Retry-After")
        return item, retryable, _retry_after_seconds(header) if header else None

    def _error_detail(self, body: bytes) -> str:
        text = body.decode("utf-8", "replace")
        try:
            parsed = self.redactor.value(json.loads(text))
        except ValueError:
            return self.redactor.text(text.strip())[:300]
        if isinstance(parsed, dict):
            inner = parsed.get("error", parsed)
            message = inner.get("message") if isinstance(inner, dict) else inner
            if isinstance(message, str):
                return message[:300]
        return json.dumps(parsed, ensure_ascii=False)[:300]

    def _reply(self, raw: bytes) -> dict[str, Any]:
        try:
            parsed = json.loads(raw.decode("utf-8"))
        except ValueError as error:  # includes UnicodeDecodeError
            return {"status": "malformed_reply", "error": f"the reply is not JSON ({error})"}
        reply = self.redactor.value(parsed)
        choices = reply.get("choices") if isinstance(reply, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            return {"status": "malformed_reply", "error": "the reply has no choices[0].message"}
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones, in order
            # Redacted again once joined: a key split across parts shows only here.
            content = self.redactor.text(
                "".join(
                    p.get("text", "")
                    for p in content
                    if isinstance(p, dict) and isinstance(p.get("text"), str)
                )
            )
        if content is not None and not isinstance(content, str):
            return {"status": "malformed_reply", "error": "choices[0].message.content is not text"}
        usage = reply.get("usage") if isinstance(reply.get("usage"), dict) else {}
        prompt, completion = (
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
        )
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        model = reply.get("model")
        prices = self.settings.prices
        return {
            "status": "ok",
            "text": content or "",
            "finish_reason": finish if isinstance(finish, str) else None,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost": prices.cost(prompt, completion) if prices else None,
            "response_model": model if isinstance(model, str) else None,
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _read(response: httpx.Response, deadline: float) -> bytes:
    """The whole body, or TimeoutError once the deadline passes (a trickle is still slow)."""
    chunks: list[bytes] = []
    for chunk in response.iter_bytes(65536):
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise TimeoutError("reply not complete within the timeout")
    return b"".join(chunks)


def _retry_after_seconds(value: str) -> float | None:
    """Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
