"""What a collecting run may spend: the most a job can cost, what a reply is counted at,
and a budget that holds both, whatever an endpoint says.

A job's most is reserved before it is sent; a reply is counted at what it reports, but
never above what its request allowed (``max_tokens`` answer tokens, and no more prompt
tokens than the request's bytes), so what a job is counted at never passes what was
reserved for it, and ``--max-cost`` holds with jobs in flight. Both collecting engines
(a votes family's systems, a graded suite) keep their budget here.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from arena.endpoint.run_settings import CollectSettings
from arena.errors import BadInput

# Tokens a chat template may add around each message, beyond the message's own bytes.
TEMPLATE_TOKENS = 16


@dataclass(frozen=True)
class Counted:
    """A reply's tokens as counted, and why they differ from what it reported (if so)."""

    prompt_tokens: int | None
    completion_tokens: int | None
    suspicious: str = ""


def max_tokens(settings: CollectSettings) -> int | None:
    most = settings.inference.get("max_tokens")
    return most if isinstance(most, int) and not isinstance(most, bool) else None


def prompt_bound(messages: Sequence[Mapping[str, str]], most: int | None) -> int:
    """The most prompt tokens ``messages`` can make: a token is at least a byte, a
    template adds at most ``TEMPLATE_TOKENS`` a message, and an earlier answer was at
    most ``most`` tokens (however many bytes it took)."""
    total = 0
    for message in messages:
        size = len(message["content"].encode("utf-8"))
        if message["role"] == "assistant" and most is not None:
            size = min(size, most)
        total += size + TEMPLATE_TOKENS
    return total


def counted(
    settings: CollectSettings,
    messages: Sequence[Mapping[str, str]],
    prompt: int | None,
    completion: int | None,
) -> Counted:
    """A reply's reported tokens, each held to the most its request allowed."""
    most = max_tokens(settings)
    bound = prompt_bound(messages, most)
    why = []
    if completion is not None and most is not None and completion > most:
        why.append(f"{completion} completion tokens reported, max_tokens is {most}")
        completion = most
    if prompt is not None and prompt > bound:
        why.append(f"{prompt} prompt tokens reported for at most {bound}")
        prompt = bound
    suspicious = "; ".join(why) + ": counted at the most allowed" if why else ""
    return Counted(prompt, completion, suspicious)


def worst_cost(settings: CollectSettings, turns: Sequence[str], *, label: str) -> float:
    """The most a job of ``turns`` can cost: each turn's prompt at its bound (each earlier
    answer at ``max_tokens``) and each answer at ``max_tokens``."""
    prices, most = settings.prices, max_tokens(settings)
    if prices is None or most is None:
        raise BadInput(
            f"--max-cost needs prices and max_tokens for every system; {label!r} lacks them",
            field="--max-cost",
        )
    system = [{"role": "system", "content": settings.system_prompt or ""}]
    asked = prompt_bound(system, most)
    total = 0.0
    for index, turn in enumerate(turns):
        asked += prompt_bound([{"role": "user", "content": turn}], most)
        if index:  # the answer to the turn before, at its most
            asked += most + TEMPLATE_TOKENS
        total += prices.cost(asked, most) or 0.0
    return total


class Budget:
    """What was spent, and what jobs in flight may still spend (their most), kept
    exactly (as fractions, so no rounding lets a run pass its limit) under a lock."""

    def __init__(self, limit: float | None) -> None:
        self.limit = None if limit is None else Fraction(limit)
        self._spent = Fraction(0)
        self._reserved = Fraction(0)
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        return float(self._spent)

    def reserve(self, most: float) -> bool:
        """Reserve ``most`` for a job about to be sent; False (nothing reserved) when
        it would not fit."""
        with self._lock:
            if self.limit is not None and self._spent + self._reserved + Fraction(most) > (
                self.limit
            ):
                return False
            self._reserved += Fraction(most)
            return True

    def settle(self, most: float, cost: float | None) -> None:
        """A job reserved at ``most`` is done and cost ``cost`` (None: not known, so
        counted at its most)."""
        with self._lock:
            self._reserved -= Fraction(most)
            self._spent += Fraction(most if cost is None else cost)
