"""Readers for every import format, by name."""

from pathlib import Path

from arena.intake.readers import alpacaeval, csv_format, fastchat, native, swebench
from arena.intake.readers.base import ParsedOutput, Reader, ReadOptions

READERS: dict[str, Reader] = {
    "native": native.read,
    "alpacaeval": alpacaeval.read,
    "fastchat": fastchat.read,
    "csv": csv_format.read,
    "swebench": swebench.read,
}
# The kind a new family gets from a format when --kind is not given (else votes).
DEFAULT_KINDS: dict[str, str] = {"swebench": "tests"}
# Predictions files as SWE-bench runs publish them.
_SWEBENCH_NAMES = ("predictions_for_swebench.json", "all_preds.jsonl", "preds.json")


def guess_format(path: Path) -> str:
    """The format a file's name suggests; native JSON Lines unless it says otherwise."""
    lower = path.name.lower()
    if lower in _SWEBENCH_NAMES:
        return "swebench"
    if path.parent.name == "model_answer":
        return "fastchat"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith(".json"):
        return "alpacaeval"
    return "native"


__all__ = ["DEFAULT_KINDS", "READERS", "ParsedOutput", "ReadOptions", "Reader", "guess_format"]
