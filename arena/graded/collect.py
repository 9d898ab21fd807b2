"""Collecting outputs from an OpenAI-compatible chat-completions endpoint.

Stdlib only (urllib and a thread pool): the servers Arena talks to (vLLM,
llama.cpp's server, Ollama) speak plain JSON over HTTP, and one request per
task needs nothing more. Replies are parsed, then the configured bearer
token is removed from the parsed values, before anything leaves this module.
"""

from __future__ import annotations

import dataclasses
import email.utils
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from arena.errors import BadInput, LedgerError
from arena.graded.graders import PARSER_VERSION
from arena.graded.suites import Task
from arena.records import SystemDescriptor
from arena.redact import SECRET_KEYS, Redactor

HARNESS = "arena-collect/1"
ItemStatus = Literal["ok", "timeout", "http_error", "malformed_reply", "connection_error"]
ITEM_STATUSES: tuple[str, ...] = (
    "ok",
    "timeout",
    "http_error",
    "malformed_reply",
    "connection_error",
)
_RESERVED = frozenset({"model", "messages", "stream"})


# --- endpoint, prices, settings ----------------------------------------------


def normalise_endpoint(url: str) -> str:
    """``scheme://host[:port][/path]``, minus a trailing ``/v1``: both spellings name one server."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadInput(f"expected an http(s) URL, found {url!r}", field="endpoint")
    if parts.query or parts.fragment:
        raise BadInput("an endpoint URL takes no query or fragment", field="endpoint")
    if parts.username or parts.password:
        # Credentials in a URL would end up in the system descriptor and its hash.
        raise BadInput("put credentials in --api-key-env, not in the URL", field="endpoint")
    path = parts.path.rstrip("/")
    path = path.removesuffix("/chat/completions").removesuffix("/v1").rstrip("/")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc.lower(), path, "", ""))


def completions_url(endpoint: str) -> str:
    return normalise_endpoint(endpoint) + "/v1/chat/completions"


@dataclass(frozen=True)
class Prices:
    """List prices in currency units per one million tokens."""

    prompt_per_million: float
    completion_per_million: float

    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        if prompt_tokens is None or completion_tokens is None:
            return None
        return (
            prompt_tokens * self.prompt_per_million
            + completion_tokens * self.completion_per_million
        ) / 1_000_000


def load_prices(path: str | Path, model: str) -> Prices:
    """Prices for ``model`` from a TOML or JSON table ``{model: {prompt, completion}}``.

    A ``"*"`` entry applies to models not listed by name.
    """
    import tomllib

    source = Path(path)
    try:
        text = source.read_text("utf-8")
        table = json.loads(text) if source.suffix.lower() == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as error:
        raise BadInput(f"cannot read the price table ({error})", path=str(source)) from None
    entry = table.get(model, table.get("*")) if isinstance(table, dict) else None
    if not isinstance(entry, dict):
        raise BadInput(f"no prices for {model!r} and no '*' entry", path=str(source), field=model)
    values = []
    for key in ("prompt", "completion"):
        value = entry.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise BadInput(
                "expected a non-negative number per 1M tokens",
                path=str(source),
                field=f"{model}.{key}",
            )
        values.append(float(value))
    return Prices(*values)


@dataclass(frozen=True)
class CollectSettings:
    endpoint: str
    model: str
    system_prompt: str | None = None
    inference: Mapping[str, Any] = field(default_factory=dict)  # passed through in the body
    api_key_env: str | None = None  # the NAME of the variable holding the bearer token
    timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 1.0
    max_wait_s: float = 60.0
    concurrency: int = 4
    prices: Prices | None = None

    @property
    def retry_policy(self) -> str:
        return (
            f"retries={self.retries};backoff={self.backoff_s!r}s*2^n;"
            f"max_wait={self.max_wait_s!r}s;on=429,5xx,connection;retry-after"
        )

    def descriptor(
        self,
        *,
        suite_hash: str,
        revision: str | None = None,
        artifact_digest: str | None = None,
        quantization: str | None = None,
        harness: str = HARNESS,
    ) -> SystemDescriptor:
        """The run's system descriptor: these settings plus the suite and the artifact."""
        return run_descriptor(
            self.model,
            endpoint=self.endpoint,
            suite_hash=suite_hash,
            system_prompt=self.system_prompt,
            inference=self.inference,
            harness=harness,
            revision=revision,
            artifact_digest=artifact_digest,
            quantization=quantization,
            timeout_s=self.timeout_s,
            retry_policy=self.retry_policy,
        )

    def check(self) -> None:
        """Refuse settings that cannot work, before any request is sent."""
        normalise_endpoint(self.endpoint)
        if not self.model:
            raise BadInput("a model id is required", field="model")
        clash = sorted(_RESERVED & set(self.inference))
        if clash:
            raise BadInput("set by Arena itself", field=f"inference.{clash[0]}")
        _refuse_secrets(self.inference, "inference")
        if not self.timeout_s > 0 or self.concurrency < 1:
            raise BadInput(
                "timeout_s must be positive and concurrency at least 1",
                field="timeout_s" if not self.timeout_s > 0 else "concurrency",
            )
        for name in ("retries", "backoff_s", "max_wait_s"):
            if getattr(self, name) < 0:
                raise BadInput("must not be negative", field=name)
        try:
            json.dumps(dict(self.inference), allow_nan=False)
        except (TypeError, ValueError) as error:
            raise BadInput(f"not JSON ({error})", field="inference") from None

    def check_secrets(self, **recorded: str | None) -> None:
        """Refuse the API key (or the keys importers redact) in any field the run records:
        the model, the endpoint (path, user part), the system prompt, the inference
        settings, and ``recorded`` (its label)."""
        key = self.api_key()
        Redactor.from_environment(extra=[key] if key else []).refuse_in(
            {
                "model": self.model,
                "endpoint": self.endpoint,
                "system_prompt": self.system_prompt,
                "inference": dict(self.inference),
                **recorded,
            }
        )

    def api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env, "").strip()
        if not key:
            raise BadInput(
                f"the environment variable {self.api_key_env} is not set", field="api_key_env"
            )
        return key


def run_descriptor(
    model: str,
    *,
    endpoint: str,
    suite_hash: str,
    system_prompt: str | None,
    inference: Mapping[str, Any],
    harness: str = HARNESS,
    revision: str | None = None,
    artifact_digest: str | None = None,
    quantization: str | None = None,
    timeout_s: float | None = None,
    retry_policy: str | None = None,
) -> SystemDescriptor:
    """The full run tuple as a SystemDescriptor; its ``system_id`` names the run.

    The suite's manifest hash goes into ``answer_contract`` (the manifest fixes
    every task's contract and grader); the grading code's version into
    ``parser``; endpoint, settings and timeout into ``inference``.
    """
    if len(suite_hash) != 64 or any(c not in "0123456789abcdef" for c in suite_hash):
        raise BadInput("expected a sha256 hex digest", field="suite_hash")
    _refuse_secrets(inference, "inference")
    recorded: dict[str, Any] = {
        "endpoint": normalise_endpoint(endpoint),
        "settings": dict(inference),
    }
    if timeout_s is not None:
        recorded["timeout_s"] = float(timeout_s)
    return SystemDescriptor(
        model=model,
        revision=revision,
        artifact_digest=artifact_digest,
        quantization=quantization,
        harness=harness,
        system_prompt=system_prompt,
        answer_contract=f"suite-sha256:{suite_hash}",
        parser=PARSER_VERSION,
        retry_policy=retry_policy,
        inference=recorded,
    )


def _refuse_secrets(value: Any, where: str) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if str(key).lower() in SECRET_KEYS:
                raise BadInput(
                    "secrets never enter a system descriptor; use --api-key-env",
                    field=f"{where}.{key}",
                )
            _refuse_secrets(item, f"{where}.{key}")


# --- one item ----------------------------------------------------------------


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


@dataclass(frozen=True)
class Progress:
    completed: int  # delivered in this call
    total: int  # to do in this call (skipped ones excluded)
    skipped: int
    elapsed_s: float
    rate: float | None  # items per second
    eta_s: float | None


@dataclass(frozen=True)
class CollectSummary:
    total: int
    skipped: int
    delivered: int
    status_counts: Mapping[str, int]


class _Client:
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


def _refuse_leak(redactor: Redactor, item: CollectedItem) -> None:
    """The last look before an item is stored: a key left in it stops the run instead."""
    # The values only: the item's field names are Arena's, not the endpoint's.
    leak = redactor.leak(list(dataclasses.asdict(item).values()))
    if leak:
        raise LedgerError(
            f"the endpoint's reply to task {item.task_id} still holds {leak} "
            "after redaction; nothing of it was stored, and the run stops"
        )


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


# --- the run -----------------------------------------------------------------


def collect(
    tasks: Iterable[Task],
    settings: CollectSettings,
    *,
    on_item: Callable[[CollectedItem], None],
    done: Collection[str] = (),
    on_progress: Callable[[Progress], None] | None = None,
) -> CollectSummary:
    """Ask the endpoint for every task not in ``done``; hand each result to ``on_item``.

    ``on_item`` and ``on_progress`` run on the calling thread, one item at a
    time, in completion order, so the caller can commit each item before the
    next arrives. At most ``settings.concurrency`` requests are in flight; if
    ``on_item`` raises (or Ctrl-C arrives) nothing new is sent, in-flight
    replies are dropped, and the exception propagates: a resumed run asks
    again only for what was never delivered.
    """
    settings.check()
    settings.check_secrets()
    key = settings.api_key()
    stop = threading.Event()
    client = _Client(settings, key, stop)
    every = list(tasks)
    todo = [t for t in every if t.task_id not in done]
    skipped = len(every) - len(todo)
    counts = dict.fromkeys(ITEM_STATUSES, 0)
    started = time.monotonic()
    delivered = 0

    def report() -> None:
        if on_progress is None:
            return
        elapsed = time.monotonic() - started
        rate = delivered / elapsed if delivered and elapsed > 0 else None
        eta = (len(todo) - delivered) / rate if rate else None
        on_progress(Progress(delivered, len(todo), skipped, elapsed, rate, eta))

    report()
    queue = iter(todo)
    pool = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="arena-collect")
    in_flight: set[Future[CollectedItem | None]] = set()
    try:
        for task in queue:
            in_flight.add(pool.submit(client.run, task))
            if len(in_flight) >= settings.concurrency:
                break
        while in_flight:
            finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in finished:
                item = future.result()
                if item is None:
                    continue
                _refuse_leak(client.redactor, item)
                on_item(item)
                delivered += 1
                counts[item.status] += 1
                report()
                following = next(queue, None)
                if following is not None:
                    in_flight.add(pool.submit(client.run, following))
    finally:
        # Waiting out in-flight requests would block Ctrl-C for up to the timeout.
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    return CollectSummary(
        total=len(todo), skipped=skipped, delivered=delivered, status_counts=counts
    )
