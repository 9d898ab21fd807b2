"""Asking an OpenAI-compatible chat-completions endpoint for one task's answer.

Stdlib only (urllib and a thread pool): the servers Arena talks to (vLLM,
llama.cpp's server, Ollama) speak plain JSON over HTTP, and one request per
task needs nothing more. Replies are parsed, then the configured bearer
token is removed from the parsed values, before anything leaves this module.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

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


@dataclass(frozen=True)
class CollectedItem:
    """One task's result from the endpoint; every value already redacted."""

    task_id: str
    status: ItemStatus
    input_hash: str
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


class Client:
    """Asks the endpoint for one task's answer, with retries, and redacts the reply."""

    def __init__(self, settings: CollectSettings, key: str | None, stop: threading.Event):
        self.settings = settings
        self.url = completions_url(settings.endpoint)
        self.key = key
        # The configured key, plus the keys importers also redact ($ARENA_API_KEY, ...).
        self.redactor = Redactor.from_environment(extra=[key] if key else [])
        self.stop = stop

    def body(self, task: Task) -> bytes:
        messages = (
            [{"role": "system", "content": self.settings.system_prompt}]
            if self.settings.system_prompt
            else []
        )
        messages.append({"role": "user", "content": task.input})
        payload = {**self.settings.inference, "model": self.settings.model, "messages": messages}
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def run(self, task: Task) -> CollectedItem | None:
        """Send with retries; None when stopped during a back-off wait."""
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            item, retryable, retry_after = self._attempt(task)
            latency = round((time.monotonic() - started) * 1000)
            if not retryable or attempt > self.settings.retries:
                return CollectedItem(
                    task_id=task.task_id,
                    input_hash=task.input_hash,
                    latency_ms=latency,
                    attempts=attempt,
                    finished_at=_now(),
                    **item,
                )
            # Retry-After is the server's own word; otherwise back off exponentially.
            wait_s = (
                retry_after
                if retry_after is not None
                else self.settings.backoff_s * 2 ** (attempt - 1)
            )
            if self.stop.wait(min(wait_s, self.settings.max_wait_s)):
                return None

    def _attempt(self, task: Task) -> tuple[dict[str, Any], bool, float | None]:
        """(fields of the item, whether to retry, the server's Retry-After in seconds)."""
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": HARNESS,
        }
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        request = urllib.request.Request(
            self.url, data=self.body(task), headers=headers, method="POST"
        )
        timeout = self.settings.timeout_s
        deadline = time.monotonic() + timeout
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = _read(response, deadline)
        except urllib.error.HTTPError as error:
            return self._http_error(error)
        except TimeoutError:
            return (
                {"status": "timeout", "error": f"no complete reply within {timeout:g} s"},
                False,
                None,
            )
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                return {"status": "timeout", "error": f"no reply within {timeout:g} s"}, False, None
            return self._connection(error.reason)
        except (OSError, http.client.HTTPException) as error:  # reset, hung up, cut short
            return self._connection(error)
        return self._reply(raw), False, None

    def _connection(self, reason: Any) -> tuple[dict[str, Any], bool, float | None]:
        message = self.redactor.text(f"cannot reach {self.url}: {reason}")
        return {"status": "connection_error", "error": message}, True, None

    def _http_error(
        self, error: urllib.error.HTTPError
    ) -> tuple[dict[str, Any], bool, float | None]:
        try:
            body = error.read()
        except OSError:
            body = b""
        detail = self._error_detail(body)
        item = {
            "status": "http_error",
            "http_status": error.code,
            "error": f"HTTP {error.code}: {detail}" if detail else f"HTTP {error.code}",
        }
        retryable = error.code == 429 or error.code >= 500
        header = error.headers.get("Retry-After") if error.headers else None
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


def _read(response: Any, deadline: float) -> bytes:
    """The whole body, or TimeoutError once the deadline passes (a trickle is still slow)."""
    chunks: list[bytes] = []
    while True:
        chunk = response.read(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise TimeoutError("reply not complete within the timeout")


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
