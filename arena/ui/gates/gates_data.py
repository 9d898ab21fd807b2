"""What the Gates page shows of one family, read once after each change.

Plain Python (no Qt): the family as it stands, its failing verdicts (overruled
ones too, so they can be undone), the evidence of Language verdicts, and the
cases in doubt, where most answers are in the same other language
(``arena.pairs.case_doubt``): the likeliest "the prompt asks for that language"
cases.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from arena import family_state
from arena.gates import screening
from arena.gates.evidence import language_pieces
from arena.gates.langid import language_code
from arena.gates.screening import GateFailure
from arena.ledger import Ledger
from arena.pairs.case_doubt import Doubt
from arena.rating.status import family_status
from arena.records import GATES, Case, CaseId, Event, Output, OutputId

GATE_TITLES = {gate: gate.capitalize() for gate in GATES}


def gate_title(gate: str | None) -> str:
    return GATE_TITLES.get(gate or "", gate or "")


def short_reason(failure: GateFailure) -> str:
    """The reason without its "Gate: " prefix, for where the gate is already named."""
    prefix = f"{gate_title(failure.gate)}: "
    reason = failure.reason
    return reason[len(prefix) :] if reason.startswith(prefix) else reason


@dataclass(frozen=True)
class Reading:
    """The pieces of one output the Language gate reads, and the languages it accepts."""

    pieces: tuple[Any, ...]
    expected: frozenset[str]

    def shares(self) -> list[tuple[str, int]]:
        """Letters read per language ("" = unclear), the largest first."""
        totals: Counter[str] = Counter()
        for piece in self.pieces:
            totals[piece.language] += piece.weight
        return totals.most_common()

    def other(self) -> str | None:
        """The language read most that the case does not accept, if any."""
        return next(
            (
                lang
                for lang, _ in self.shares()
                if lang and language_code(lang) not in self.expected
            ),
            None,
        )


# Evidence does not change while an output and its case's languages stay the same,
# so the page keeps it across reloads.
ReadingCache = dict[tuple[OutputId, frozenset[str]], Reading]


class GatesData:
    def __init__(self, ledger: Ledger, family: str, cache: ReadingCache | None = None) -> None:
        self.state = family_state.load(ledger, family)
        self.family = self.state.family
        self.labels = screening.system_labels(ledger, family)
        self.failures: list[GateFailure] = screening.failures(ledger, self.state)
        self.status: dict[str, Any] = family_status(ledger, family)[0]
        self._cache: ReadingCache = cache if cache is not None else {}

    # -- one verdict ------------------------------------------------------------

    def output(self, output_id: str) -> Output:
        return self.state.outputs[OutputId(output_id)]

    def case(self, case_id: str) -> Case:
        return self.state.cases[CaseId(case_id)]

    def find(self, output_id: str, gate: str) -> GateFailure | None:
        return next((f for f in self.failures if f.output_id == output_id and f.gate == gate), None)

    def reading(self, output_id: str) -> Reading:
        output = self.output(output_id)
        case = self.case(output.case_id)
        expected = frozenset(
            language_code(tag) for tag in case.expected_languages(self.family.language)
        )
        key = (output.output_id, expected)
        if key not in self._cache:
            pieces = tuple(language_pieces(output, case, self.family))
            self._cache[key] = Reading(pieces, expected)
        return self._cache[key]

    def expected_text(self, case_id: str) -> str:
        """The language ``case_id`` expects, and who said so."""
        case, family_language = self.case(case_id), self.family.language
        if CaseId(case_id) in self.state.decisions.case_languages:
            return f"{case.language} (set by the rater)"
        if case.language:
            return f"{case.language} (given by the file)"
        if case.detected_language:
            return (
                f"{case.detected_language} (read from the prompt) or the family's {family_language}"
            )
        return f"{family_language} (the family's)"

    # -- the cases in doubt ----------------------------------------------------------

    def doubts(self) -> list[Doubt]:
        """The cases in doubt, in case order."""
        return [self.state.in_doubt[c] for c in self.state.cases if c in self.state.in_doubt]

    def doubt_of(self, case_id: str) -> Doubt | None:
        return self.state.in_doubt.get(CaseId(case_id))

    def kept_language(self, case_id: str) -> str:
        """The language confirming ``case_id``'s keeps: its own, else the family's."""
        return self.case(case_id).language or self.family.language

    def suggested_language(self, case_id: str) -> str:
        """The language most answers to a case in doubt are in, else the one most of its
        failing answers were read as, else what the prompt was read as, else nothing."""
        doubt = self.doubt_of(case_id)
        if doubt is not None:
            return doubt.language
        read = Counter(
            self.reading(f.output_id).other()
            for f in self.failures
            if f.gate == "language" and f.status == "failed" and f.case_id == case_id
        )
        read.pop(None, None)
        if read:
            return read.most_common(1)[0][0] or ""
        return self.case(case_id).detected_language or ""

    # -- corrections in force -----------------------------------------------------

    def corrections(self) -> tuple[Event, ...]:
        """The rater's corrections in force, newest first."""
        return tuple(reversed(self.state.decisions.in_force))

    def where(self, output_id: str | None) -> str:
        output = self.state.outputs.get(OutputId(output_id or ""))
        if output is None:
            return f"output {(output_id or '')[:12]}"
        return (
            f"output {output.output_id[:12]} (case {output.case_id}, "
            f"{self.labels.get(output.system_id, '?')})"
        )

    def describe(self, event: Event) -> str:
        """A correction in a few words: what it changed."""
        if event.kind == "overrule":
            return f"{gate_title(event.gate)} verdict overruled on {self.where(event.output_id)}"
        if event.kind == "set_language":
            return f"case {event.case_id} expects {event.language}"
        if event.kind == "confirm_language":
            return f"case {event.case_id} keeps {event.language} (its language confirmed)"
        if event.kind == "retire_case":
            return f"case {event.case_id} retired"
        if event.kind == "remove_output":
            return f"{self.where(event.output_id)} removed"
        return f"{event.kind} {event.event_id[:12]}"
