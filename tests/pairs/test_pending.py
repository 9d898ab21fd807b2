"""Pending pairs as numbers, and pairs counted without a record each, agree with ``settle``."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.pairs.pair_index import PairIndex, Tally
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy
from arena.pairs.settling import Columns, Pairs, PendingPair, PendingPairs, settle
from arena.rating.status_count import unvoted
from arena.records import (
    GATES,
    CaseId,
    Family,
    GateResult,
    Output,
    OutputId,
    OutputPlace,
    PairShowings,
    SystemId,
)
from arena.texts import text_key
from tests.pairs.reference_scheduler import Shown

PASS = tuple(GateResult(gate, True, "") for gate in GATES)
FAIL = tuple(GateResult(gate, gate != "empty", "") for gate in GATES)
# Texts that are the same once normalised, and some that are not.
TEXTS = ("same", "same  ", "same\n", "same\r\n", " same", "other", "other\t\nline", "other\nline")


@st.composite
def families(draw):
    """Outputs on a few cases, some systems with two samples, some failing a gate."""
    outputs, failing = [], set()
    for c in range(draw(st.integers(1, 4))):
        for s in range(draw(st.integers(1, 4))):
            for sample in range(draw(st.integers(1, 2))):
                output = Output(
                    OutputId(f"o{c}-{s}-{sample}"),
                    "fam",
                    CaseId(f"c{c}"),
                    SystemId(f"s{s}"),
                    sample,
                    draw(st.sampled_from(TEXTS)),
                )
                outputs.append(output)
                if draw(st.integers(0, 5)) == 0:
                    failing.add(output.output_id)
    return draw(st.permutations(outputs)), failing


def _places(outputs):
    """The outputs as a rating session reads them (``catalog.output_places``)."""
    return [OutputPlace(o.output_id, o.case_id, o.system_id, text_key(o.text)) for o in outputs]


def votes_pending(places, failing) -> PendingPairs:
    return Pairs.of("votes", Columns.of_places(places, failing)).pending()


def _settled(outputs, failing):
    results = {o.output_id: FAIL if o.output_id in failing else PASS for o in outputs}
    return settle(Family("fam", kind="votes"), outputs, results)


@settings(max_examples=300, deadline=None)
@given(family=families())
def test_votes_pending_are_the_pairs_settle_leaves(family):
    outputs, failing = family
    expected = {(p.case_id, p.output_a, p.output_b) for p in _settled(outputs, failing).pending}
    pending = votes_pending(_places(outputs), failing)
    found = [(c.case_id, c.output_a, c.output_b) for c in pending]
    assert len(found) == len(set(found)) and set(found) == expected
    assert [c.case_id for c in pending] == sorted(c.case_id for c in pending)


@settings(max_examples=300, deadline=None)
@given(family=families(), data=st.data())
def test_counted_pairs_are_the_pairs_settle_lists(family, data):
    outputs, failing = family
    settlement = _settled(outputs, failing)
    # Votes on two outputs of a case: pending pairs, settled ones, same system, repeats.
    drawn = data.draw(
        st.lists(st.tuples(st.sampled_from(outputs), st.sampled_from(outputs)), max_size=20)
    )
    voted = [(a.output_id, b.output_id) for a, b in drawn if a != b and a.case_id == b.case_id]
    voted_keys = {frozenset(v) for v in voted}
    pairs = Pairs.of("votes", Columns.of_places(_places(outputs), failing))
    assert pairs.settled_count() == len(settlement.settled)
    assert unvoted(pairs.pending(), voted) == sum(
        frozenset((p.output_a, p.output_b)) not in voted_keys for p in settlement.pending
    )


def test_pending_pairs_as_numbers_keep_their_order():
    pairs = [
        PendingPair("c2", "x", "y", "s1", "s2"),
        PendingPair("c1", "y", "z", "s2", "s3"),
        PendingPair("c2", "z", "x", "s3", "s1"),
    ]
    numbered = PendingPairs.of(pairs)
    assert list(numbered) == pairs and len(numbered) == 3
    assert list(PendingPairs.of([])) == []


@settings(max_examples=100, deadline=None)
@given(family=families(), seed=st.integers(0, 2**31 - 1))
def test_an_index_of_numbers_chooses_as_one_of_records(family, seed):
    outputs, failing = family
    systems = {o.output_id: o.system_id for o in outputs}
    candidates = list(_settled(outputs, failing).pending)
    numbered = LiveScheduler(votes_pending(_places(outputs), failing), systems, [], seed=seed)
    listed = LiveScheduler(candidates, systems, [], seed=seed)
    assert numbered.next() == listed.next()
    assert numbered.progress() == listed.progress() == (0, len(candidates))


def test_an_index_counts_votes_on_pairs_it_does_not_hold():
    systems = {"a": "s1", "b": "s2", "c": "s3"}
    pairs = [PendingPair("c", a, b, systems[a], systems[b]) for a, b in combinations("abc", 2)]
    one = np.ones(1, dtype=np.int64)
    counted = PairShowings(("b", "c"), ("c", "c"), one * 0, one, one, one * 0)  # b-c voted
    index = PairIndex(PendingPairs.of(pairs[:2]), counted, {("s2", "s3"): 1})
    assert index.progress() == (0, 2)
    assert index.pair_votes[("s2", "s3")] == 1 and index.case_votes["c"] == 1


@settings(max_examples=200, deadline=None)
@given(
    family=families(),
    choices=st.lists(st.sampled_from(["left", "tie", "skip", "skip", None]), max_size=40),
    seed=st.integers(0, 2**31 - 1),
)
def test_a_scheduler_read_from_its_history_counts_as_one_told_vote_by_vote(family, choices, seed):
    """Skips and votes on repeats among them: a restart reads the same tallies."""
    outputs, failing = family
    systems = {o.output_id: o.system_id for o in outputs}
    close = RepeatPolicy(share=0.6, gap=3, minutes=0)
    live = LiveScheduler(
        votes_pending(_places(outputs), failing), systems, [], seed=seed, repeats=close
    )
    history: list[Shown] = []
    for n, choice in enumerate(choices):
        planned = live.next()
        if planned is None:
            break
        pid = planned.resume
        if pid is None:
            pid = f"p{len(history)}"
            shown = (planned.case_id, planned.left_output, planned.right_output, planned.repeat_of)
            history.append(Shown(pid, *shown, None, None))
            live.shown(pid, *shown)
        if choice is not None:  # None: shown, then the window closed
            at = int(pid[1:])
            history[at] = history[at]._replace(vote_id=f"v{n}", choice=choice)
            live.voted(pid, f"v{n}", choice)
    restarted = LiveScheduler(
        votes_pending(_places(outputs), failing), systems, history, seed=seed, repeats=close
    )
    for name in ("in_pair", "overall", "repeated", "repeats"):
        assert getattr(restarted, name) == getattr(live, name), name
    assert (restarted.model.wins == live.model.wins).all()
    assert restarted.model.votes == live.model.votes
    for name in ("voted", "skips", "pair_votes", "case_votes", "open_count", "voted_pairs"):
        found, kept = getattr(restarted.index, name), getattr(live.index, name)
        if isinstance(found, Counter):
            found, kept = +found, +kept  # zero counts left by undone votes do not count
        if isinstance(found, Tally):
            found, kept = found.with_votes(), kept.with_votes()
        assert found == kept, name
    assert restarted.next() == live.next()
