"""Events: the rater's corrections (retire, remove, set a language, overrule, retract) and flags.

Rows are chained and never changed; what is in force is worked out from all
of them by ``arena.decisions``.
"""

from __future__ import annotations

from arena.clock import now_iso
from arena.ledger import chain
from arena.ledger.connection import Ledger
from arena.ledger.voting import new_id
from arena.records import Event, EventKind


def add_event(
    ledger: Ledger,
    family: str,
    kind: EventKind,
    *,
    case_id: str | None = None,
    output_id: str | None = None,
    presentation_id: str | None = None,
    gate: str | None = None,
    language: str | None = None,
    target_event: str | None = None,
    actor: str = "rater",
    note: str = "",
) -> str:
    """Append one event; call inside ``ledger.atomic()`` to join a larger write."""
    event_id = new_id()
    with ledger.atomic():
        chain.append(
            ledger,
            "events",
            {
                "event_id": event_id,
                "family": family,
                "kind": kind,
                "case_id": case_id,
                "output_id": output_id,
                "presentation_id": presentation_id,
                "gate": gate,
                "language": language,
                "target_event": target_event,
                "actor": actor,
                "note": note,
                "at": now_iso(),
            },
        )
    return event_id


def family_events(ledger: Ledger, family: str) -> list[Event]:
    """Every event of ``family`` in the order it was written."""
    return [
        Event.from_row(r)
        for r in ledger.rows("SELECT * FROM events WHERE family = ? ORDER BY seq", [family])
    ]


def find_event(ledger: Ledger, event_id: str) -> Event | None:
    """An event by id or unambiguous prefix (8+ characters)."""
    rows = ledger.rows("SELECT * FROM events WHERE event_id = ?", [event_id])
    if not rows and len(event_id) >= 8:
        rows = ledger.rows("SELECT * FROM events WHERE event_id LIKE ?", [event_id + "%"])
    return Event.from_row(rows[0]) if len(rows) == 1 else None
