"""Settling: which pairs are decided without a vote, by which rule, with what weight."""

from __future__ import annotations

import math
import re
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.pairs.settling import (
    RULES,
    PendingPair,
    SettledComparison,
    normalise_diff,
    settle,
    stand_ins,
)
from arena.records import GATES, CaseId, Family, GateResult, Output, OutputId, SystemId
from arena.texts import normalise_text
from tests.pairs import reference_settling

PASS = tuple(GateResult(gate, True, "") for gate in GATES)


def _failing(gate: str) -> tuple[GateResult, ...]:
    return tuple(GateResult(name, name != gate, "") for name in GATES)


def _output(system: str, text: str, *, case: str = "c1", sample: int = 0, **fields) -> Output:
    return Output(
        output_id=OutputId(f"{case}/{system}/{sample}"),
        family="fam",
        case_id=CaseId(case),
        system_id=SystemId(system),
        sample=sample,
        text=text,
        **fields,
    )


def _settle(kind: str, outputs: list[Output], gates: dict | None = None, **options):
    results = {output.output_id: PASS for output in outputs}
    results.update(gates or {})
    return settle(Family("fam", kind=kind), outputs, results, **options)


def _only(settlement) -> SettledComparison:
    assert len(settlement.settled) == 1 and not settlement.pending
    return settlement.settled[0]


def test_output_passing_all_gates_beats_one_that_fails_a_gate():
    a, b = _output("A", "fine"), _output("B", "")
    settled = _only(_settle("votes", [a, b], {b.output_id: _failing("empty")}))
    assert (settled.y, settled.rule, settled.weight) == (1.0, "gate_loses", 1.0)
    settled = _only(_settle("votes", [a, b], {a.output_id: _failing("script")}))
    assert (settled.y, settled.rule) == (0.0, "gate_loses")


def test_two_gated_outputs_tie_even_on_different_gates():
    a, b = _output("A", "x"), _output("B", "y")
    gates = {a.output_id: _failing("length"), b.output_id: _failing("language")}
    settled = _only(_settle("votes", [a, b], gates))
    assert (settled.y, settled.rule) == (0.5, "both_gated")


def test_outputs_identical_up_to_line_endings_and_trailing_spaces_tie():
    a, b = _output("A", "one  \r\ntwo\r\n\r\n"), _output("B", "one\ntwo")
    assert _only(_settle("votes", [a, b])).rule == "identical"


def test_different_outputs_in_a_votes_family_go_to_the_rater():
    a, b = _output("A", "one"), _output("B", "two")
    settlement = _settle("votes", [a, b])
    assert settlement.settled == ()
    assert settlement.pending == (
        PendingPair(CaseId("c1"), a.output_id, b.output_id, SystemId("A"), SystemId("B")),
    )


def test_leading_whitespace_and_inner_spacing_still_differ():
    a, b = _output("A", " indented"), _output("B", "indented")
    assert _settle("votes", [a, b]).pending


@pytest.mark.parametrize("kind", ["tests", "tests_then_votes"])
@pytest.mark.parametrize("loser", ["failed", "errored", None])
def test_passing_tests_beat_failing_errored_or_missing_results(kind, loser):
    a = _output("A", "+fix", is_diff=True, test_result="passed")
    b = _output("B", "+other", is_diff=True, test_result=loser)
    settled = _only(_settle(kind, [a, b]))
    assert (settled.y, settled.rule) == (1.0, "tests_separate")


@pytest.mark.parametrize("kind", ["tests", "tests_then_votes"])
def test_two_failing_solutions_tie(kind):
    a = _output("A", "+x", is_diff=True, test_result="failed")
    b = _output("B", "+y", is_diff=True, test_result="errored")
    assert _only(_settle(kind, [a, b])).rule == "both_failed_tests"


@pytest.mark.parametrize("kind", ["tests", "tests_then_votes"])
def test_a_task_not_answered_is_a_failed_trial_that_ties_with_every_failed_one(kind):
    passing = _output("A", "+fix", is_diff=True, test_result="passed")
    failing = _output("B", "+other", is_diff=True, test_result="failed")
    empty = _output("C", "", is_diff=True, test_result="errored")  # and fails the Empty gate
    elsewhere = _output("D", "+d", case="c2", is_diff=True, test_result="failed")
    (missing,) = stand_ins("fam", [passing, failing, empty, elsewhere], [CaseId("c1")])
    settlement = _settle(
        kind,
        [passing, failing, empty, elsewhere],
        {empty.output_id: _failing("empty")},
        unanswered=[missing],
    )
    found = {(c.system_a, c.system_b): (c.rule, c.y) for c in settlement.settled}
    assert found[("A", "D")] == ("no_output", 1.0)
    assert found[("B", "D")] == found[("C", "D")] == ("no_output", 0.5)
    # Between two answers the gates still settle what the tests leave open.
    assert found[("B", "C")] == ("gate_loses", 1.0)


@pytest.mark.parametrize("kind", ["tests", "tests_then_votes"])
def test_tests_come_before_gates(kind):
    # A patch that passed its hidden tests beats one that failed them, whatever the gates say.
    a = _output("A", "+x", is_diff=True, test_result="passed", finish_reason="length")
    b = _output("B", "+y", is_diff=True, test_result="failed")
    settled = _only(_settle(kind, [a, b], {a.output_id: _failing("language")}))
    assert (settled.y, settled.rule) == (1.0, "tests_separate")


@pytest.mark.parametrize("result", ["passed", "failed"])
def test_gates_settle_what_the_tests_leave_undecided(result):
    a = _output("A", "+x", is_diff=True, test_result=result)
    b = _output("B", "+y", is_diff=True, test_result=result)
    settled = _only(_settle("tests_then_votes", [a, b], {a.output_id: _failing("truncated")}))
    assert (settled.y, settled.rule) == (0.0, "gate_loses")


def test_an_overruled_verdict_is_set_aside_and_marked():
    a, b = _output("A", "Bonjour à tous"), _output("B", "")
    gates = {a.output_id: _failing("language"), b.output_id: _failing("empty")}
    assert _only(_settle("votes", [a, b], gates)).rule == "both_gated"
    settled = _only(_settle("votes", [a, b], gates, overruled={(a.output_id, "language")}))
    assert (settled.y, settled.rule, settled.overruled) == (1.0, "gate_loses", True)
    # Overruling another gate than the failing one changes nothing.
    settled = _only(_settle("votes", [a, b], gates, overruled={(a.output_id, "length")}))
    assert (settled.rule, settled.overruled) == ("both_gated", False)
    # With nothing left against it, the pair goes to the rater.
    gates[b.output_id] = PASS
    assert _settle("votes", [a, b], gates, overruled={(a.output_id, "language")}).pending


@given(
    family=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 2),
            st.integers(0, 2),
            st.sets(st.sampled_from(GATES), max_size=2),
            st.sets(st.sampled_from(GATES), max_size=2),
        ),
        min_size=2,
        max_size=12,
    ),
    pending=st.booleans(),
)
def test_failing_outputs_given_by_the_caller_settle_as_worked_out(family, pending):
    outputs, gates, overruled = [], {}, set()
    for index, (system, case, text, failed, aside) in enumerate(family):
        output = _output(f"S{system}", f"text {text}", case=f"c{case}", sample=index)
        outputs.append(output)
        gates[output.output_id] = tuple(GateResult(g, g not in failed, "") for g in GATES)
        overruled |= {(output.output_id, gate) for gate in aside}
    failing = {
        o.output_id
        for o in outputs
        if any(not r.passed and (o.output_id, r.gate) not in overruled for r in gates[o.output_id])
    }
    worked_out = _settle("votes", outputs, gates, overruled=overruled, pending=pending)
    given_ = _settle("votes", outputs, gates, overruled=overruled, pending=pending, failing=failing)
    assert given_ == worked_out


_RESULTS = st.sampled_from(["passed", "failed", "errored", None])


@given(
    family=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 2),
            st.integers(0, 4),
            _RESULTS,
            st.sets(st.sampled_from(GATES), max_size=2),
        ),
        min_size=2,
        max_size=14,
    )
)
def test_a_passing_patch_never_loses_a_settled_pair_to_a_failing_patch(family):
    outputs, gates = [], {}
    for index, (system, case, text, result, failing) in enumerate(family):
        output = _output(
            f"S{system}",
            f"+line {text}\n",
            case=f"c{case}",
            sample=index,
            is_diff=True,
            test_result=result,
        )
        outputs.append(output)
        gates[output.output_id] = tuple(GateResult(g, g not in failing, "") for g in GATES)
    by_id = {o.output_id: o for o in outputs}
    for comparison in _settle("tests_then_votes", outputs, gates).settled:
        a, b = by_id[comparison.output_a], by_id[comparison.output_b]
        if a.test_result == "passed" and b.test_result != "passed":
            assert comparison.y == 1.0
        if b.test_result == "passed" and a.test_result != "passed":
            assert comparison.y == 0.0


def test_passing_diffs_that_differ_only_in_history_tie():
    body = (
        "diff --git a/m.py b/m.py\n{index}--- a/m.py{stamp}\n+++ b/m.py{stamp}\n"
        "@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    )
    mail = (
        "From 1a2b3c Mon Sep 17 00:00:00 2001\nFrom: Someone\nSubject: [PATCH] fix\n"
        "---\n m.py | 2 +-\n\n"
    )
    a = _output(
        "A",
        body.format(index="index 111..222 100644\n", stamp=""),
        is_diff=True,
        test_result="passed",
    )
    b = _output(
        "B",
        mail + body.format(index="index 333..444 100644\n", stamp="\t2024-01-01"),
        is_diff=True,
        test_result="passed",
    )
    assert _only(_settle("tests_then_votes", [a, b])).rule == "identical_diffs"
    assert normalise_diff(a.text) == normalise_diff(b.text)


def test_only_two_passing_different_diffs_reach_the_rater():
    a = _output("A", "+x = 2\n", is_diff=True, test_result="passed")
    b = _output("B", "+x = 3\n", is_diff=True, test_result="passed")
    settlement = _settle("tests_then_votes", [a, b])
    assert settlement.settled == () and len(settlement.pending) == 1


def test_two_passing_solutions_tie_in_a_tests_family():
    a = _output("A", "+x = 2\n", is_diff=True, test_result="passed")
    b = _output("B", "+x = 3\n", is_diff=True, test_result="passed")
    assert _only(_settle("tests", [a, b])).rule == "both_passed_tests"


def test_graded_families_have_no_pairs():
    assert _settle("graded", [_output("A", "1"), _output("B", "2")]) == settle(
        Family("fam", kind="graded"), [], {}
    )
    assert _settle("graded", [_output("A", "1"), _output("B", "2")]).pending == ()


def test_pairs_are_only_between_different_systems_on_the_same_case():
    outputs = [
        _output("A", "a1", case="c1"),
        _output("A", "a2", case="c1", sample=1),
        _output("B", "b1", case="c2"),
    ]
    settlement = _settle("votes", outputs)
    assert settlement.settled == () and settlement.pending == ()


def test_retired_cases_and_removed_outputs_are_left_out():
    a, b, c = _output("A", "1"), _output("B", "2"), _output("C", "3")
    other = [_output("A", "x", case="c2"), _output("B", "y", case="c2")]
    settlement = _settle(
        "votes", [a, b, c, *other], retired_cases={CaseId("c2")}, removed_outputs={c.output_id}
    )
    assert [(p.system_a, p.system_b) for p in settlement.pending] == [("A", "B")]


def test_result_does_not_depend_on_input_order_and_a_sorts_first():
    a, b = (
        _output(
            "B",
            "",
        ),
        _output("A", "text"),
    )
    settled = _only(_settle("votes", [a, b], {a.output_id: _failing("empty")}))
    assert (settled.system_a, settled.system_b, settled.y) == ("A", "B", 1.0)


def _weights_by_system_pair(settlement):
    totals: dict[tuple, float] = defaultdict(float)
    for comparison in settlement.settled:
        totals[(comparison.case_id, comparison.system_a, comparison.system_b)] += comparison.weight
    return totals


@pytest.mark.parametrize(("k_a", "k_b"), [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (3, 1)])
def test_settled_weights_are_one_over_the_sample_product_and_sum_to_one(k_a, k_b):
    outputs = [_output("A", f"a{i}", sample=i) for i in range(k_a)]
    outputs += [_output("B", "", sample=i) for i in range(k_b)]
    gates = {o.output_id: _failing("empty") for o in outputs if o.system_id == "B"}
    settlement = _settle("votes", outputs, gates)
    assert len(settlement.settled) == k_a * k_b
    assert all(math.isclose(c.weight, 1 / (k_a * k_b)) for c in settlement.settled)
    assert math.isclose(_weights_by_system_pair(settlement)[("c1", "A", "B")], 1.0)


def test_partly_settled_case_weighs_less_than_one():
    outputs = [
        _output("A", "same", sample=0),
        _output("A", "other", sample=1),
        _output("B", "same"),
    ]
    settlement = _settle("votes", outputs)
    assert [c.rule for c in settlement.settled] == ["identical"]
    assert settlement.settled[0].weight == 0.5
    assert len(settlement.pending) == 1


@given(
    samples=st.lists(st.integers(min_value=1, max_value=3), min_size=2, max_size=4),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_every_pairing_is_settled_or_pending_and_weights_stay_within_one(samples, seed):
    outputs = []
    gates = {}
    for s, k in enumerate(samples):
        for i in range(k):
            output = _output(
                f"S{s}",
                f"text {(seed * (s + 3) + i) % 4}",
                sample=i,
                test_result=("passed", "failed", None)[(seed + s + i) % 3],
            )
            outputs.append(output)
            gates[output.output_id] = _failing("length") if (seed >> (s + i)) % 5 == 0 else PASS
    settlement = _settle("tests_then_votes", outputs, gates)
    pairings = sum(
        samples[i] * samples[j] for i in range(len(samples)) for j in range(i + 1, len(samples))
    )
    assert len(settlement.settled) + len(settlement.pending) == pairings
    assert all(total <= 1 + 1e-12 for total in _weights_by_system_pair(settlement).values())
    assert {c.rule for c in settlement.settled} <= set(RULES)
    assert all(c.y in (0.0, 0.5, 1.0) for c in settlement.settled)


def test_missing_gate_results_are_an_error():
    a, b = _output("A", "1"), _output("B", "2")
    with pytest.raises(ValueError, match="gate_results"):
        settle(Family("fam"), [a, b], {a.output_id: PASS})


def test_outputs_of_another_family_are_an_error():
    stray = Output(OutputId("o"), "elsewhere", CaseId("c1"), SystemId("A"), 0, "x")
    with pytest.raises(ValueError, match="outputs"):
        settle(Family("fam"), [stray], {stray.output_id: PASS})


_TRAILING_SPACE = re.compile(r"[ \t\f\v]+$", re.MULTILINE)


@given(st.text(alphabet=" \t\f\v\r\nab\u3000\xa0\x1c\x85\u2028", max_size=30) | st.text())
def test_normalising_drops_exactly_line_endings_and_trailing_space(text):
    # The definition, as a regular expression: slower, so settling does not use it.
    by_definition = _TRAILING_SPACE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    assert normalise_text(text) == by_definition.rstrip()


def test_a_round_settles_the_same_pairs_without_listing_the_pending_ones():
    outputs = [
        _output(s, text, sample=i, case=case, test_result="passed")
        for case in ("c1", "c2", "c3")
        for s in ("A", "B", "C")
        for i, text in enumerate(["same", f"{s} {case}"])
    ]
    gates = {outputs[0].output_id: _failing("empty"), outputs[7].output_id: _failing("length")}
    for kind in ("votes", "tests_then_votes"):
        full = _settle(kind, outputs, gates)
        only = _settle(kind, outputs, gates, pending=False)
        assert only.settled == full.settled and only.pending == () and full.pending


# Texts that are the same once normalised or as changes, and some that are not.
_TEXTS = (
    "same",
    "same  \r\n",
    "other",
    "",
    "diff --git a/m.py b/m.py\nindex 1..2\n--- a/m.py\n+++ b/m.py\n+x = 1\n",
    "diff --git a/m.py b/m.py\nindex 3..4\n--- a/m.py\t2024\n+++ b/m.py\n+x = 1\n",
    "--- a/m.py\n+++ b/m.py\n+x = 2\n",
)


@st.composite
def _families(draw):
    """A family of any kind: systems missing on some cases, some with two samples, tests
    results, failing gates, overruled verdicts, removed outputs and retired cases."""
    kind = draw(st.sampled_from(["votes", "tests", "tests_then_votes", "graded"]))
    outputs, gates, overruled, removed = [], {}, set(), set()
    for case in range(draw(st.integers(1, 3))):
        for system in range(draw(st.integers(1, 4))):
            for sample in range(draw(st.integers(0, 2))):
                text = draw(st.sampled_from(_TEXTS))
                output = _output(
                    f"S{system}",
                    text,
                    case=f"c{case}",
                    sample=sample,
                    is_diff=text.startswith(("diff", "---")) and draw(st.booleans()),
                    test_result=draw(st.sampled_from(["passed", "failed", "errored", None])),
                )
                outputs.append(output)
                failed = draw(st.sets(st.sampled_from(GATES[:3]), max_size=2))
                gates[output.output_id] = tuple(GateResult(g, g not in failed, "") for g in GATES)
                aside = draw(st.sets(st.sampled_from(GATES[:3]), max_size=1))
                overruled |= {(output.output_id, gate) for gate in aside}
                if draw(st.integers(0, 9)) == 0:
                    removed.add(output.output_id)
    retired = {CaseId("c2")} if draw(st.booleans()) else set()
    return kind, draw(st.permutations(outputs)), gates, overruled, removed, retired


@settings(max_examples=400, deadline=None)
@given(family=_families(), pending=st.booleans())
def test_the_rule_over_columns_settles_as_the_rule_pair_by_pair(family, pending):
    kind, outputs, gates, overruled, removed, retired = family
    in_force = [o for o in outputs if o.output_id not in removed and o.case_id not in retired]
    cases = sorted({o.case_id for o in outputs} - retired)
    unanswered = stand_ins("fam", in_force, cases) if kind in ("tests", "tests_then_votes") else ()
    options = dict(
        retired_cases=retired, removed_outputs=removed, overruled=overruled, unanswered=unanswered
    )
    expected = reference_settling.settle(Family("fam", kind=kind), outputs, gates, **options)
    found = settle(Family("fam", kind=kind), outputs, gates, pending=pending, **options)
    assert found.settled == expected.settled
    assert found.pending == (expected.pending if pending else ())
