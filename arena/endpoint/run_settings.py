"""The settings of a collecting run: the endpoint, the model and its request settings,
its prices (``arena.endpoint.prices``), and the run tuple that names the run; none may
hold the API key."""

from __future__ import annotations

import json
import math
import os
import platform
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena import __version__
from arena.canonical import sha256_hex
from arena.endpoint.prices import Prices
from arena.errors import BadInput
from arena.records import SystemDescriptor
from arena.redact import MIN_SECRET_LENGTH, SECRET_KEYS, Redactor, skeleton

HARNESS = "arena-collect/1"
# A reply larger than this (bytes) is cut off and counts as a malformed one.
DEFAULT_MAX_REPLY_BYTES = 8_000_000
_RESERVED = frozenset({"model", "messages", "stream"})


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
    workers: int = 4  # requests in flight
    prices: Prices | None = None
    # A graded run records a timeout as the task's result; collecting for votes retries it.
    retry_timeouts: bool = False
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_cost: float | None = None  # the run stops sending before its cost could pass this

    @property
    def retry_policy(self) -> str:
        return (
            f"retries={self.retries};backoff={self.backoff_s!r}s*2^n;"
            f"max_wait={self.max_wait_s!r}s;on=429,5xx,connection"
            + (",timeout" if self.retry_timeouts else "")
            + ";retry-after"
        )

    def descriptor(
        self,
        *,
        suite_hash: str,
        answer_contract: str,
        parser: str,
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
            answer_contract=answer_contract,
            parser=parser,
            system_prompt=self.system_prompt,
            inference=self.inference,
            harness=harness,
            revision=revision,
            artifact_digest=artifact_digest,
            quantization=quantization,
            timeout_s=self.timeout_s,
            retry_policy=self.retry_policy,
            # Recorded only when raised: a run with the default cap keeps its id.
            max_reply_bytes=self.max_reply_bytes
            if self.max_reply_bytes != DEFAULT_MAX_REPLY_BYTES
            else None,
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
        if not self.timeout_s > 0 or self.workers < 1:
            raise BadInput(
                "timeout_s must be positive and workers at least 1",
                field="timeout_s" if not self.timeout_s > 0 else "workers",
            )
        for name in ("retries", "backoff_s", "max_wait_s"):
            if getattr(self, name) < 0:
                raise BadInput("must not be negative", field=name)
        if self.max_reply_bytes < 1:
            raise BadInput("expected a positive size", field="--max-reply-mb")
        if self.max_cost is not None and not 0 <= self.max_cost < math.inf:
            raise BadInput("expected an amount ≥ 0", field="--max-cost")
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
        if not (key.isascii() and key.isprintable()):
            raise BadInput(
                f"the key in {self.api_key_env} holds characters an HTTP header cannot carry",
                field="api_key_env",
            )
        # Redaction looks for no shorter key (it would blank ordinary words), so such a
        # key is never sent: nothing an endpoint echoes of it could then be kept out.
        if len(skeleton(key)) < MIN_SECRET_LENGTH:
            raise BadInput(
                f"the key in {self.api_key_env} has fewer than {MIN_SECRET_LENGTH} letters "
                "and digits: Arena could not keep it out of what the endpoint sends back, "
                "so it does not send it",
                field="api_key_env",
            )
        return key


def run_descriptor(
    model: str,
    *,
    endpoint: str | None,
    suite_hash: str,
    answer_contract: str,
    parser: str,
    system_prompt: str | None,
    inference: Mapping[str, Any],
    harness: str = HARNESS,
    revision: str | None = None,
    artifact_digest: str | None = None,
    quantization: str | None = None,
    timeout_s: float | None = None,
    retry_policy: str | None = None,
    source: str | None = None,
    max_reply_bytes: int | None = None,
) -> SystemDescriptor:
    """The full run tuple as a SystemDescriptor; its ``system_id`` names the run.

    ``parser`` is the graders' version, passed in: the endpoint layer grades nothing.

    The artifact (model, revision, digest, quantization), the suite's manifest hash, the
    answer contract the tasks hold the model to, the harness and the hash of its own
    settings (contract, parser, retries, endpoint and request settings), and the host it
    ran on (``runner_host``). Answers imported from a file have no endpoint (``None``)
    and name the file's format as their ``source``.
    """
    if len(suite_hash) != 64 or any(c not in "0123456789abcdef" for c in suite_hash):
        raise BadInput("expected a sha256 hex digest", field="suite_hash")
    _refuse_secrets(inference, "inference")
    recorded: dict[str, Any] = {
        "endpoint": normalise_endpoint(endpoint) if endpoint is not None else None,
        "settings": dict(inference),
    }
    if source is not None:
        recorded["source"] = source
    if timeout_s is not None:
        recorded["timeout_s"] = float(timeout_s)
    if max_reply_bytes is not None:
        recorded["max_reply_bytes"] = max_reply_bytes
    manifest = {
        "harness": harness,
        "answer_contract": answer_contract,
        "parser": parser,
        "retry_policy": retry_policy,
        "request": recorded,
    }
    return SystemDescriptor(
        model=model,
        revision=revision,
        artifact_digest=artifact_digest,
        quantization=quantization,
        harness=harness,
        system_prompt=system_prompt,
        answer_contract=answer_contract,
        parser=parser,
        retry_policy=retry_policy,
        inference=recorded,
        suite_hash=suite_hash,
        harness_manifest=sha256_hex(json.dumps(manifest, sort_keys=True, ensure_ascii=False)),
        runner=runner_host(),
    )


def runner_host() -> dict[str, str]:
    """What identifies the machine a run ran on: never a user or host name."""
    return {
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "arena": __version__,
        "cpu": _cpu_model(),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _refuse_secrets(value: Any, where: str) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if str(key).lower() in SECRET_KEYS:
                raise BadInput(
                    "secrets never enter a system descriptor; use --api-key-env",
                    field=f"{where}.{key}",
                )
            _refuse_secrets(item, f"{where}.{key}")
