"""What `arena status` counts for a family.

A ``votes`` or ``graded`` family is counted from a few columns of its rows
(``ledger.tallies``, ``pairs.counting``) without listing its pairs; a tested
family settles by its tests and diffs too, and is counted from the whole
family as it stands (``full_status_row``, which a test holds the quick count to).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from itertools import chain
from typing import TYPE_CHECKING, Any

from arena.decisions import decisions
from arena.family_state import doubted_cases
from arena.ledger import Ledger, events, tallies, verdicts, voting
from arena.pairs import case_doubt
from arena.pairs.adaptive import OrderModel
from arena.pairs.counting import CaseOutputs, PairCounts, count, distinct_pairs, plain_cases
from arena.pairs.settling import TESTED_KINDS, any_gate_failed, overrules_by_output
from arena.rating import one_agent
from arena.records import VOTED_KINDS, CaseId, Family, OutputId, OutputPlace, SystemId

if TYPE_CHECKING:
    from arena import family_state


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def counted_rows(ledger: Ledger, families: list[Family]) -> list[dict[str, Any]]:
    """The status row of each of ``families``, counted from the ledger."""
    return [
        full_status_row(ledger, f.name) if f.kind in TESTED_KINDS else _counted_row(ledger, f)
        for f in families
    ]


def _counted_row(ledger: Ledger, family: Family) -> dict[str, Any]:
    decided = decisions(events.family_events(ledger, family.name))
    retired, removed = decided.retired_cases, decided.removed_outputs
    # Only an output that ever failed a gate can be failing now.
    failed = {
        output_id: case_id
        for output_id, case_id in tallies.ever_failed(ledger, family.name).items()
        if case_id not in retired and output_id not in removed
    }
    overruled = overrules_by_output(decided.overruled)
    results = verdicts.in_force(ledger, failed)
    failing = {
        output_id
        for output_id, found in results.items()
        if any_gate_failed(found, overruled.get(output_id, frozenset()))
    }
    marked = {
        *retired,
        *(failed[o] for o in failing),
        *(CaseId(case_id) for _, case_id in voting.places(ledger, removed).values()),
    }
    plain, others = plain_cases(tallies.case_tallies(ledger, family.name), marked)
    read = tallies.case_outputs(ledger, family.name, others)
    counted = [_without(found, removed) for found in read if found[0] not in retired]
    # A case in doubt has a failing output, so its outputs are among those counted.
    places = [
        OutputPlace(o, case_id, s, key)
        for case_id, outputs, systems, keys in counted
        for o, s, key in zip(outputs, systems, keys, strict=True)
    ]
    doubted = doubted_cases(ledger, places, results, decided)
    failing = {
        o
        for o in failing
        if any_gate_failed(
            results[o], case_doubt.set_aside(failed[o], overruled.get(o, frozenset()), doubted)
        )
    }
    votes, voted = tallies.voted_pairs(ledger, family.name)
    counts = PairCounts(0, 0)  # graded: scored by graders, no pairs
    if family.kind == "votes":
        # The votes on the other cases (retired ones too) are counted with their outputs;
        # a pair being two outputs of one case, the rest are the plain cases' pairs.
        set_aside = {o for _, outputs, _, _ in read for o in outputs}
        on_others = tallies.votes_on(ledger, family.name, set_aside) if set_aside else ([], [])
        counts = count(plain, counted, failing, voted - distinct_pairs(on_others), on_others)
    # Plain cases with the same systems share one list of them (``tallies.case_tallies``).
    listed = {id(listed): listed for _, _, _, listed in plain}.values()
    systems = set(chain(*listed, *(listed for _, _, listed, _ in counted)))
    return {
        "name": family.name,
        "kind": family.kind,
        "language": family.language,
        "systems": len(systems),
        "cases": tallies.case_count(ledger, family.name, retired),
        "outputs": sum(n for _, n, _, _ in plain) + sum(len(o) for _, o, _, _ in counted),
        "gate_failures": len(failing),
        "votes": votes,
        "settled_pairs": counts.settled,
        "pending_pairs": counts.unvoted,
        "votes_to_settle": votes_to_settle(ledger, family, systems),
    }


def votes_to_settle(ledger: Ledger, family: Family, systems: AbstractSet[SystemId]) -> int | None:
    """The window's estimate of the votes left until "the order is unlikely to change"
    (``OrderModel.votes_to_settle``); None for a family without votes, or before each two
    of its ``systems`` have a vote between them (status does not list the pairs, so a
    system pair whose every pair the gates settle keeps it None, where the window, which
    lists them, passes it by)."""
    if family.kind not in VOTED_KINDS:
        return None
    lefts, rights, choices = tallies.system_votes(ledger, family.name)
    model = OrderModel({*systems, *lefts, *rights})
    if lefts:
        model.count_all(lefts, rights, choices)
    return model.votes_to_settle(model.every_pair_voted())


def _without(found: CaseOutputs, removed: AbstractSet[OutputId]) -> CaseOutputs:
    """A case's outputs (as columns) without those removed."""
    case_id, outputs, systems, keys = found
    if removed.isdisjoint(outputs):
        return found
    kept = [i for i, o in enumerate(outputs) if o not in removed]
    return (
        case_id,
        [outputs[i] for i in kept],
        [systems[i] for i in kept],
        [keys[i] for i in kept],
    )


def full_status_row(ledger: Ledger, name: str) -> dict[str, Any]:
    """A family's status row worked out from the whole family: every pair listed."""
    from arena import family_state  # a tested family's (and a test's) only

    state = family_state.load(ledger, name)
    family, outputs = state.family, state.in_force
    settlement = state.settlement
    votes = voting.votes_in_force(ledger, family.name)
    voted = {_pair(v.left_output, v.right_output) for v in votes}
    return {
        "name": family.name,
        "kind": family.kind,
        "language": family.language,
        "systems": len({o.system_id for o in outputs}),
        "cases": len(state.cases_in_force),
        "outputs": len(outputs),
        "gate_failures": sum(state.fails_gate(o.output_id) for o in outputs),
        "votes": len(votes),
        "settled_pairs": len(settlement.settled),
        "pending_pairs": _pending(state, voted),
        "votes_to_settle": votes_to_settle(ledger, family, {o.system_id for o in outputs}),
        **(_tested_counts(ledger, state) if family.kind in TESTED_KINDS else {}),
    }


def _pending(state: family_state.FamilyState, voted: set[frozenset[str]]) -> int:
    """Pairs left for the rater; in a ``tests_then_votes`` family a vote on one pair of a
    task and system pair closes the others (as the scheduler does)."""
    system = {o.output_id: o.system_id for o in state.in_force}
    once = state.family.kind == "tests_then_votes"

    def unit(p: Any) -> object:
        a, b = p.output_a, p.output_b
        return (p.case_id, _pair(system[a], system[b])) if once else _pair(a, b)

    pending = state.settlement.pending
    closed = {unit(p) for p in pending if _pair(p.output_a, p.output_b) in voted}
    return len({unit(p) for p in pending} - closed)


def _tested_counts(ledger: Ledger, state: family_state.FamilyState) -> dict[str, Any]:
    """Outputs a round would count as failed for want of a test result, tasks a system
    did not answer (each a failed trial), and how the systems' agents differ where the
    family does not allow it (``one_agent``)."""
    agents = one_agent.family_agents(
        ledger, state.family.name, {o.system_id for o in state.in_force}
    )
    return {
        "untested_outputs": sum(o.test_result is None for o in state.in_force),
        "unanswered_tasks": len(state.stand_ins),
        "mixed_agents": agents.to_json() if agents.reported else None,
    }
