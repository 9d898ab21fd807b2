"""evaluate(): every gate, every time, in GATES order."""

from __future__ import annotations

import pytest

from arena.gates import GATE_FUNCTIONS, evaluate
from arena.records import GATES, CaseId


def test_evaluate_returns_all_five_results_in_gate_order(make_output, make_case, make_family):
    results = evaluate(
        make_output("Une réponse courte mais complète à la question posée."),
        make_case(),
        make_family("fr"),
    )
    assert tuple(result.gate for result in results) == GATES
    assert tuple(GATE_FUNCTIONS) == GATES
    assert all(result.passed for result in results)


def test_every_failure_is_reported_not_only_the_first(make_output, make_case, make_family):
    output = make_output("   ", finish_reason="max_tokens")
    results = evaluate(output, make_case(), make_family("en", min_chars=10))
    failed = [result.gate for result in results if not result.passed]
    assert failed == ["empty", "truncated", "length"]


def test_simplified_family_answer_in_traditional_fails_only_script(
    make_output, make_case, make_family
):
    text = "這個問題的關鍵在於記憶體的配置方式，程式每次呼叫函數時都會建立新的物件。"
    results = evaluate(
        make_output(text, finish_reason="stop"),
        make_case("为什么内存一直增长？"),
        make_family("zh-Hans"),
    )
    assert [result.gate for result in results if not result.passed] == ["script"]


def test_gates_are_pure(make_output, make_case, make_family):
    output, case, family = (
        make_output("Guten Morgen, wie geht es dir heute?"),
        make_case(),
        make_family("de"),
    )
    assert evaluate(output, case, family) == evaluate(output, case, family)


def test_output_for_another_case_is_refused(make_output, make_case, make_family):
    with pytest.raises(ValueError, match="case"):
        evaluate(make_output("x", case_id=CaseId("other")), make_case(), make_family())
