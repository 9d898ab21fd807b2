"""What `arena status` counts for a family.

A ``votes`` or ``graded`` family is counted from a few columns of its rows
(``ledger.tallies``) without a record per pair; a tested family is counted from the
whole family as it stands (``full_status_row``, which a test holds the quick count to).

Most cases of a votes family are *plain*: each system once, each text its own, and no
output that ever failed a gate or was removed. The settling rule reads nothing else of
a pair, so it settles plain cases of one size alike: they are counted as it settles one
case of their size, without reading their outputs, and so are their votes when it
leaves such a case wholly pending (a vote is on two outputs of one case: ``ledger.voting``
writes no other). Only the other cases are read output by output.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from arena.decisions import decisions
from arena.family_state import output_columns
from arena.ledger import Ledger, events, tallies, voting
from arena.pairs.adaptive import OrderModel
from arena.pairs.settling import TESTED_KINDS, Columns, Pairs, PendingPairs
from arena.pairs.votes_left import SETTLED, Gauge
from arena.rating import one_agent
from arena.records import VOTED_KINDS, CaseId, Family, OutputId, SystemId

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


@lru_cache(maxsize=64)
def _plain(n: int) -> tuple[int, int]:
    """(settled, pending) pairs of a plain case of ``n`` outputs, as the rule settles it."""
    ids = [str(i) for i in range(n)]
    systems = [SystemId(i) for i in ids]
    columns = Columns.of([OutputId(i) for i in ids], [CaseId("")] * n, systems, ids, ())
    pairs = Pairs.of("votes", columns)
    return pairs.settled_count(), len(pairs.pending())


def _counted_row(ledger: Ledger, family: Family) -> dict[str, Any]:
    name = family.name
    decided = decisions(events.family_events(ledger, name))
    retired, removed = decided.retired_cases, decided.removed_outputs
    marked = {
        *retired,
        *tallies.ever_failed(ledger, name).values(),
        *(CaseId(case_id) for _, case_id in voting.places(ledger, removed).values()),
    }
    plain: dict[CaseId, int] = {}
    others: list[CaseId] = []
    # Each list of systems split once (most cases share one): its systems if each once.
    once: dict[str, frozenset[SystemId]] = {}
    plain_lists: set[str] = set()
    for case_id, n, keys, joined in tallies.case_tallies(ledger, name):
        if joined not in once:
            listed = [SystemId(s) for s in joined.split(",")]  # a comma in an id: too many
            once[joined] = frozenset(listed) if len(set(listed)) == len(listed) else frozenset()
        if len(once[joined]) == n == keys and case_id not in marked and not _plain(n)[0]:
            plain[case_id] = n
            plain_lists.add(joined)
        else:
            others.append(case_id)
    read = tallies.case_outputs(ledger, name, others)
    outputs = output_columns(ledger, name, read, decided)
    votes, voted = tallies.voted_pairs(ledger, name)
    systems = set(outputs.systems).union(*(once[joined] for joined in plain_lists))
    settled = unvoted_pairs = 0  # graded: scored by graders, no pairs
    if family.kind == "votes":
        pairs = Pairs.of(family.kind, outputs)
        # The votes on the other cases (retired ones too) are found by their outputs; the
        # rest are on pending pairs of the plain cases.
        on_others = tallies.votes_on(ledger, name, [o.output_id for o in read]) if read else []
        settled = pairs.settled_count()
        pending = sum(_plain(n)[1] for n in plain.values())
        unvoted_pairs = pending - (voted - len(on_others)) + unvoted(pairs.pending(), on_others)
    return {
        "name": name,
        "kind": family.kind,
        "language": family.language,
        "systems": len(systems),
        "cases": tallies.case_count(ledger, name, retired),
        "outputs": sum(plain.values()) + len(outputs.ids),
        "gate_failures": int(np.count_nonzero(outputs.failing)),
        "votes": votes,
        "votes_by_rater": tallies.votes_by_actor(ledger, name),
        "settled_pairs": settled,
        "pending_pairs": unvoted_pairs,
        "votes_to_settle": votes_to_settle(ledger, family, systems, unvoted_pairs),
    }


def unvoted(pending: PendingPairs, voted: Collection[tuple[OutputId, OutputId]]) -> int:
    """How many of the ``pending`` pairs are none of the ``voted`` pairs of outputs (each
    pair once, either way round)."""
    number = dict(zip(pending.outputs, range(len(pending.outputs)), strict=True))
    width = len(number)
    a, b = (
        np.fromiter((number.get(o, -1) for o in side), np.int64, len(voted))
        for side in ([a for a, _ in voted], [b for _, b in voted])
    )
    known = (a >= 0) & (b >= 0)
    keys = np.minimum(a, b)[known] * width + np.maximum(a, b)[known]
    held = np.minimum(pending.a, pending.b) * width + np.maximum(pending.a, pending.b)
    return len(pending) - int(np.count_nonzero(np.isin(held, keys)))


def votes_to_settle(
    ledger: Ledger, family: Family, systems: AbstractSet[SystemId], pairs_left: int
) -> int | None:
    """The figure the window's status line shows when a rating session starts on the
    family as it stands (``OrderModel.outlook``, read by a new ``Gauge``; status keeps no
    session to hold it steady): the votes left until "the order is unlikely to change",
    two significant digits, never more than the ``pairs_left``; 0 once it would say so.
    None where the window says it in words or says nothing: a family without votes,
    before each two of its ``systems`` have a vote between them (status does not list
    the pairs, so a system pair whose every pair the gates settle keeps it None, where
    the window, which lists them, passes it by) or two votes a system pair, two systems
    that look alike to the rater, more votes than the pairs left, or no pair left."""
    if family.kind not in VOTED_KINDS:
        return None
    counted = tallies.system_votes(ledger, family.name)
    lefts, rights, choices, times = zip(*counted, strict=True) if counted else ((),) * 4
    model = OrderModel({*systems, *lefts, *rights})
    if counted:
        model.count_all(lefts, rights, choices, times)
    shown = Gauge().update(model.outlook(model.every_pair_voted(), pairs_left))
    return 0 if shown.kind == SETTLED else shown.votes


def full_status_row(ledger: Ledger, name: str) -> dict[str, Any]:
    """A family's status row worked out from the whole family: every pair listed."""
    from arena import family_state  # a tested family's (and a test's) only

    state = family_state.load(ledger, name)
    family, outputs = state.family, state.in_force
    settlement = state.settlement
    votes = voting.votes_in_force(ledger, family.name)
    voted = {_pair(v.left_output, v.right_output) for v in votes}
    pending = _pending(state, voted)
    return {
        "name": family.name,
        "kind": family.kind,
        "language": family.language,
        "systems": len({o.system_id for o in outputs}),
        "cases": len(state.cases_in_force),
        "outputs": len(outputs),
        "gate_failures": sum(state.fails_gate(o.output_id) for o in outputs),
        "votes": len(votes),
        "votes_by_rater": tallies.votes_by_actor(ledger, family.name),
        "settled_pairs": len(settlement.settled),
        "pending_pairs": pending,
        "votes_to_settle": votes_to_settle(ledger, family, {o.system_id for o in outputs}, pending),
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
