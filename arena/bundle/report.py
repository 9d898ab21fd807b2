"""What `arena verify` found, and reading a bundle's JSON Lines files."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class VerifyReport:
    problems: list[str] = field(default_factory=list)
    round: str | None = None
    systems: int = 0
    largest_difference: float = 0.0
    # Intervals of points bootstrapped again from the bundle and found equal.
    intervals: int = 0
    # The signing key's fingerprint (None: unsigned or unreadable signature).
    signer: str | None = None
    # The ledger's head digest when the bundle was exported (None: made before seals).
    ledger_head: str | None = None
    # The judges a pooled round fitted with the rater's votes (none: the rater's own).
    judges: list[str] = field(default_factory=list)
    # Whether the signer was held to a fingerprint the user gave (--signer).
    signer_checked: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def signer_note(self) -> str | None:
        """What a signature checked only against its own key does not show, or None."""
        if self.signer is None or self.signer_checked:
            return None
        return (
            "signer not checked: pass --signer FINGERPRINT. The signature was checked "
            "against the key in the bundle only; anyone can re-sign a bundle with a key of "
            "their own"
        )


class Stop(Exception):
    """A problem after which nothing further can be checked."""


def lines(data: bytes, name: str) -> list[dict[str, Any]]:
    # JSON Lines end at "\n" only: str.splitlines() would also split inside strings
    # at U+2028, U+0085, \v, \f and the like, which JSON writes raw.
    try:
        return [json.loads(line) for line in data.decode("utf-8").split("\n") if line]
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Stop(f"{name}: unreadable ({exc})") from None
