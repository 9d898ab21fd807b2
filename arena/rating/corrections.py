"""The rater's corrections of automatic decisions, each an append-only event.

Set the language a case expects (or confirm the one it has, when most answers
are in another: ``arena.pairs.case_doubt``), overrule a gate's verdict on an
output, retire a case, remove an output, and retract any of these. Each checks what
it is asked first and refuses with a clear message; setting (or retracting)
a case's language re-runs the gates on that case in the same transaction, so
status, the scheduler and the next round see the new verdicts at once.
"""

from __future__ import annotations

import string

from arena import family_state
from arena.decisions import decisions
from arena.errors import BadInput
from arena.gates import screening
from arena.ledger import Ledger, catalog, events, verdicts
from arena.records import GATES, LANGUAGE_TAG, CaseId, Event, Output, OutputId


def _reason(reason: str, what: str) -> str:
    reason = reason.strip()
    if not reason:
        raise BadInput(f"say why you {what}", field="--reason")
    return reason


def _undo_hint(event: Event) -> str:
    return f"(event {event.event_id[:12]}; retract that event to undo it)"


def find_output(ledger: Ledger, name: str) -> Output:
    """An output by full id or a prefix of 8 or more hex digits."""
    matches = (
        catalog.find_output(ledger, name)
        if name and all(c in string.hexdigits for c in name)
        else []
    )
    if len(matches) != 1:
        problem = "more than one output starts with" if matches else "no output has id"
        raise BadInput(
            f"{problem} {name!r} (ids are listed by `arena gate --list`)", field="OUTPUT"
        )
    return matches[0]


def _in_force(ledger: Ledger, family: str, kind: str, **match: str) -> Event | None:
    # The events alone: loading the whole family to read them costs its every output.
    for event in decisions(events.family_events(ledger, family)).in_force:
        if event.kind == kind and all(getattr(event, k) == v for k, v in match.items()):
            return event
    return None


def _case(ledger: Ledger, family: str, case_id: str) -> None:
    if catalog.get_case(ledger, family, case_id) is None:
        raise BadInput(f"family {family!r} has no case {case_id!r}", field="CASE")


def set_case_language(
    ledger: Ledger,
    family: str,
    case_id: str,
    language: str,
    *,
    reason: str = "",
    actor: str = "rater",
) -> str:
    """The case expects ``language``: its outputs are judged against it from now on."""
    _case(ledger, family, case_id)
    if not LANGUAGE_TAG.match(language):
        raise BadInput(
            f"{language!r} is not a language tag (e.g. fr, zh-Hans, pt-BR)", field="--language"
        )
    with ledger.atomic():
        event = events.add_event(
            ledger,
            family,
            "set_language",
            case_id=case_id,
            language=language,
            actor=actor,
            note=reason.strip() or f"the case expects {language}",
        )
        _regate(ledger, family, case_id)
    return event


def confirm_case_language(
    ledger: Ledger, family: str, case_id: str, *, reason: str = "", actor: str = "rater"
) -> str:
    """A case in doubt expects the language it has: its Language verdicts settle pairs
    again."""
    _case(ledger, family, case_id)
    state = family_state.load(ledger, family)
    doubt = state.in_doubt.get(CaseId(case_id))
    if doubt is None:
        done = _in_force(ledger, family, "confirm_language", case_id=case_id)
        if done is not None:
            raise BadInput(
                f"the language of case {case_id!r} is already confirmed {_undo_hint(done)}",
                field="CASE",
            )
        raise BadInput(
            f"the language of case {case_id!r} is not in doubt: fewer than half of its answers "
            "agree on another language (see `arena gate --list`)",
            field="CASE",
        )
    language = state.cases[CaseId(case_id)].language or state.family.language
    return events.add_event(
        ledger,
        family,
        "confirm_language",
        case_id=case_id,
        language=language,
        actor=actor,
        note=reason.strip()
        or f"the case expects {language}, though most answers are in {doubt.language}",
    )


def _regate(ledger: Ledger, family: str, case_id: str) -> None:
    screening.rerun(ledger, family_state.load(ledger, family), cases={CaseId(case_id)})


def overrule(
    ledger: Ledger, output_name: str, gate: str, *, reason: str, actor: str = "rater"
) -> str:
    """Set ``gate``'s failing verdict on an output aside."""
    output = find_output(ledger, output_name)
    if gate not in GATES:
        raise BadInput(f"no gate {gate!r}; one of {', '.join(GATES)}", field="--gate")
    why = _reason(reason, "overrule the gate")
    verdict = next(
        (r for r in verdicts.output_gate_results(ledger, output.output_id) if r.gate == gate),
        None,
    )
    if verdict is None or verdict.passed:
        raise BadInput(
            f"the {gate} gate passes output {output.output_id[:12]}; there is nothing to overrule",
            field="--gate",
        )
    done = _in_force(ledger, output.family, "overrule", output_id=output.output_id, gate=gate)
    if done is not None:
        raise BadInput(
            f"the {gate} verdict on this output is already overruled {_undo_hint(done)}",
            field="--gate",
        )
    return events.add_event(
        ledger,
        output.family,
        "overrule",
        output_id=output.output_id,
        case_id=output.case_id,
        gate=gate,
        actor=actor,
        note=why,
    )


def retire_case(
    ledger: Ledger, family: str, case_id: str, *, reason: str, actor: str = "rater"
) -> str:
    """Take a case out of the family: its pairs and votes leave the fit."""
    _case(ledger, family, case_id)
    why = _reason(reason, "retire the case")
    done = _in_force(ledger, family, "retire_case", case_id=case_id)
    if done is not None:
        raise BadInput(f"case {case_id!r} is already retired {_undo_hint(done)}", field="CASE")
    return events.add_event(ledger, family, "retire_case", case_id=case_id, actor=actor, note=why)


def remove_output(ledger: Ledger, output_name: str, *, reason: str, actor: str = "rater") -> str:
    """Take an output out of its family: its pairs and votes leave the fit."""
    output = find_output(ledger, output_name)
    why = _reason(reason, "remove the output")
    done = _in_force(ledger, output.family, "remove_output", output_id=output.output_id)
    if done is not None:
        raise BadInput(
            f"output {output.output_id[:12]} is already removed {_undo_hint(done)}", field="OUTPUT"
        )
    return events.add_event(
        ledger,
        output.family,
        "remove_output",
        output_id=OutputId(output.output_id),
        case_id=output.case_id,
        actor=actor,
        note=why,
    )


def retract(ledger: Ledger, event_name: str, *, reason: str = "", actor: str = "rater") -> str:
    """Undo an event: a ``retract`` event naming it; a retraction cannot itself be retracted."""
    target = events.find_event(ledger, event_name)
    if target is None:
        raise BadInput(
            f"no event has id {event_name!r} (ids are listed by `arena event list`)", field="EVENT"
        )
    if target.kind == "retract":
        raise BadInput(
            "a retraction cannot be retracted; make the correction again instead", field="EVENT"
        )
    retracted = {
        e.target_event for e in events.family_events(ledger, target.family) if e.kind == "retract"
    }
    if target.event_id in retracted:
        raise BadInput(f"event {target.event_id[:12]} is already retracted", field="EVENT")
    with ledger.atomic():
        event = events.add_event(
            ledger,
            target.family,
            "retract",
            target_event=target.event_id,
            case_id=target.case_id,
            output_id=target.output_id,
            actor=actor,
            note=reason.strip() or f"undo {target.kind}",
        )
        if target.kind == "set_language" and target.case_id:
            _regate(ledger, target.family, target.case_id)
    return event
