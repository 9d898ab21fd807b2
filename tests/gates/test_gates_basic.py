"""Empty, Truncated and Length: whole-text gates and their reasons."""

from __future__ import annotations

import pytest

from arena.gates import LIMIT_REASONS, empty, length, truncated


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t  \n", "\u3000\u200b\n", "\ufeff"])
def test_blank_output_fails_empty(make_output, make_case, make_family, text):
    result = empty(make_output(text), make_case(), make_family())
    assert (result.gate, result.passed) == ("empty", False)
    assert result.reason == "Empty: the output is blank"


def test_output_with_a_single_visible_character_passes_empty(make_output, make_case, make_family):
    result = empty(make_output("  4\n"), make_case(), make_family())
    assert result.passed
    assert result.reason.startswith("Empty: ")


@pytest.mark.parametrize(
    "reason",
    [
        "length",
        "max_tokens",
        "model_context_window_exceeded",
        "MAX_TOKENS",
        "incomplete",
        "max_output_tokens",
    ],
)
def test_every_limit_finish_reason_fails_truncated(make_output, make_case, make_family, reason):
    result = truncated(
        make_output("Partial answer", finish_reason=reason), make_case(), make_family()
    )
    assert (result.gate, result.passed) == ("truncated", False)
    assert result.reason == f"Truncated: finish reason {reason!r} means the output limit was hit"


def test_limit_reasons_cover_the_common_apis():
    assert {
        "length",
        "max_tokens",
        "model_context_window_exceeded",
        "incomplete",
        "max_output_tokens",
    } <= LIMIT_REASONS


@pytest.mark.parametrize(
    "reason", ["stop", "end_turn", "STOP", "completed", "tool_use", "content_filter"]
)
def test_ordinary_finish_reasons_pass_truncated(make_output, make_case, make_family, reason):
    result = truncated(make_output("Done.", finish_reason=reason), make_case(), make_family())
    assert result.passed
    assert result.reason == f"Truncated: finish reason {reason!r}"


def test_missing_finish_reason_passes_and_says_so(make_output, make_case, make_family):
    result = truncated(make_output("Done."), make_case(), make_family())
    assert result.passed
    assert result.reason == "Truncated: no finish reason recorded"


def test_open_code_fence_is_only_a_note_on_a_passing_result(make_output, make_case, make_family):
    text = "Here is the start:\n\n```python\ndef f(x):\n    return"
    result = truncated(make_output(text, finish_reason="stop"), make_case(), make_family())
    assert result.passed
    assert "code fence is left open" in result.reason


def test_closed_fences_add_no_note(make_output, make_case, make_family):
    text = "```python\nx = 1\n```\n\nand\n\n~~~~\ny\n~~~~\n"
    result = truncated(make_output(text, finish_reason="stop"), make_case(), make_family())
    assert result.reason == "Truncated: finish reason 'stop'"


@pytest.mark.parametrize(
    ("size", "passed"), [(9, False), (10, True), (11, True), (19, True), (20, True), (21, False)]
)
def test_length_bounds_are_inclusive(make_output, make_case, make_family, size, passed):
    family = make_family(min_chars=10, max_chars=20)
    assert length(make_output("x" * size), make_case(), family).passed is passed


def test_length_counts_characters_not_bytes(make_output, make_case, make_family):
    family = make_family(language="zh-Hans", min_chars=5, max_chars=5)
    assert length(make_output("你好，世界"), make_case(), family).passed


def test_length_reasons_name_the_count_and_the_bound(make_output, make_case, make_family):
    family = make_family(min_chars=10, max_chars=20)
    case = make_case()
    assert length(make_output("short"), case, family).reason == (
        "Length: 5 characters, below the family minimum of 10"
    )
    assert length(make_output("y" * 25), case, family).reason == (
        "Length: 25 characters, above the family maximum of 20"
    )
    assert (
        length(make_output("z" * 15), case, family).reason == "Length: 15 characters, within 10-20"
    )
