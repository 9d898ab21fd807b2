"""Removing configured secrets from parsed values before anything is hashed or stored.

Redaction works on parsed values, not on serialised text: a regular
expression over JSON misses tokens split by escapes (research/reliability.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"
# Values this short would blank out ordinary words; a real key is longer.
MIN_SECRET_LENGTH = 8
SECRET_KEYS = frozenset({
    "authorization", "api_key", "apikey", "api-key", "x-api-key", "bearer", "token",
    "access_token", "secret", "password",
})
DEFAULT_SECRET_ENVS = ("ARENA_API_KEY", "OPENAI_API_KEY")


class Redactor:
    """Replaces every configured secret inside strings, and values under secret-looking keys."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        found = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret containing another is removed whole.
        self.secrets = sorted(found, key=len, reverse=True)

    @classmethod
    def from_environment(cls, names: Iterable[str] = DEFAULT_SECRET_ENVS,
                         extra: Iterable[str] = ()) -> Redactor:
        return cls([os.environ.get(n, "") for n in names] + list(extra))

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value) if self.secrets else value
        if isinstance(value, dict):
            return {
                self.text(k) if self.secrets else k:
                    REDACTED if k.lower() in SECRET_KEYS and value[k] not in (None, "")
                    else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value
