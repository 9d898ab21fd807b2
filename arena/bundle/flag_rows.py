"""A round bundle's ``flags.jsonl``: the rater's flags as they stood at closing.

Each row is a flag of ``events.jsonl`` made readable: the case, the pair as the
rater saw it (left and right output, with their systems), the note, the time,
and what was done about it by the close. ``arena verify`` checks every row
against the flag events of ``events.jsonl``, which the hash chain vouches for.
"""

from __future__ import annotations

from typing import Any

from arena.ledger import Ledger
from arena.records import Event


def flag_rows(ledger: Ledger, family: str, event_rows: list[dict[str, Any]]) -> list[dict]:
    """The flags among a family's events chain (up to a round's close), one row each."""
    # Loaded on use: the rating side (and through it the gates) is export's, not verify's.
    from arena.rating.flags import flags_of

    return [f.as_json() for f in flags_of(ledger, family, [Event.from_row(r) for r in event_rows])]


def check_flags(rows: list[dict[str, Any]], event_rows: list[dict[str, Any]]) -> list[str]:
    """What in ``flags.jsonl`` differs from the flags of ``events.jsonl``."""
    raised = {r["event_id"]: r for r in event_rows if r["kind"] == "flag"}
    retracted = {r["target_event"]: r["event_id"] for r in event_rows if r["kind"] == "retract"}
    problems = []
    listed = [r.get("flag") for r in rows]
    if sorted(map(str, listed)) != sorted(raised):
        problems.append("flags.jsonl: does not list exactly the flags of events.jsonl")
    for row in rows:
        event = raised.get(row.get("flag", ""))
        if event is None:
            continue
        same = all(
            row.get(key) == event.get(key) for key in ("case_id", "presentation_id", "note", "at")
        )
        if not same or row.get("resolved_by") != retracted.get(event["event_id"]):
            problems.append(f"flags.jsonl: flag {event['event_id']} differs from events.jsonl")
    return problems
