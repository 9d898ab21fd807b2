"""Pairs where the judge is unsure, first (arena.pairs.unsure): the case within a system
pair is drawn with the probability recorded, unsure items more often; sides and repeats
as before; without unsure items, the same choices as before."""

from __future__ import annotations

from collections import Counter

from arena.pairs.scheduling import LiveScheduler, RepeatPolicy
from arena.pairs.settling import PendingPair
from arena.pairs.unsure import BOOST, unsure_items
from arena.records import CaseId, OutputId, PresentationId, SystemId, VoteId

CASES = 20
SYSTEMS = ("A", "B", "C")
UNSURE = {(SystemId("A"), SystemId("B")): frozenset(CaseId(f"c{i:02d}") for i in range(5))}


def _family(systems=SYSTEMS, cases=CASES):
    pending, owner = [], {}
    for i in range(cases):
        for s in systems:
            owner[OutputId(f"{s}{i:02d}")] = SystemId(s)
        for x, a in enumerate(systems):
            for b in systems[x + 1 :]:
                pending.append(
                    PendingPair(
                        CaseId(f"c{i:02d}"),
                        OutputId(f"{a}{i:02d}"),
                        OutputId(f"{b}{i:02d}"),
                        SystemId(a),
                        SystemId(b),
                    )
                )
    return pending, owner


def test_unsure_items_are_orders_that_disagree_or_a_tie():
    verdicts = [
        ("j", "c1", "A", "B", "left"),  # both orders agree: A
        ("j", "c1", "B", "A", "right"),
        ("j", "c2", "A", "B", "left"),  # the orders disagree
        ("j", "c2", "B", "A", "left"),
        ("j", "c3", "B", "A", "tie"),  # one order only: a tie
        ("j", "c4", "A", "B", "right"),  # one order only, decisive
    ]
    assert unsure_items(verdicts) == {("A", "B"): frozenset({"c2", "c3"})}


def test_the_recorded_probabilities_are_those_drawn_from():
    pending, owner = _family(("A", "B"))
    drawn: Counter[str] = Counter()
    recorded: dict[str, tuple[float, int, bool]] = {}
    draws = 6000
    for seed in range(draws):
        planned = LiveScheduler(pending, owner, [], seed=seed, unsure=UNSURE).next()
        assert planned is not None
        drawn[planned.case_id] += 1
        recorded[planned.case_id] = (planned.probability, planned.candidates, planned.unsure)
    total = 5 * BOOST + (CASES - 5)
    for i in range(CASES):
        case = f"c{i:02d}"
        unsure = i < 5
        pi = (BOOST if unsure else 1.0) / total
        assert recorded[case] == (pi, CASES, unsure)
        # Within four standard errors of the recorded probability.
        sd = (pi * (1 - pi) / draws) ** 0.5
        assert abs(drawn[case] / draws - pi) < 4 * sd, case
    # Unsure items come first more often: 4 times as likely each as a sure one.
    share = sum(drawn[f"c{i:02d}"] for i in range(5)) / draws
    assert share > 0.5 > 5 / CASES


def _session(unsure, seed=7, votes=40):
    """A sitting voted through: (case, left, right, repeat_of) shown, and the scheduler."""
    pending, owner = _family()
    scheduler = LiveScheduler(
        pending,
        owner,
        [],
        seed=seed,
        repeats=RepeatPolicy(share=0.3, gap=3, minutes=0.0),
        session=None,
        clock=lambda: "2026-01-01T00:00:00Z",
        unsure=unsure,
    )
    shown = []
    for n in range(votes):
        planned = scheduler.next()
        if planned is None:
            break
        pid = PresentationId(f"p{n}")
        scheduler.shown(
            pid, planned.case_id, planned.left_output, planned.right_output, planned.repeat_of
        )
        if planned.repeat_of is not None:
            assert (planned.probability, planned.candidates) == (1.0, 1)
        shown.append(
            (planned.case_id, planned.left_output, planned.right_output, planned.repeat_of)
        )
        scheduler.voted(pid, VoteId(f"v{n}"), "left", voted_at="2025-01-01T00:00:00Z")
    return shown, scheduler


def test_without_unsure_items_the_choices_are_the_same_as_before():
    before, _ = _session(None)
    assert _session({})[0] == before
    assert _session({("A", "B"): frozenset()})[0] == before


def test_sides_stay_balanced_and_repeats_come_as_before():
    plain, plain_scheduler = _session(None)
    first, scheduler = _session(UNSURE)
    assert first != plain  # the cases drawn differ
    for found in (plain_scheduler, scheduler):
        for pair in [("A", "B"), ("A", "C"), ("B", "C")]:
            a, b = found.in_pair[(pair, pair[0])], found.in_pair[(pair, pair[1])]
            assert abs(a - b) <= 1, pair
    # Repeats are chosen by the vote's id: as many come back, sides swapped.
    assert sum(r is not None for *_, r in first) == sum(r is not None for *_, r in plain) > 0
