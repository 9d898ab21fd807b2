"""A family as it stands: its cases, outputs, gate results and the rater's corrections.

Loaded once and read by status, gating, comparisons, rounds and the rating
session (``for_rating``: the same, without every verdict), so each applies the
same corrections in the same way: removed outputs and retired cases are out of
force, a language the rater set is the case's language, and overruled gate
verdicts are set aside, as are the Language verdicts of cases in doubt
(``arena.pairs.case_doubt``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

from arena.decisions import Decisions, decisions
from arena.ledger import Ledger, catalog, events, trial_store, verdicts
from arena.pairs.case_doubt import Doubt, cases_in_doubt, may_doubt, set_aside
from arena.pairs.settling import (
    TESTED_KINDS,
    Columns,
    Pairs,
    PendingPairs,
    SettledComparison,
    Settlement,
    any_gate_failed,
    overrules_by_output,
    settle,
    stand_ins,
)
from arena.records import (
    Case,
    CaseId,
    Family,
    GateResult,
    Output,
    OutputId,
    OutputPlace,
    SystemId,
    Trial,
)

# An output whole, or only where it sits (``catalog.output_places``).
Placed = TypeVar("Placed", Output, OutputPlace)


@dataclass(frozen=True)
class FamilyState:
    family: Family
    cases: dict[CaseId, Case]
    # Every output, in import order (votes may refer to removed ones).
    outputs: dict[OutputId, Output]
    gate_results: dict[OutputId, tuple[GateResult, ...]]
    decisions: Decisions
    # What the gates read when the results in force were made (arena.gates.screening.Fingerprints).
    gate_fingerprints: dict[OutputId, str] = dataclasses.field(default_factory=dict)
    # A tested family's trial in force per output (whose result the output carries).
    trials: dict[OutputId, Trial] = dataclasses.field(default_factory=dict)
    # Each output's stored text key (arena.texts), so settling need not normalise texts.
    text_keys: dict[OutputId, str] = dataclasses.field(default_factory=dict)
    # Each output's stored content hash (``Output.content_hash``), so the gates' fingerprints
    # need not hash every text again.
    content_hashes: dict[OutputId, str] = dataclasses.field(default_factory=dict)

    @cached_property
    def in_force(self) -> tuple[Output, ...]:
        """Outputs not removed and not on a retired case, in import order."""
        return _in_force(self.outputs.values(), self.decisions)

    @cached_property
    def _overruled(self) -> dict[OutputId, frozenset[str]]:
        return overrules_by_output(self.decisions.overruled)

    def overruled_gates(self, output_id: OutputId) -> frozenset[str]:
        return self._overruled.get(output_id, frozenset())

    @cached_property
    def in_doubt(self) -> dict[CaseId, Doubt]:
        """The cases in force whose expected language is in doubt."""
        return cases_in_doubt(self.in_force, self.gate_results, self.decisions.languages_decided)

    def set_aside_gates(self, output_id: OutputId) -> frozenset[str]:
        """The gates whose verdicts on ``output_id`` settle nothing: overruled, or
        Language on a case in doubt."""
        case_id = self.outputs[output_id].case_id
        return set_aside(case_id, self.overruled_gates(output_id), self.in_doubt)

    @cached_property
    def failing(self) -> frozenset[OutputId]:
        """Outputs failing a gate whose verdict is not set aside (``set_aside_gates``)."""
        return frozenset(
            o
            for o, results in self.gate_results.items()
            if any_gate_failed(results, self.set_aside_gates(o))
        )

    def fails_gate(self, output_id: OutputId) -> bool:
        """Whether ``output_id`` is among the ``failing``."""
        return output_id in self.failing

    def _settle(self, *, pending: bool) -> Settlement:
        return settle(
            self.family,
            self.in_force,
            self.gate_results,
            overruled=self.decisions.overruled,
            pending=pending,
            unanswered=self.stand_ins,
            text_keys=self.text_keys,
            failing=self.failing,
        )

    @cached_property
    def stand_ins(self) -> tuple[Output, ...]:
        """In a tested family, an empty failed answer for each task (case in force) a
        system did not answer (``settling.stand_ins``); none in other families."""
        if self.family.kind not in TESTED_KINDS:
            return ()
        return stand_ins(self.family.name, self.in_force, self.cases_in_force)

    @cached_property
    def cases_in_force(self) -> tuple[CaseId, ...]:
        """The cases not retired (in a tested family, its tasks), in import order."""
        return tuple(c for c in self.cases if c not in self.decisions.retired_cases)

    @cached_property
    def settlement(self) -> Settlement:
        return self._settle(pending=True)

    @cached_property
    def settled(self) -> tuple[SettledComparison, ...]:
        """The settled comparisons, without listing every pending pair unless that is done."""
        if "settlement" in self.__dict__:
            return self.settlement.settled
        return self._settle(pending=False).settled


@dataclass(frozen=True)
class ForRating:
    """What a rating session reads of a family: its cases, the system of each output (votes
    may refer to removed ones) and the pairs left for the rater (``settlement.pending``).
    Texts are not read: the session reads an output's when its pair comes up."""

    family: Family
    cases: dict[CaseId, Case]
    systems: dict[OutputId, SystemId]
    pending: PendingPairs
    # Tested families: outputs in force without a test result (settled as failing).
    untested: int = 0
    # A ``votes`` family: every output where it sits, numbered (``OutputPlace.number``).
    places: tuple[OutputPlace, ...] | None = None


def for_rating(ledger: Ledger, name: str) -> ForRating:
    """A family as a rating session needs it, with the corrections ``FamilyState`` applies:
    a ``votes`` family's pairs from ``output_columns``, other kinds' from ``load``."""
    found = catalog.get_family(ledger, name)
    if found is not None and found.kind != "votes":
        state = load(ledger, name)
        pending = PendingPairs.of(state.settlement.pending)
        untested = sum(o.test_result is None for o in state.in_force)
        systems = {output_id: o.system_id for output_id, o in state.outputs.items()}
        return ForRating(state.family, state.cases, systems, pending, untested)
    family, decided, cases = _family_and_cases(ledger, name)
    places = catalog.output_places(ledger, name)
    systems = {o.output_id: o.system_id for o in places}
    pairs = Pairs.of("votes", output_columns(ledger, name, places, decided))
    return ForRating(family, cases, systems, pairs.pending(), places=tuple(places))


def output_columns(
    ledger: Ledger, name: str, places: Iterable[OutputPlace], decided: Decisions
) -> Columns:
    """The outputs in force of a family not tested, as settling reads them (``places``:
    all its outputs without their texts, ``catalog.output_places``), reading the verdicts
    of only the outputs that ever failed a gate (an output with no verdict at all counts
    as passing, where ``settle`` would refuse it)."""
    in_force = _in_force(places, decided)
    overruled = overrules_by_output(decided.overruled)
    results = verdicts.ever_failed(ledger, name, {o.output_id for o in in_force})
    doubted = doubted_cases(ledger, in_force, results, decided)
    case_of = {o.output_id: o.case_id for o in in_force}
    failing = {
        output_id
        for output_id, gates in results.items()
        if any_gate_failed(
            gates, set_aside(case_of[output_id], overruled.get(output_id, frozenset()), doubted)
        )
    }
    return Columns.of_places(in_force, failing)


def doubted_cases(
    ledger: Ledger,
    in_force: Iterable[OutputPlace],
    failed: dict[OutputId, tuple[GateResult, ...]],
    decided: Decisions,
) -> dict[CaseId, Doubt]:
    """The cases in doubt, known the verdicts of only the outputs that ever ``failed`` a
    gate: only a case where one of them names another language can be in doubt, and the
    Language verdicts of those cases' other outputs are read then."""
    naming = may_doubt(failed)
    candidates = {o.case_id for o in in_force if o.output_id in naming}
    candidates -= decided.languages_decided
    if not candidates:
        return {}
    on_them = [o for o in in_force if o.case_id in candidates]
    others = verdicts.in_force(ledger, [o.output_id for o in on_them if o.output_id not in failed])
    return cases_in_doubt(on_them, {**others, **failed})


def with_decided_languages(cases: dict[CaseId, Case], decided: Decisions) -> dict[CaseId, Case]:
    """The cases, with a language the rater set replacing what the file said or import read."""
    return {
        case_id: (
            dataclasses.replace(case, language=decided.case_languages[case_id])
            if case_id in decided.case_languages
            else case
        )
        for case_id, case in cases.items()
    }


def _family_and_cases(ledger: Ledger, name: str) -> tuple[Family, Decisions, dict[CaseId, Case]]:
    """The family, its corrections and its cases (languages decided)."""
    family = catalog.get_family(ledger, name)
    if family is None:
        raise catalog.no_such_family(ledger, name)
    decided = decisions(events.family_events(ledger, name))
    cases = {c.case_id: c for c in catalog.cases(ledger, name)}
    return family, decided, with_decided_languages(cases, decided)


def trials_in_force(
    ledger: Ledger, family: Family, outputs: dict[OutputId, Output], *, up_to: int | None = None
) -> dict[OutputId, Trial]:
    """Each output's newest trial (recorded up to seq ``up_to``), in a tested family."""
    if family.kind not in TESTED_KINDS:
        return {}
    latest = trial_store.latest_trials(ledger, family.name, up_to=up_to)
    return {
        output_id: trial
        for output_id, o in outputs.items()
        if (trial := latest.get((o.case_id, o.system_id, o.sample)))
    }


def with_trials(
    outputs: dict[OutputId, Output], trials: dict[OutputId, Trial]
) -> dict[OutputId, Output]:
    """The outputs, each with the result of its trial in force (which has the say over a
    result imported with the output)."""
    return {
        output_id: (
            dataclasses.replace(output, test_result=trials[output_id].result)
            if output_id in trials
            else output
        )
        for output_id, output in outputs.items()
    }


def _in_force(outputs: Iterable[Placed], decided: Decisions) -> tuple[Placed, ...]:
    return tuple(
        o
        for o in outputs
        if o.case_id not in decided.retired_cases and o.output_id not in decided.removed_outputs
    )


def load(ledger: Ledger, name: str) -> FamilyState:
    family, decided, cases = _family_and_cases(ledger, name)
    listed, content_hashes = catalog.outputs_and_hashes(ledger, name)
    outputs = {o.output_id: o for o in listed}
    results, fingerprints = verdicts.gate_verdicts(ledger, name, outputs=outputs.keys())
    trials = trials_in_force(ledger, family, outputs)
    return FamilyState(
        family=family,
        cases=cases,
        outputs=with_trials(outputs, trials),
        gate_results=results,
        decisions=decided,
        gate_fingerprints=fingerprints,
        trials=trials,
        text_keys=catalog.text_keys(ledger, name),
        content_hashes=content_hashes,
    )
