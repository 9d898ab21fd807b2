"""Readers for every import format, by name."""

from pathlib import Path

from arena.intake.readers import alpacaeval, csv_format, fastchat, native
from arena.intake.readers.base import ParsedOutput, Reader, ReadOptions

READERS: dict[str, Reader] = {
    "native": native.read,
    "alpacaeval": alpacaeval.read,
    "fastchat": fastchat.read,
    "csv": csv_format.read,
}


def guess_format(path: Path) -> str:
    """The format a file's name suggests; native JSON Lines unless it says otherwise."""
    lower = path.name.lower()
    if path.parent.name == "model_answer":
        return "fastchat"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith(".json"):
        return "alpacaeval"
    return "native"


__all__ = ["READERS", "ParsedOutput", "ReadOptions", "Reader", "guess_format"]
