"""Shared builders of the reliability suite: a family big enough to vote for a long time."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

WORDS = (
    "river",
    "lantern",
    "window",
    "garden",
    "number",
    "morning",
    "letter",
    "bridge",
    "careful",
    "simple",
    "answer",
    "reader",
    "question",
    "example",
    "useful",
    "quiet",
)


def answer_text(system: int, case: int) -> str:
    """A distinct plain-English answer (passes every gate of an English family)."""
    picked = " ".join(WORDS[(system * 7 + case * 3 + i) % len(WORDS)] for i in range(6))
    return (
        f"System {system} answers case {case}: the {picked} matter here. "
        "It keeps the explanation short, clear and friendly for the reader."
    )


def family_lines(n_systems: int, n_cases: int, *, extra: dict | None = None) -> list[str]:
    lines = []
    for case in range(n_cases):
        for system in range(n_systems):
            record = {
                "case": {
                    "id": f"c{case}",
                    "category": ("alpha", "beta")[case % 2],
                    "prompt": f"Explain topic number {case} in plain English.",
                },
                "system": {"label": f"sys{system}", "model": f"test/sys{system}"},
                "output": answer_text(system, case),
                "finish_reason": "stop",
                **(extra or {}),
            }
            lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def build_ledger(path: Path, family: str = "rel", n_systems: int = 6, n_cases: int = 40) -> Path:
    """A ledger made by the app itself (Ledger.open + import_file), checkpointed and closed."""
    from arena.intake.outputs import import_file
    from arena.ledger import Ledger

    source = path.with_suffix(".jsonl")
    source.write_text("\n".join(family_lines(n_systems, n_cases)) + "\n", encoding="utf-8")
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family=family, fmt="native")
        ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def file_digest(ledger_path: Path) -> str:
    """sha256 of the ledger after a checkpoint (the WAL folded in): its logical bytes."""
    conn = sqlite3.connect(ledger_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    digest = hashlib.sha256(Path(ledger_path).read_bytes())
    wal = Path(str(ledger_path) + "-wal")
    if wal.exists():
        digest.update(wal.read_bytes())
    return digest.hexdigest()


def slip_a_presentation(conn: sqlite3.Connection) -> None:
    """Insert, with the guards in place, a forged pair shown that continues its family's
    chain (its hash worked out as Arena works it out): every trigger passes it."""
    from arena.ledger import chain

    conn.row_factory = sqlite3.Row
    shown = dict(conn.execute("SELECT * FROM presentations ORDER BY seq DESC LIMIT 1").fetchone())
    forged = {**shown, "presentation_id": "f" * 32, "prev_hash": shown["hash"]}
    del forged["seq"]
    forged["hash"] = chain.row_hash(shown["hash"], forged)
    conn.execute(
        f"INSERT INTO presentations ({', '.join(forged)}) VALUES ({', '.join('?' * len(forged))})",
        list(forged.values()),
    )
    conn.row_factory = None
