"""The comparisons of a family: human votes and settled pairs, each fitted or left out.

Every vote in force is listed once with its status: ``fitted``, ``repeat``
(used only for rater agreement) or ``left_out`` with the reason: the case
was retired, an output was removed, an output now fails a gate, or the pair
now settles without a vote. Settled pairs are listed with the rule that
settled them and their 1/(k_a·k_b) weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.family_state import FamilyState
from arena.ledger import Ledger, voting
from arena.records import Output, OutputId, SystemId

SETTLER = "settler"
Y_OF_CHOICE = {"left": 1.0, "right": 0.0, "tie": 0.5, "both_bad": 0.5}

Status = Literal["fitted", "repeat", "left_out"]


@dataclass(frozen=True)
class Comparison:
    """One comparison of system a (left, for votes) with system b; y is a's outcome."""

    source: Literal["vote", "settled"]
    case_id: str
    category: str
    output_a: OutputId
    output_b: OutputId
    system_a: SystemId
    system_b: SystemId
    y: float
    weight: float
    actor: str
    status: Status
    reason: str | None = None
    vote_id: str | None = None
    choice: str | None = None
    repeat_of: str | None = None
    session: int | None = None
    rule: str | None = None
    len_a: int = 0
    len_b: int = 0
    is_diff: bool = False
    # Settled with a gate verdict on one of its outputs set aside by the rater.
    overruled: bool = False

    @property
    def decisive(self) -> bool:
        """A human vote for one side (left or right), as the preliminary mark counts them."""
        return self.source == "vote" and self.choice in ("left", "right")


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def settled_comparisons(state: FamilyState) -> list[Comparison]:
    """The family's settled pairs as comparisons, with their rule and weight."""
    outputs = state.outputs
    return [
        Comparison("settled", s.case_id, state.cases[s.case_id].category, s.output_a,
                   s.output_b, s.system_a, s.system_b, s.y, s.weight, SETTLER, "fitted",
                   rule=s.rule, overruled=s.overruled,
                   **_lengths(outputs[s.output_a], outputs[s.output_b]))
        for s in state.settlement.settled
    ]


def family_comparisons(ledger: Ledger, state: FamilyState) -> list[Comparison]:
    """Every comparison of the family as its ledger stands now (gates as last stored)."""
    outputs = state.outputs
    settled_pairs = settled_output_pairs(state)
    sessions = {s.session_id: s.number for s in voting.sessions(ledger, state.family.name)}
    found = settled_comparisons(state)
    for vote in voting.votes_in_force(ledger, state.family.name):
        left, right = outputs[vote.left_output], outputs[vote.right_output]
        status, reason = vote_status(state, vote.case_id, left.output_id, right.output_id,
                                     vote.repeat_of, settled_pairs)
        found.append(Comparison(
            "vote", vote.case_id, state.cases[vote.case_id].category, left.output_id,
            right.output_id, left.system_id, right.system_id, Y_OF_CHOICE[vote.choice], 1.0,
            vote.actor, status, reason, vote.vote_id, vote.choice, vote.repeat_of,
            sessions.get(vote.session_id), **_lengths(left, right)))
    return found


def _lengths(a: Output, b: Output) -> dict:
    return {"len_a": len(a.text), "len_b": len(b.text), "is_diff": a.is_diff or b.is_diff}


def settled_output_pairs(state: FamilyState) -> set[frozenset[str]]:
    return {_pair(s.output_a, s.output_b) for s in state.settlement.settled}


def vote_status(state: FamilyState, case_id: str, left: OutputId, right: OutputId,
                repeat_of: str | None, settled_pairs: set[frozenset[str]]
                ) -> tuple[Status, str | None]:
    """Whether a vote enters the fit, and if not, why."""
    if case_id in state.decisions.retired_cases:
        return "left_out", "retired_case"
    if {left, right} & state.decisions.removed_outputs:
        return "left_out", "removed_output"
    if state.fails_gate(left) or state.fails_gate(right):
        return "left_out", "failing_gate"
    if _pair(left, right) in settled_pairs:
        return "left_out", "settled_pair"
    return ("repeat", None) if repeat_of is not None else ("fitted", None)
