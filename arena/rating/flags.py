"""The rater's flags, and what was done about each: a flag is an event, so is its answer.

A flag names the pair on screen when it was raised (its presentation: which
output was on the left, which on the right) and the rater's note. What was
done about it is worked out from the family's events, never stored apart:

- resolved: a ``retract`` event names the flag (a retraction cannot itself be
  retracted; ``reopen`` raises the same flag again);
- case retired, output removed: the correction in force on its case or on one of
  its pair's outputs (from the Flags page, from the Gates page or the CLI alike);
  undoing that correction opens the flag again;
- open: none of these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.decisions import decisions
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, events, voting
from arena.rating import corrections
from arena.records import Case, Event, Output, OutputId, Presentation, PresentationId

SIDES = ("left", "right")


@dataclass(frozen=True)
class Side:
    """One output of a flagged pair, where the rater saw it."""

    output_id: str
    system_id: str
    system: str  # the system's label


@dataclass(frozen=True)
class Flag:
    event_id: str
    family: str
    case_id: str | None
    presentation_id: str | None
    note: str
    at: str
    actor: str
    # The pair as the rater saw it; None for a flag raised without a pair on screen.
    left: Side | None
    right: Side | None
    # The ``retract`` event that resolved the flag, if any.
    resolved_by: str | None
    # The corrections in force on its case or its outputs (retire_case, remove_output).
    answers: tuple[Event, ...]

    @property
    def status(self) -> str:
        """``resolved``, ``case retired``, ``output removed`` or ``open``."""
        if self.resolved_by is not None:
            return "resolved"
        kinds = {e.kind for e in self.answers}
        if "retire_case" in kinds:
            return "case retired"
        if "remove_output" in kinds:
            sides = [s for s in SIDES if self.removed(s)]
            return f"{' and '.join(sides)} output removed"
        return "open"

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    def side(self, name: str) -> Side | None:
        return self.left if name == "left" else self.right

    def removed(self, name: str) -> bool:
        side = self.side(name)
        return side is not None and any(
            e.kind == "remove_output" and e.output_id == side.output_id for e in self.answers
        )

    def as_json(self) -> dict[str, Any]:
        def side(s: Side | None) -> dict[str, str] | None:
            if s is None:
                return None
            return {"output_id": s.output_id, "system_id": s.system_id, "system": s.system}

        return {
            "flag": self.event_id,
            "family": self.family,
            "case_id": self.case_id,
            "presentation_id": self.presentation_id,
            "left": side(self.left),
            "right": side(self.right),
            "note": self.note,
            "at": self.at,
            "actor": self.actor,
            "status": self.status,
            "resolved": self.resolved_by is not None,
            "resolved_by": self.resolved_by,
            "answered_by": [e.event_id for e in self.answers],
        }


def read_flags(
    family_events: Iterable[Event],
    presentations: Mapping[str, Presentation],
    outputs: Mapping[str, Output],
    labels: Mapping[str, str],
) -> list[Flag]:
    """The flags among ``family_events`` (one family's, in order), oldest first.

    Pure: the pairs come from ``presentations`` and ``outputs``, the system names
    from ``labels``; an export works them out from its own copies of these.
    """
    ordered = sorted(family_events, key=lambda e: e.seq)
    resolved = {e.target_event: e.event_id for e in ordered if e.kind == "retract"}
    in_force = decisions(ordered).in_force

    def side(output_id: str) -> Side | None:
        output = outputs.get(output_id)
        if output is None:
            return None
        return Side(output_id, output.system_id, labels.get(output.system_id, output.system_id))

    found = []
    for event in ordered:
        if event.kind != "flag":
            continue
        shown = presentations.get(event.presentation_id or "")
        pair = (side(shown.left_output), side(shown.right_output)) if shown else (None, None)
        mine = {s.output_id for s in pair if s is not None}
        answers = tuple(
            e
            for e in in_force
            if (e.kind == "retire_case" and e.case_id and e.case_id == event.case_id)
            or (e.kind == "remove_output" and e.output_id in mine)
        )
        found.append(
            Flag(
                event.event_id,
                event.family,
                event.case_id,
                event.presentation_id,
                event.note,
                event.at,
                event.actor,
                *pair,
                resolved.get(event.event_id),
                answers,
            )
        )
    return found


def flagged_pair(ledger: Ledger, flag: Flag) -> tuple[Case | None, dict[str, str]]:
    """The flagged case, and the text of each side of its pair by name ("" for an output
    no longer in the ledger): what the rater saw when raising the flag."""
    texts = {}
    for name in SIDES:
        side = flag.side(name)
        if side is not None:
            output = catalog.get_output(ledger, OutputId(side.output_id))
            texts[name] = output.text if output is not None else ""
    return catalog.get_case(ledger, flag.family, flag.case_id or ""), texts


def family_flags(ledger: Ledger, family: str) -> list[Flag]:
    """Every flag of ``family``, oldest first, with what was done about it."""
    return flags_of(ledger, family, events.family_events(ledger, family))


def flags_of(ledger: Ledger, family: str, family_events: list[Event]) -> list[Flag]:
    """The flags among ``family_events`` (say, a chain up to a round's close)."""
    raised = [e for e in family_events if e.kind == "flag"]
    if not raised:
        return []
    presentations: dict[str, Presentation] = {}
    outputs: dict[str, Output] = {}
    for event in raised:
        if event.presentation_id is None:
            continue
        shown = voting.get_presentation(ledger, PresentationId(event.presentation_id))
        if shown is None:
            continue
        presentations[shown.presentation_id] = shown
        for output_id in (shown.left_output, shown.right_output):
            output = catalog.get_output(ledger, OutputId(output_id))
            if output is not None:
                outputs[output_id] = output
    labels: dict[str, str] = {s.system_id: s.label for s in catalog.systems(ledger, family)}
    return read_flags(family_events, presentations, outputs, labels)


def all_flags(ledger: Ledger, family: str | None = None) -> list[Flag]:
    """The flags of ``family``, or of every family (by family name, then oldest first)."""
    if family is not None:
        if catalog.get_family(ledger, family) is None:
            raise catalog.no_such_family(ledger, family)
        return family_flags(ledger, family)
    return [f for fam in catalog.families(ledger) for f in family_flags(ledger, fam.name)]


def find_flag(ledger: Ledger, flag_id: str) -> Flag:
    """A flag by event id (or an unambiguous prefix of 8+ characters)."""
    event = events.find_event(ledger, flag_id)
    if event is None or event.kind != "flag":
        raise BadInput(f"no flag has id {flag_id!r} (`arena flags` lists them)", field="FLAG")
    return next(f for f in family_flags(ledger, event.family) if f.event_id == event.event_id)


def resolve(ledger: Ledger, flag_id: str, *, reason: str = "", actor: str = "rater") -> str:
    """Mark a flag dealt with: a ``retract`` event naming it."""
    flag = find_flag(ledger, flag_id)
    if flag.resolved_by is not None:
        raise BadInput(f"flag {flag.event_id[:12]} is already resolved", field="FLAG")
    return corrections.retract(
        ledger, flag.event_id, reason=reason.strip() or "flag resolved", actor=actor
    )


def reopen(ledger: Ledger, flag_id: str, *, actor: str = "rater") -> str:
    """Undo a resolution: the same flag (case, pair and note) raised again, as a new event."""
    flag = find_flag(ledger, flag_id)
    if flag.resolved_by is None:
        raise BadInput(f"flag {flag.event_id[:12]} is not resolved", field="FLAG")
    return events.add_event(
        ledger,
        flag.family,
        "flag",
        case_id=flag.case_id,
        presentation_id=flag.presentation_id,
        actor=actor,
        note=flag.note,
    )


def retire_case(ledger: Ledger, flag_id: str, *, reason: str, actor: str = "rater") -> str:
    """Retire the flagged case (``corrections.retire_case``)."""
    flag = find_flag(ledger, flag_id)
    if flag.case_id is None:
        raise BadInput("this flag names no case", field="FLAG")
    return corrections.retire_case(ledger, flag.family, flag.case_id, reason=reason, actor=actor)


def remove_output(
    ledger: Ledger, flag_id: str, side: str, *, reason: str, actor: str = "rater"
) -> str:
    """Remove the output the rater saw on ``side`` (``left`` or ``right``) of the flagged pair."""
    if side not in SIDES:
        raise BadInput("the side must be left or right", field="side")
    shown = find_flag(ledger, flag_id).side(side)
    if shown is None:
        raise BadInput("this flag names no pair", field="FLAG")
    return corrections.remove_output(ledger, shown.output_id, reason=reason, actor=actor)


def undo_answer(ledger: Ledger, flag_id: str, *, reason: str = "", actor: str = "rater") -> str:
    """Undo what was last done about a flag: reopen it when resolved, else retract the
    newest correction that answers it."""
    flag = find_flag(ledger, flag_id)
    if flag.resolved_by is not None:
        return reopen(ledger, flag.event_id, actor=actor)
    if not flag.answers:
        raise BadInput(f"flag {flag.event_id[:12]} is open: nothing to undo", field="FLAG")
    newest = max(flag.answers, key=lambda e: e.seq)
    return corrections.retract(
        ledger, newest.event_id, reason=reason.strip() or f"undo {newest.kind}", actor=actor
    )
