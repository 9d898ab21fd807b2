"""Asking an OpenAI-compatible chat-completions endpoint for an answer.

Requests go through httpcore, over one connection pool per endpoint, so a run's
requests share a few kept-alive connections; each request ends by its deadline and
each reply by its cap (``arena.endpoint.transport``). Replies are parsed strictly (bad
Unicode and deep nesting are a malformed reply, not a crash), then the configured
bearer token is removed from every value kept, before anything leaves this module.
"""

from __future__ import annotations

import email.utils
import json
import re
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import httpcore
import orjson

from arena.endpoint import transport
from arena.endpoint.budget import counted
from arena.endpoint.run_settings import HARNESS, CollectSettings, completions_url
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
_PHASES = ("connect", "read", "write", "pool")  # each bounded, besides the whole deadline
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


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
    # Why the reply's token counts were not believed (counted at the most allowed), if so.
    suspicious: str = ""


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
        http: httpcore.ConnectionPool | None = None,
        slots: threading.Semaphore | None = None,
    ):
        self.settings = settings
        self.url = completions_url(settings.endpoint)
        self.key = key
        # The configured key, plus the keys importers also redact ($ARENA_API_KEY, ...).
        self.redactor = Redactor.from_environment(extra=[key] if key else [])
        self.stop = stop
        self.own_http = http is None
        self.http = http if http is not None else transport.pool(settings.workers)
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

    def ask(self, messages: list[Message]) -> ChatReply | None:
        """Send ``messages`` with retries; None when stopped during a back-off wait."""
        attempt = 0
        body = self.body(messages)
        while True:
            attempt += 1
            started = time.monotonic()
            with self._slot():
                item, retryable, retry_after = self._attempt(body, messages)
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

    def _attempt(
        self, body: bytes, messages: list[Message]
    ) -> tuple[dict[str, Any], bool, float | None]:
        """(fields of the reply, whether to retry, the server's Retry-After in seconds)."""
        headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
            ("Accept-Encoding", "identity"),  # nothing to undo: a small body stays small
            ("User-Agent", HARNESS),
        ]
        if self.key:
            headers.append(("Authorization", f"Bearer {self.key}"))
        timeout = self.settings.timeout_s
        try:
            # The deadline covers the whole exchange: connecting, the headers, the body.
            with (
                transport.deadline(timeout),
                self.http.stream(
                    "POST",
                    self.url,
                    content=body,
                    headers=headers,
                    extensions={"timeout": dict.fromkeys(_PHASES, timeout)},
                ) as response,
            ):
                raw = transport.read_capped(response, self.settings.max_reply_bytes)
        except transport.ReplyTooLarge as error:
            return {"status": "malformed_reply", "error": str(error)}, False, None
        except httpcore.TimeoutException:
            return (
                {"status": "timeout", "error": f"no complete reply within {timeout:g} s"},
                self.settings.retry_timeouts,
                None,
            )
        except (httpcore.NetworkError, httpcore.ProtocolError) as error:
            return self._connection(error)  # refused, reset, hung up, cut short
        if response.status >= 400:
            return self._http_error(response, raw)
        return self._reply(raw, messages), False, None

    def _connection(self, reason: Any) -> tuple[dict[str, Any], bool, float | None]:
        message = self.redactor.text(f"cannot reach {self.url}: {reason}")
        return {"status": "connection_error", "error": message}, True, None

    def _http_error(
        self, response: httpcore.Response, body: bytes
    ) -> tuple[dict[str, Any], bool, float | None]:
        code = response.status
        detail = self._error_detail(body)
        item = {
            "status": "http_error",
            "http_status": code,
            "error": f"HTTP {code}: {detail}" if detail else f"HTTP {code}",
        }
        retryable = code == 429 or code >= 500
        header = next(
            (v.decode("latin-1") for k, v in response.headers if k.lower() == b"retry-after"),
            None,
        )
        return item, retryable, _retry_after_seconds(header) if header else None

    def _error_detail(self, body: bytes) -> str:
        """The server's message (``error.message``), else the body as text, redacted."""
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            parsed = None
        inner = parsed.get("error", parsed) if isinstance(parsed, dict) else None
        message = inner.get("message") if isinstance(inner, dict) else inner
        if not isinstance(message, str):
            message = _unescaped(body.decode("utf-8", "replace")).strip()
        return self.redactor.text(message)[:300]

    def _reply(self, raw: bytes, messages: list[Message]) -> dict[str, Any]:
        try:
            # Strict: no lone surrogates (they cannot be stored), nesting at most 1024 deep.
            reply = orjson.loads(raw)
        except orjson.JSONDecodeError as error:
            return {"status": "malformed_reply", "error": f"the reply is not JSON ({error})"}
        choices = reply.get("choices") if isinstance(reply, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            return {"status": "malformed_reply", "error": "the reply has no choices[0].message"}
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones, in order
            content = "".join(
                p.get("text", "")
                for p in content
                if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        if content is not None and not isinstance(content, str):
            return {"status": "malformed_reply", "error": "choices[0].message.content is not text"}
        usage = reply.get("usage") if isinstance(reply.get("usage"), dict) else {}
        tokens = counted(
            self.settings,
            messages,
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
        )
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        model = reply.get("model")
        prices = self.settings.prices
        # Only what is kept is redacted: the key joined from content parts shows only here.
        return {
            "status": "ok",
            "text": self.redactor.text(content or ""),
            "finish_reason": self.redactor.text(finish) if isinstance(finish, str) else None,
            "prompt_tokens": tokens.prompt_tokens,
            "completion_tokens": tokens.completion_tokens,
            "cost": prices.cost(tokens.prompt_tokens, tokens.completion_tokens) if prices else None,
            "response_model": self.redactor.text(model) if isinstance(model, str) else None,
            "suspicious": tokens.suspicious,
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _unescaped(text: str) -> str:
    """``text`` with JSON's ``\\u`` escapes read (but no lone surrogate), so a key written
    with them in a body that is not JSON is found like any other."""
    return _ESCAPE.sub(lambda m: m[0] if 0xD800 <= (c := int(m[1], 16)) <= 0xDFFF else chr(c), text)


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
