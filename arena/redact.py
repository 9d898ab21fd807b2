"""Removing configured secrets from parsed values before anything is hashed or stored.

Redaction works on parsed values, not on serialised text: a regular
expression over JSON misses tokens split by escapes (research/reliability.md).
"""

from __future__ import annotations

import base64
import os
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from arena.errors import BadInput

REDACTED = "[REDACTED]"
# Values this short would blank out ordinary words; a real key is longer.
MIN_SECRET_LENGTH = 8
# A run of this many characters of a key counts as the key (a key cut in two, or
# partly echoed); shorter runs are too likely in ordinary text.
PARTIAL_LENGTH = 16
SECRET_KEYS = frozenset(
    {
        "authorization",
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "bearer",
        "token",
        "access_token",
        "secret",
        "password",
    }
)
DEFAULT_SECRET_ENVS = ("ARENA_API_KEY", "OPENAI_API_KEY")


def encoded_forms(secret: str) -> set[str]:
    """The key, URL-encoded, and base64 (standard and URL-safe) at each byte offset.

    Inside a longer base64 text the key's bytes start at one of three offsets of
    a 3-byte group; the characters that also depend on neighbouring bytes are cut.
    """
    forms = {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    raw = secret.encode("utf-8")
    for offset in range(3):
        padded = b"\0" * offset + raw
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(padded).decode().rstrip("=")
            start = (offset * 8 + 5) // 6  # first character free of the padding bytes
            end = (len(padded) * 8) // 6  # last character made of key bits only
            if end - start >= MIN_SECRET_LENGTH:
                forms.add(text[start:end])
    return forms


class Redactor:
    """Replaces every configured secret inside strings, and values under secret-looking keys."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        found = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret containing another is removed whole.
        self.secrets = sorted(found, key=len, reverse=True)
        # What a key looks like once encoded (URL, base64): found like the key itself.
        self.forms = sorted(
            {form for s in self.secrets for form in encoded_forms(s)}, key=len, reverse=True
        )

    @classmethod
    def from_environment(
        cls, names: Iterable[str] = DEFAULT_SECRET_ENVS, extra: Iterable[str] = ()
    ) -> Redactor:
        return cls([os.environ.get(n, "") for n in names] + list(extra))

    def text(self, value: str) -> str:
        for secret in self.forms:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def leak(self, value: Any) -> str | None:
        """How a secret still shows in ``value`` (any string inside it), or None.

        The last check before anything is stored: the key itself, encoded, or a
        run of ``PARTIAL_LENGTH`` of its characters.
        """
        if isinstance(value, str):
            if any(form in value for form in self.forms):
                return "the key or an encoding of it"
            for secret in self.secrets:
                runs = (
                    secret[i : i + PARTIAL_LENGTH]
                    for i in range(max(1, len(secret) - PARTIAL_LENGTH + 1))
                )
                if any(run in value for run in runs):
                    return f"{PARTIAL_LENGTH} or more characters of the key"
            return None
        if isinstance(value, Mapping):
            return next(
                (found for k, v in value.items() if (found := self.leak(str(k)) or self.leak(v))),
                None,
            )
        if isinstance(value, (list, tuple)):
            return next((found for v in value if (found := self.leak(v))), None)
        return None

    def refuse_in(self, fields: Mapping[str, Any]) -> None:
        """Refuse a configured key in a field that would be recorded (model, label, ...)."""
        for name, value in fields.items():
            if self.leak(value):
                raise BadInput(
                    "holds the API key; secrets never enter a system descriptor "
                    "or a label (give the key's variable with --api-key-env)",
                    field=name,
                )

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value) if self.secrets else value
        if isinstance(value, dict):
            return {
                self.text(k) if self.secrets else k: REDACTED
                if k.lower() in SECRET_KEYS and value[k] not in (None, "")
                else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value
