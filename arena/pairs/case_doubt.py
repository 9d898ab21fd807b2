"""Cases whose expected language is in doubt: most answers agree on another language.

When at least half of a case's outputs with a Language verdict (enough prose to
tell) are read as the same language L that the case does not expect, and they
come from at least ``DOUBT_MIN_SYSTEMS`` systems, the prompt most likely asks
for L. Its Language verdicts are then *in doubt*: shown, but settling no pair,
until the rater sets the case's language or confirms the one it has (events;
``Decisions.languages_decided``). Pure: verdicts in, cases out.

The language an output was read as comes from its stored Language reason
(``arena.gates.language_gate``), which a bundle carries too, so ``arena verify``
finds the same cases from the bundle alone.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.records import CaseId, GateResult, Output, OutputId, OutputPlace

LANGUAGE_GATE = "language"
# One system answering in another language is what the gate is for; agreement
# needs two (docs/gates.md, "A case's language in doubt").
DOUBT_MIN_SYSTEMS = 2
# "Language: 93% of prose and comments is nl, family language is en": the one
# language a failing verdict names.
_READ_AS = re.compile(r"Language: \d+% of prose and comments (?:read )?is ([A-Za-z-]+),")
_UNDETERMINED = "Language: undetermined"


@dataclass(frozen=True)
class Doubt:
    """``outputs`` of the ``of`` outputs with a Language verdict on ``case_id`` (from
    ``systems`` systems) were read as ``language``, which the case does not expect."""

    case_id: CaseId
    language: str
    outputs: int
    of: int
    systems: int

    def describe(self) -> str:
        return (
            f"{self.outputs} of {self.of} answers with a Language verdict are in "
            f"{self.language}: does the prompt ask for {self.language}?"
        )


def language_read(results: Sequence[GateResult]) -> str | None:
    """What an output's Language verdict read it as: the other language a failing verdict
    names; "" for a verdict that names none (a pass, or a mix of other languages); None
    when there is no verdict (undetermined, or not gated)."""
    verdict = next((r for r in results if r.gate == LANGUAGE_GATE), None)
    if verdict is None or verdict.reason.startswith(_UNDETERMINED):
        return None
    if verdict.passed:
        return ""
    found = _READ_AS.match(verdict.reason)
    return found.group(1) if found else ""


def may_doubt(results: Mapping[OutputId, Sequence[GateResult]]) -> frozenset[OutputId]:
    """The outputs whose Language verdict names another language: only their cases can be
    in doubt, so a caller holding only some verdicts knows which cases to read whole."""
    return frozenset(o for o, found in results.items() if language_read(found))


def cases_in_doubt(
    outputs: Iterable[Output | OutputPlace],
    results: Mapping[OutputId, Sequence[GateResult]],
    decided: Collection[CaseId] = frozenset(),
) -> dict[CaseId, Doubt]:
    """The cases in doubt among ``outputs`` (those in force), leaving out the ``decided``
    ones, whose language the rater set or confirmed. ``results``: the verdicts in force
    of at least every output on a case that may be in doubt."""
    verdicts: Counter[CaseId] = Counter()
    read: defaultdict[CaseId, defaultdict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for output in outputs:
        if output.case_id in decided:
            continue
        language = language_read(results.get(output.output_id, ()))
        if language is None:
            continue
        verdicts[output.case_id] += 1
        if language:
            read[output.case_id][language].append(output.system_id)
    found = {}
    for case_id, languages in read.items():
        language, systems = max(languages.items(), key=lambda item: (len(item[1]), item[0]))
        of = verdicts[case_id]
        distinct = len(set(systems))
        if 2 * len(systems) >= of and distinct >= DOUBT_MIN_SYSTEMS:
            found[case_id] = Doubt(case_id, language, len(systems), of, distinct)
    return found


def set_aside(
    case_id: CaseId, overruled: frozenset[str], doubted: Collection[CaseId]
) -> frozenset[str]:
    """The gates whose verdicts on an output of ``case_id`` settle nothing: those the
    rater overruled, and Language on a case in doubt."""
    return overruled | {LANGUAGE_GATE} if case_id in doubted else overruled
