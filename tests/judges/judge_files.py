"""Files the judges' tests write: JSON Lines, and a family every system answered."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from arena.cli.main import main


def write_lines(path: Path, records: Iterable[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def answered_family(folder: Path, cases: Iterable[str], systems: Iterable[str]) -> str:
    """A ledger in ``folder`` with family ``f``: each system answering each case."""
    ledger = str(folder / "ledger.sqlite")
    outputs = [
        {"case": {"id": c, "prompt": f"question {c}"}, "system": {"label": s, "model": s},
         "output": f"answer of {s} to {c}"}
        for c in cases for s in systems
    ]  # fmt: skip
    path = write_lines(folder / "o.jsonl", outputs)
    assert main(["--ledger", ledger, "import", path, "--family", "f", "--create"]) == 0
    return ledger
