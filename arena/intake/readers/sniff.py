"""What format a file's content looks like, to say so when it was read as another.

The format of an import comes from ``--format`` or the file's name (``guess_format``),
never from this: a file that fails to read gets a hint (``with_hint``), and the
window's import dialog proposes the format its content shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.errors import BadInput

# Read to recognise a file: enough for the first record of any format Arena reads.
_HEAD_BYTES = 1 << 18
# A whole-file JSON object (SWE-bench's preds.json) is parsed to look inside only up to this.
_WHOLE_BYTES = 16 << 20
# What a hint calls each format.
DESCRIPTIONS = {
    "native": "Arena's native JSON Lines (docs/formats.md)",
    "fastchat": "a FastChat answer file (model_answer/*.jsonl)",
    "alpacaeval": "an AlpacaEval outputs file (a JSON array)",
    "swebench": "SWE-bench predictions",
    "csv": "a CSV file",
}
# A FastChat questions file: not outputs, but the prompts FastChat answers go with.
QUESTIONS = "fastchat-questions"


def _kind(record: Any, *, in_array: bool) -> str | None:
    if not isinstance(record, dict):
        return None
    keys = set(record)
    if {"question_id", "model_id", "choices"} <= keys:
        return "fastchat"
    if {"question_id", "turns"} <= keys:
        return QUESTIONS
    if {"instance_id", "model_patch"} <= keys:
        return "swebench"
    if in_array and "instruction" in keys and keys & {"output", "generator"}:
        return "alpacaeval"
    if {"case", "system", "output"} <= keys:
        return "native"
    values = list(record.values())[:3]
    if values and all(isinstance(v, dict) and "model_patch" in v for v in values):
        return "swebench"  # preds.json: an object keyed by instance id
    return None


def sniff_format(path: Path) -> str | None:
    """The format the start of ``path`` looks like (``QUESTIONS`` for a FastChat questions
    file), or None when it is unreadable or like none of them."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
        size = path.stat().st_size
    except OSError:
        return None
    text = head.decode("utf-8", errors="ignore").lstrip("\ufeff \t\r\n")
    decoder = json.JSONDecoder()
    if text.startswith("["):
        try:
            first, _ = decoder.raw_decode(text[1:].lstrip())
        except (ValueError, RecursionError):
            return None
        return _kind(first, in_array=True)
    if not text.startswith("{"):
        if path.suffix.lower() == ".csv" or text.split("\n", 1)[0].count(",") >= 2:
            return "csv"
        return None
    try:
        first, _ = decoder.raw_decode(text)
    except (ValueError, RecursionError):
        if size > _WHOLE_BYTES:
            return None
        try:
            first = json.loads(path.read_text("utf-8-sig"))
        except (OSError, ValueError, RecursionError):
            return None
    return _kind(first, in_array=False)


def format_hint(path: Path, fmt: str) -> str:
    """A sentence saying which format ``path`` looks like, when not ``fmt`` (else '')."""
    found = sniff_format(path)
    if found is None or found == fmt:
        return ""
    if found == QUESTIONS:
        return (
            "; this looks like a FastChat question file, not answers: import the answers "
            f"(model_answer/*.jsonl) with --format fastchat --questions {path}"
        )
    hint = f"; this looks like {DESCRIPTIONS[found]}: import it with --format {found}"
    if found == "fastchat":
        hint += " (and --questions FILE unless question.jsonl is in the folder above)"
    return hint


def with_hint(exc: BadInput, path: Path, fmt: str) -> BadInput:
    """``exc`` with the format ``path`` looks like, when that is not ``fmt``."""
    hint = format_hint(path, fmt)
    if not hint:
        return exc
    return BadInput(exc.message + hint, path=exc.path, line=exc.line, field=exc.field)
