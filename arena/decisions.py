"""The rater's corrections in force, worked out from a family's events.

Pure: events in, decisions out. An event is in force unless a ``retract``
event names it; a retraction itself cannot be retracted (to redo a
correction, make it again). Of several ``set_language`` events on one case
the newest in force wins. A ``confirm_language`` event says the case expects
the language it has, so it is no longer in doubt (``arena.pairs.case_doubt``).
Flags are notes, not corrections: they change nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.records import CaseId, Event, OutputId

CORRECTIONS = ("retire_case", "remove_output", "set_language", "overrule", "confirm_language")


@dataclass(frozen=True)
class Decisions:
    retired_cases: frozenset[CaseId] = frozenset()
    removed_outputs: frozenset[OutputId] = frozenset()
    # (output, gate): the gate's verdict on the output is set aside.
    overruled: frozenset[tuple[OutputId, str]] = frozenset()
    case_languages: dict[CaseId, str] = field(default_factory=dict)
    # Cases whose language the rater confirmed (``confirm_language``).
    confirmed_languages: frozenset[CaseId] = frozenset()
    # The corrections in force, oldest first: what a round records and a bundle carries.
    in_force: tuple[Event, ...] = ()

    @property
    def languages_decided(self) -> frozenset[CaseId]:
        """Cases whose language the rater set or confirmed: none of them is in doubt."""
        return self.confirmed_languages | self.case_languages.keys()

    def record(self) -> list[dict[str, Any]]:
        """The corrections in force as a round's settings record them."""
        return [event_record(e) for e in self.in_force]


def event_record(event: Event) -> dict[str, Any]:
    """An event as plain JSON, only the fields its kind uses."""
    row = {
        "event_id": event.event_id,
        "kind": event.kind,
        "actor": event.actor,
        "at": event.at,
        "reason": event.note,
    }
    for name in ("case_id", "output_id", "presentation_id", "gate", "language", "target_event"):
        value = getattr(event, name)
        if value is not None:
            row[name] = value
    return row


def decisions(events: Iterable[Event]) -> Decisions:
    """What the events of one family decide, read in the order they were written."""
    ordered = sorted(events, key=lambda e: e.seq)
    retracted = {e.target_event for e in ordered if e.kind == "retract"}
    kept = [e for e in ordered if e.kind in CORRECTIONS and e.event_id not in retracted]
    languages: dict[CaseId, str] = {}
    for event in kept:
        if event.kind == "set_language" and event.case_id and event.language:
            languages[CaseId(event.case_id)] = event.language
    return Decisions(
        retired_cases=frozenset(
            CaseId(e.case_id) for e in kept if e.kind == "retire_case" and e.case_id
        ),
        removed_outputs=frozenset(
            OutputId(e.output_id) for e in kept if e.kind == "remove_output" and e.output_id
        ),
        overruled=frozenset(
            (OutputId(e.output_id), e.gate)
            for e in kept
            if e.kind == "overrule" and e.output_id and e.gate
        ),
        case_languages=languages,
        confirmed_languages=frozenset(
            CaseId(e.case_id) for e in kept if e.kind == "confirm_language" and e.case_id
        ),
        in_force=tuple(kept),
    )
