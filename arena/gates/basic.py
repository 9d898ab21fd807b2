"""The Empty, Truncated and Length gates: checks on the text as a whole."""

from __future__ import annotations

from functools import lru_cache

from arena.gates.text import unclosed_fence
from arena.records import Case, Family, GateResult, Output

# Finish reasons meaning "stopped at the output limit", as the common APIs spell
# them (compared case-insensitively): OpenAI chat and Mistral `length`;
# Anthropic `max_tokens` and `model_context_window_exceeded`; Gemini
# `MAX_TOKENS`; OpenAI Responses `incomplete` with `max_output_tokens`.
# Importers map any other source's equivalent onto one of these.
LIMIT_REASONS = frozenset(
    {"length", "max_tokens", "model_context_window_exceeded", "incomplete", "max_output_tokens"}
)
# Characters that print as nothing but are not whitespace to str.strip().
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"


def is_truncated(finish_reason: str | None) -> bool:
    return finish_reason is not None and finish_reason.strip().lower() in LIMIT_REASONS


# Results are frozen records: those with a fixed reason are made once, not per output.
_BLANK = GateResult("empty", False, "Empty: the output is blank")
_HAS_TEXT = GateResult("empty", True, "Empty: the output has text")


def empty(output: Output, case: Case, family: Family) -> GateResult:
    """Fail when the text is blank after stripping whitespace (and zero-width characters)."""
    del case, family
    text = output.text
    first = text[:1]
    if first not in _INVISIBLE and not first.isspace():  # ("" is in every string)
        return _HAS_TEXT  # the common case, without copying the text three times
    if not text.strip().strip(_INVISIBLE).strip():
        return _BLANK
    return _HAS_TEXT


def truncated(output: Output, case: Case, family: Family) -> GateResult:
    """Fail when the finish reason says the output limit was hit.

    The text alone is too noisy a signal to fail on, so a code fence left open
    is only noted in the reason of a passing result.
    """
    del case, family
    reason = output.finish_reason
    if is_truncated(reason):
        return GateResult(
            "truncated",
            False,
            f"Truncated: finish reason {reason!r} means the output limit was hit",
        )
    if not output.is_diff and unclosed_fence(output.text):
        return GateResult("truncated", True, f"{_passed(reason).reason}{_OPEN_FENCE}")
    return _passed(reason)


_OPEN_FENCE = "; note: a code fence is left open, so the text may be cut off"


@lru_cache(maxsize=64)
def _passed(reason: str | None) -> GateResult:
    said = f"finish reason {reason!r}" if reason is not None else "no finish reason recorded"
    return GateResult("truncated", True, f"Truncated: {said}")


def length(output: Output, case: Case, family: Family) -> GateResult:
    """Fail when the character count is outside the family's inclusive bounds."""
    del case
    count = len(output.text)
    low, high = family.min_chars, family.max_chars
    if count < low:
        return GateResult(
            "length", False, f"Length: {count} characters, below the family minimum of {low}"
        )
    if count > high:
        return GateResult(
            "length", False, f"Length: {count} characters, above the family maximum of {high}"
        )
    return GateResult("length", True, f"Length: {count} characters, within {low}-{high}")
