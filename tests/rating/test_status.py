"""`arena status` counted from a few columns agrees with the family worked out in full."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from arena import family_state
from arena.decisions import decisions
from arena.errors import BadInput
from arena.intake.outputs import FamilySettings, import_file
from arena.ledger import catalog, events, tallies, verdicts, voting
from arena.ledger.history import COLUMNS, family_history
from arena.pairs.adaptive import OrderModel
from arena.pairs.votes_left import ABOUT, ALIKE, BEYOND, SETTLED, TOO_EARLY, Gauge, VotesLeft
from arena.rating.corrections import overrule, remove_output, retire_case, retract
from arena.rating.session import RatingSession
from arena.rating.status import family_status
from arena.rating.status_count import counted_rows, full_status_row
from arena.records import (
    GATES,
    VOTED_KINDS,
    GateResult,
    Output,
    OutputId,
)
from tests.conftest import native_line
from tests.votes_helpers import show_and_vote

ENGLISH = (
    "The answer walks through the question step by step, naming each part plainly "
    "so that a reader new to the subject can follow it without trouble."
)
FRENCH = (
    "La réponse reprend la question pas à pas, en nommant chaque partie simplement "
    "afin qu'un lecteur novice puisse la suivre sans aucune difficulté."
)
PASS = tuple(GateResult(gate, True, "") for gate in GATES)
DIFF = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = {old}\n+a = {new}\n"


def _write(tmp_path, name, lines):
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _votes_family(ledger, tmp_path):
    """Family v: distinct, identical (also once normalised) and French (failing) answers,
    a system with two samples on a case."""
    lines = []
    for case in ("c1", "c2", "c3", "c4", "c5", "c6"):
        for label in ("alpha", "beta", "gamma", "delta"):
            text = f"{label} on {case}: {ENGLISH}"
            if case == "c2" and label in ("beta", "gamma"):
                text = f"Shared on c2: {ENGLISH}"
            if case == "c2" and label == "delta":
                text = f"Shared on c2: {ENGLISH}  \r\n"
            if (case, label) in (("c4", "gamma"), ("c5", "alpha")):
                text = FRENCH
            lines.append(native_line(case, label, text, family={"name": "v", "language": "en"}))
    lines.append(native_line("c3", "alpha", f"Another try on c3: {ENGLISH}", sample=1))
    import_file(ledger, _write(tmp_path, "v", lines), family="v", fmt="native")


def _tested_family(ledger, tmp_path):
    lines = []
    for case in ("t1", "t2"):
        for n, label in enumerate(("alpha", "beta", "gamma")):
            lines.append(
                native_line(
                    case,
                    label,
                    DIFF.format(old=0, new=n % 2),
                    is_diff=True,
                    test_result="passed" if label != "gamma" else "failed",
                )
            )
    import_file(
        ledger,
        _write(tmp_path, "t", lines),
        family="t",
        fmt="native",
        settings=FamilySettings(kind="tests_then_votes"),
    )


def _output(ledger, family, case, label):
    system = catalog.find_system(ledger, label, family)
    return next(
        o
        for o in catalog.outputs(ledger, family)
        if o.case_id == case and o.system_id == system.system_id
    )


def _rate(ledger, family, votes, *, undo_every=0):
    session = RatingSession(ledger, family, seed=3)
    for n in range(votes):
        if session.current() is None:
            break
        if n % 5 == 4:
            session.skip("unsure")
        else:
            session.vote(("left", "right", "tie", "both_bad")[n % 4])
        if undo_every and n % undo_every == undo_every - 1:
            session.undo()


def _counted(rows):
    """The counts of status rows, without how each family is listed (aspect, label)."""
    listed = ("aspect", "label", "archived", "rater", "rater_votes")
    return [{k: v for k, v in row.items() if k not in listed} for row in rows]


def _agree(ledger):
    names = [f.name for f in catalog.families(ledger)]
    assert _counted(family_status(ledger)) == [full_status_row(ledger, name) for name in names]
    for name in names:
        assert _counted(family_status(ledger, name)) == [full_status_row(ledger, name)]


def _graded_family(ledger, tmp_path):
    lines = [native_line(c, s, f"{s} on {c}: {ENGLISH}") for c in ("g1", "g2") for s in ("x", "y")]
    lines.append(native_line("g2", "z", FRENCH))
    path = _write(tmp_path, "g", lines)
    import_file(ledger, path, family="g", fmt="native", settings=FamilySettings(kind="graded"))


@pytest.fixture
def busy(ledger, tmp_path):
    _votes_family(ledger, tmp_path)
    _tested_family(ledger, tmp_path)
    _graded_family(ledger, tmp_path)
    return ledger


def test_status_counts_agree_through_votes_and_corrections(busy):
    _agree(busy)
    _rate(busy, "v", 25, undo_every=7)
    _rate(busy, "t", 3)
    _agree(busy)
    row = family_status(busy, "v")[0]
    assert row["gate_failures"] == 2 and row["settled_pairs"] > 0 and row["votes"] > 0
    # Votes on an output later removed still count as votes, not as pairs voted.
    voted = voting.votes_in_force(busy, "v")[0]
    remove_output(busy, voted.left_output, reason="wrong file")
    _agree(busy)
    retire_case(busy, "v", "c1", reason="ambiguous")
    _agree(busy)
    overrule(busy, _output(busy, "v", "c5", "alpha").output_id, "language", reason="fine")
    _agree(busy)
    after = family_status(busy, "v")[0]
    assert after["gate_failures"] == 1 and after["cases"] == 5


def _listed(ledger, name):
    """A votes family's figures worked out the plain way, the way the counting did before
    it read ids as columns and numbered them: every output and vote a record, every pair
    of a case listed, the votes as a set of pairs."""
    decided = decisions(events.family_events(ledger, name))
    outputs = [
        o
        for o in catalog.outputs(ledger, name)
        if o.case_id not in decided.retired_cases and o.output_id not in decided.removed_outputs
    ]
    results = verdicts.gate_results(ledger, name)
    failing = {
        o.output_id
        for o in outputs
        for r in results.get(o.output_id, ())
        if not r.passed and (o.output_id, r.gate) not in decided.overruled
    }
    keys = catalog.text_keys(ledger, name)
    settled, pending = 0, set()
    for a, b in combinations(outputs, 2):
        if a.case_id != b.case_id or a.system_id == b.system_id:
            continue
        if {a.output_id, b.output_id} & failing or keys[a.output_id] == keys[b.output_id]:
            settled += 1
        else:
            pending.add(frozenset((a.output_id, b.output_id)))
    votes = voting.votes_in_force(ledger, name)
    family = catalog.get_family(ledger, name)
    left = len(pending - {frozenset((v.left_output, v.right_output)) for v in votes})
    return {
        "name": name,
        "kind": family.kind,
        "language": family.language,
        "systems": len({o.system_id for o in outputs}),
        "cases": len({c.case_id for c in catalog.cases(ledger, name)} - decided.retired_cases),
        "outputs": len(outputs),
        "gate_failures": len(failing),
        "votes": len(votes),
        "votes_by_rater": dict(Counter(v.actor for v in votes)),
        "settled_pairs": settled,
        "pending_pairs": left,
        "votes_to_settle": _votes_to_settle(ledger, name, votes, left),
    }


def _votes_to_settle(ledger, name, votes, pairs_left):
    """What a new session's status line would show, of the scheduler's model of the first
    showings' votes read as records: its figure, 0 once settled, else None."""
    if catalog.get_family(ledger, name).kind not in VOTED_KINDS:
        return None
    system = {o.output_id: o.system_id for o in catalog.outputs(ledger, name)}
    model = OrderModel(system.values())
    for v in votes:
        if v.repeat_of is None:
            model.count(system[v.left_output], system[v.right_output], v.choice, +1)
    shown = Gauge().update(model.outlook(model.every_pair_voted(), pairs_left))
    return {SETTLED: 0, ABOUT: shown.votes}.get(shown.kind)


def _as_listed(ledger):
    (row,) = counted_rows(ledger, [catalog.get_family(ledger, "v")])
    assert row == _listed(ledger, "v") == full_status_row(ledger, "v")
    return row


def test_status_counts_as_every_pair_listed_through_every_correction(busy):
    """The counting (ids read as columns, outputs numbered, pairs of numbers) gives the
    figures of every pair listed, through votes of every kind and every correction."""
    _rate(busy, "v", 25, undo_every=7)  # skips, and votes retracted by undo
    session = voting.start_session(busy, "v", seed=2)
    alpha, beta = _output(busy, "v", "c1", "alpha"), _output(busy, "v", "c1", "beta")
    first = show_and_vote(busy, session, alpha, beta)
    show_and_vote(busy, session, beta, alpha, "right", repeat_of=first)  # sides swapped
    show_and_vote(busy, session, alpha, beta, "tie")  # the same pair once more
    samples = [
        o
        for o in catalog.outputs(busy, "v")
        if o.case_id == "c3" and o.system_id == alpha.system_id
    ]
    c4 = [_output(busy, "v", "c4", label) for label in ("gamma", "alpha")]
    for left, right in (
        (_output(busy, "v", "c2", "beta"), _output(busy, "v", "c2", "gamma")),  # one text
        tuple(samples),  # one system
        tuple(c4),  # gamma fails a gate
        (_output(busy, "v", "c5", "alpha"), _output(busy, "v", "c5", "beta")),  # overruled later
    ):
        show_and_vote(busy, session, left, right, "both_bad")
    undone = show_and_vote(busy, session, *(_output(busy, "v", "c6", s) for s in ("alpha", "beta")))
    voting.retract(busy, undone.vote_id)
    c6 = [_output(busy, "v", "c6", label) for label in ("beta", "gamma", "delta")]
    show_and_vote(busy, session, c6[0], c6[1], "skip")
    show_and_vote(busy, session, c6[0], c6[2])
    assert len(samples) == 2
    before = _as_listed(busy)
    removed = remove_output(busy, c6[2].output_id, reason="wrong file")
    _as_listed(busy)
    retire_case(busy, "v", "c2", reason="ambiguous")
    _as_listed(busy)
    overrule(busy, _output(busy, "v", "c5", "alpha").output_id, "language", reason="fine")
    _as_listed(busy)
    retract(busy, removed, reason="the right file after all")
    after = _as_listed(busy)
    assert before["votes"] == after["votes"] > 20 and after["cases"] == 5
    assert after["gate_failures"] == before["gate_failures"] - 1 == 1
    assert after["settled_pairs"] > 0 and after["pending_pairs"] > 0


def test_status_of_an_unknown_family_is_refused(busy):
    with pytest.raises(BadInput, match="no family named 'nope'"):
        family_status(busy, "nope")


def test_a_session_reads_the_pairs_and_history_the_whole_family_gives(busy):
    _rate(busy, "v", 12, undo_every=5)
    remove_output(busy, _output(busy, "v", "c6", "beta").output_id, reason="wrong file")
    state = family_state.load(busy, "v")
    rating = family_state.for_rating(busy, "v")
    assert {(p.case_id, p.output_a, p.output_b) for p in rating.pending} == {
        (p.case_id, p.output_a, p.output_b) for p in state.settlement.pending
    }
    assert rating.cases == state.cases
    assert rating.systems == {k: o.system_id for k, o in state.outputs.items()}
    assert [dict(zip(COLUMNS, row, strict=True)) for row in family_history(busy, "v")] == list(
        voting.history(busy, "v")
    )
    tested = family_state.for_rating(busy, "t")
    assert [(p.case_id, p.output_a, p.output_b) for p in tested.pending] == [
        (p.case_id, p.output_a, p.output_b) for p in family_state.load(busy, "t").settlement.pending
    ]


def test_the_verdicts_of_outputs_that_ever_failed_are_those_in_force(busy):
    outputs = {o.output_id for o in catalog.outputs(busy, "v")}
    everything = verdicts.gate_results(busy, "v")
    found = verdicts.ever_failed(busy, "v", outputs)
    assert len(found) == 2
    assert all(found[o] == everything[o] for o in found)


def test_status_counts_ids_that_hold_a_comma_as_any_other(busy):
    """A system id or an output id with a comma in it (none that Arena makes) is counted
    as any other."""
    beside = _output(busy, "v", "c3", "beta")
    (import_id,) = busy.db.execute(
        "SELECT import_id FROM outputs WHERE output_id = ?", [beside.output_id]
    ).fetchone()
    odd = Output(OutputId("odd,id"), "v", beside.case_id, "odd,system", 0, f"Odd: {ENGLISH}")
    with busy.atomic():
        busy.db["systems"].insert(
            {"system_id": "odd,system", "label": "odd", "descriptor": "{}", "created_at": "-"}
        )
        catalog.add_output(busy, odd, import_id)
        verdicts.record_gate_results(busy, [(odd.output_id, PASS, None)])
    session = voting.start_session(busy, "v", seed=1)
    for left, right in ((odd, _output(busy, "v", "c3", "gamma")), (beside, odd)):
        show_and_vote(busy, session, left, right)
    voted = tallies.votes_on(busy, "v", [beside.output_id, "odd,id"])
    assert voted == [tuple(sorted((beside.output_id, "odd,id")))]
    _agree(busy)


def test_a_tests_then_votes_family_counts_one_pair_per_task_and_system_pair(ledger, tmp_path):
    lines = [
        native_line(
            case,
            label,
            DIFF.format(old=0, new=2 * n + sample),
            is_diff=True,
            test_result="passed",
            sample=sample,
        )
        for case in ("t1", "t2")
        for n, label in enumerate(("alpha", "beta"))
        for sample in (0, 1)
    ]
    import_file(
        ledger,
        _write(tmp_path, "two", lines),
        family="two",
        fmt="native",
        settings=FamilySettings(kind="tests_then_votes"),
    )
    session = RatingSession(ledger, "two", seed=1)
    # Four pairs of two passing solutions on each task; one vote is asked per task.
    assert session.progress() == (0, 2)
    assert family_status(ledger, "two")[0]["pending_pairs"] == 2
    session.vote("left")
    assert session.progress() == (1, 2)
    assert family_status(ledger, "two")[0]["pending_pairs"] == 1
    session.vote("right")
    assert session.current() is None
    assert family_status(ledger, "two")[0]["pending_pairs"] == 0


def test_status_reads_the_votes_and_failures_from_their_indexes(busy):
    """The votes are counted from their tallies (migration 0028), the votes on a few
    outputs from the votes by pair in order (0017) and the failing verdicts from theirs: no
    vote row, and no output of the family, is read one by one."""
    _rate(busy, "v", 12)
    outputs = [o.output_id for o in catalog.outputs(busy, "v")]
    run: list[str] = []
    busy.conn.set_trace_callback(run.append)
    try:
        votes, _ = tallies.voted_pairs(busy, "v")
        tallies.votes_by_actor(busy, "v")
        tallies.system_votes(busy, "v")
        tallies.votes_on(busy, "v", outputs)
        tallies.ever_failed(busy, "v")
    finally:
        busy.conn.set_trace_callback(None)
    plans = {
        sql: " | ".join(row[-1] for row in busy.conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        for sql in run
        if "SELECT" in sql
    }
    assert len(plans) == 6 and votes == len(voting.votes_in_force(busy, "v")) > 0
    for plan in plans.values():
        assert "SCAN votes" not in plan and "SCAN output_keys" not in plan, plan
    *counted, on, failed = plans.values()
    for plan in counted:
        assert "SEARCH" in plan and "_tallies" in plan and "(family=?)" in plan, plan
    assert "USING INDEX votes_by_pair_in_order (family=? AND <expr>=?)" in on
    assert failed.startswith("SCAN g USING INDEX gate_failures")


def test_status_tells_about_how_many_votes_until_the_order_settles(ledger, tmp_path):
    systems = ("alpha", "beta", "gamma", "delta")
    lines = [
        native_line(f"c{c:02d}", s, f"{s} on c{c}: {ENGLISH}") for c in range(40) for s in systems
    ]
    import_file(ledger, _write(tmp_path, "o", lines), family="o", fmt="native")
    session = RatingSession(ledger, "o", seed=1, repeat_share=0.0)
    rank = {catalog.find_system(ledger, s, "o").system_id: r for r, s in enumerate(systems)}

    def vote(n):
        for _ in range(n):
            view = session.current()
            # Mostly the better system (earlier in ``systems``), now and then the other.
            better = rank[view.left.system_id] < rank[view.right.system_id]
            session.vote(
                "left" if better != (session.scheduler.index.voted_pairs % 7 == 0) else "right"
            )
        return family_status(ledger, "o")[0]["votes_to_settle"]

    def fresh():  # what a session opened now would show first
        return Gauge().update(session.scheduler.votes_left())

    assert family_status(ledger, "o")[0]["votes_to_settle"] is None
    assert vote(5) is None  # one system pair has no vote yet
    assert fresh().kind == TOO_EARLY
    assert vote(6) is None and fresh().kind == TOO_EARLY  # under two votes a system pair
    # The model's guess is more votes than the pairs left: no figure, however rounded.
    assert vote(1) is None and fresh() == VotesLeft(BEYOND, 240 - 12)
    assert session.scheduler.votes_to_settle() > 240 - 12
    first = vote(10)
    pairs_left = 240 - 22
    assert fresh() == VotesLeft(ABOUT, pairs_left, votes=first)
    assert 0 < first <= pairs_left and first == float(f"{first:.2g}")
    guess = session.scheduler.votes_to_settle()
    assert abs(first - guess) <= 0.05 * guess  # the model's guess, rounded
    later = vote(10)
    assert later == fresh().votes and later < first
    while not session.order_settled():
        left = vote(1)
        assert left is not None and left <= session.progress()[1] - session.progress()[0]
    assert vote(0) == 0


def test_the_session_holds_the_votes_left_from_vote_to_vote(ledger, tmp_path):
    systems = ("alpha", "beta", "gamma")
    lines = [
        native_line(f"c{c:02d}", s, f"{s} on c{c}: {ENGLISH}") for c in range(30) for s in systems
    ]
    import_file(ledger, _write(tmp_path, "o", lines), family="o", fmt="native")
    session = RatingSession(ledger, "o", seed=2, repeat_share=0.0)
    shown = []
    for _ in range(40):
        session.vote("tie")
        shown.append(session.votes_left())
        assert session.votes_left() is shown[-1]  # asked again with no vote between
    assert shown[0].kind == TOO_EARLY and shown[-1].kind == ALIKE
    gauge = session.gauge
    session.refresh()  # the history read again: the gauge is the session's, kept
    assert session.gauge is gauge and session.votes_left() == shown[-1]
