"""What a collecting run has to do, and how each answer is stored.

A job is one (case in force, system, sample) without an output; its output's id is
fixed by where it sits (``output_id``), so a job whose answer was stored by a run that
was killed afterwards is not a job again, and an answer is never stored twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from arena import gates
from arena.collecting.systems_file import is_collectable, samples_of
from arena.decisions import decisions
from arena.errors import BadInput
from arena.family_state import with_decided_languages
from arena.gates.screening import Fingerprints
from arena.intake.readers.fastchat import join_turns
from arena.ledger import Ledger, catalog, events, roster, verdicts
from arena.records import Case, Family, Output, OutputDetails, OutputId, System, output_id

# Kinds whose outputs are votes' matter; a tests-then-votes family's answers are diffs.
COLLECTED_KINDS = ("votes", "tests_then_votes")
_FENCED_DIFF = re.compile(r"```(?:diff|patch)\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Job:
    case: Case  # as the gates read it (the rater's language in force)
    turns: tuple[str, ...]
    system: System
    sample: int

    @property
    def output_id(self) -> OutputId:
        return output_id(self.case.family, self.case.case_id, self.system.system_id, self.sample)


def chosen_systems(ledger: Ledger, family: str, labels: Sequence[str] = ()) -> list[System]:
    """The family's systems to collect from: all of them, or those ``labels`` name."""
    known = [s for s in roster.family_systems(ledger, family) if is_collectable(s)]
    if not known:
        raise BadInput(
            f"family {family!r} has no systems to collect from; add them with "
            "`arena systems add FILE --family NAME`",
            field="--family",
        )
    if not labels:
        return known
    by_label = {s.label: s for s in known}
    missing = [label for label in labels if label not in by_label]
    if missing:
        raise BadInput(
            f"no system labelled {missing[0]!r} in family {family!r} (it has "
            f"{', '.join(sorted(by_label))})",
            field="--system",
        )
    return [by_label[label] for label in dict.fromkeys(labels)]


def family_to_collect(ledger: Ledger, name: str) -> Family:
    family = catalog.get_family(ledger, name)
    if family is None:
        raise catalog.no_such_family(ledger, name)
    if family.kind not in COLLECTED_KINDS:
        raise BadInput(
            f"family {name!r} is a {family.kind} family; collect fills votes and "
            "tests_then_votes families (a graded family collects from its suite)",
            field="--family",
        )
    return family


def jobs(ledger: Ledger, family: Family, systems: Sequence[System]) -> tuple[list[Job], int]:
    """Every job left, a case at a time (each system's samples of a case together, so
    pairs form as the run goes), and how many were already done."""
    decided = decisions(events.family_events(ledger, family.name))
    cases = with_decided_languages(
        {c.case_id: c for c in catalog.cases(ledger, family.name)}, decided
    )
    details = roster.case_details(ledger, family.name)
    stored = roster.output_ids(ledger, family.name)
    todo: list[Job] = []
    done = 0
    for case_id, case in cases.items():
        if case_id in decided.retired_cases:
            continue
        found = details.get(case_id)
        turns = found.turns if found is not None else (case.prompt,)
        for system in systems:
            for sample in range(samples_of(system)):
                job = Job(case, turns, system, sample)
                if job.output_id in stored:
                    done += 1
                else:
                    todo.append(job)
    return todo, done


@dataclass(frozen=True, kw_only=True)
class Answer(OutputDetails):
    """A job's answer: every turn's reply joined, with their details summed."""

    text: str
    # Token counts some turn's reply claimed beyond what its request allowed (held down to
    # that); said in the run's summary, not stored with the output.
    suspicious: str = ""


def output_of(job: Job, answer: Answer, family: Family) -> Output:
    details = answer.details()
    text = answer.text
    if family.kind == "tests_then_votes":
        details["is_diff"] = True
        fenced = _FENCED_DIFF.search(text)
        text = fenced.group(1) if fenced else text
    return Output(
        job.output_id,
        family.name,
        job.case.case_id,
        job.system.system_id,
        job.sample,
        text,
        **details,
    )


def store(
    ledger: Ledger,
    family: Family,
    fingerprints: Fingerprints,
    output: Output,
    case: Case,
    run_id: str,
) -> bool:
    """Store one output with every gate's verdict, in one transaction; False when it was
    already there (another run stored it first)."""
    with ledger.atomic():
        # Compared by place, not content: another run's answer to the same job stands.
        if catalog.get_output(ledger, output.output_id) is not None:
            return False
        catalog.add_output(ledger, output, run_id)
        verdicts.record_gate_results(
            ledger,
            [(output.output_id, gates.evaluate(output, case, family), fingerprints(output, case))],
        )
    return True


def joined(texts: Sequence[str]) -> str:
    """A multi-turn answer as the FastChat import joins one, so both read alike."""
    return join_turns(list(texts))
