"""Graders: answer contracts, normalisation, numbers, JSON leaves and statuses."""

from __future__ import annotations

import pytest

from arena.graded.graders import (
    ExactMatch,
    JsonFields,
    NumericMatch,
    RegexMatch,
    SpecError,
    build_grader,
    extract_answer,
    grade_output,
    is_refusal,
    normalise,
    parse_number,
    score_answer,
)

# --- normalisation and contracts ---------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Hello,   World! ", "hello world"),
        ("ＡＢＣ　１２３", "abc 123"),  # full-width letters, digits and space (NFKC)
        ("Straße", "strasse"),  # casefold, not lower
        ("**Wednesday.**", "wednesday"),
        ("`Bo`", "bo"),
        ("Mon-Tue\tWed\n", "mon tue wed"),
        ("«Été»", "été"),
    ],
)
def test_normalise_folds_case_width_punctuation_and_whitespace(raw, expected):
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    ("output", "answer"),
    [
        ("thinking...\nAnswer: 42", "42"),
        ("Answer: 1\nmore thought\nAnswer: 2\nthat is all", "2"),  # the last Answer line wins
        ("**Answer:** Bo", "Bo"),
        ("**Final answer:** Bo\r\n", "Bo"),
        ("The final answer: Bo", None),
        ("answer : blue  ", "blue"),
        ("  ANSWER:\tx = 3 ", "x = 3"),
        ("Answer:", None),
        ("The answer is 42", None),
        ("", None),
    ],
)
def test_final_line_contract_takes_the_last_answer_line(output, answer):
    assert extract_answer(output, "final_line") == answer


@pytest.mark.parametrize(
    ("output", "answer"),
    [
        ('Here:\n```json\n{"a": 1}\n```\n', '{"a": 1}'),
        ('```json\n{"a": 1}\n```\nfixed:\n```JSON\n{"a": 2}\n```', '{"a": 2}'),
        ('  {"a": 1}  ', '{"a": 1}'),
        ('```json\n{"a": 1}', None),  # unclosed fence: truncated output
        ("no json here", None),
        ("```python\nprint(1)\n```", None),
    ],
)
def test_json_block_contract_takes_the_last_fenced_block(output, answer):
    assert extract_answer(output, "json_block") == answer


def test_whole_contract_strips_the_ends_only():
    assert extract_answer("  a\nb \n", "whole") == "a\nb"
    assert extract_answer(" \n ", "whole") is None


# --- numbers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,000", 1000.0),
        ("1e3", 1000.0),
        ("1E+03", 1000.0),
        ("-0.5", -0.5),
        ("\u22120.5", -0.5),
        ("+7", 7.0),
        (".5", 0.5),
        ("$2,315.25", 2315.25),
        ("x = 10.5", 10.5),
        ("42 km", 42.0),
        ("42km", 42.0),
        ("25%", 25.0),
        ("３", 3.0),
        ("1,000,000.75.", 1000000.75),
        ("about 60.", 60.0),
    ],
)
def test_parse_number_reads_one_number(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "12,34",
        "1,0000",
        "1 and 2",
        "3/4",
        "none",
        "",
        "1.5.3",
        "x2",
        "2024-03-05",
        "1e999",
    ],
)
def test_parse_number_refuses_none_or_several(text):
    assert parse_number(text) is None


def test_numeric_tolerance_is_absolute_or_relative_whichever_is_larger():
    assert score_answer(NumericMatch(100.0), "100").passed
    assert not score_answer(NumericMatch(100.0), "100.0001").passed
    assert score_answer(NumericMatch(100.0, abs_tol=0.5), "100.4").passed
    assert score_answer(NumericMatch(100.0, rel_tol=0.01), "99").passed
    assert not score_answer(NumericMatch(100.0, rel_tol=0.01), "98.9").passed
    assert score_answer(NumericMatch(-0.5), "-.5").passed
    unreadable = score_answer(NumericMatch(1.0), "one")
    assert (unreadable.status, unreadable.credit) == ("parse_failure", 0.0)


# --- exact and regex ---------------------------------------------------------


def test_exact_match_accepts_any_listed_answer_after_normalisation():
    grader = ExactMatch(("Wednesday", "Wed"))
    assert score_answer(grader, " wednesday. ").passed
    assert score_answer(grader, "WED").passed
    assert not score_answer(grader, "Wednesday night").passed


def test_regex_full_must_cover_the_answer_and_search_finds_a_part():
    assert score_answer(RegexMatch("NO"), "NO").passed
    assert not score_answer(RegexMatch("NO"), "NO.").passed
    assert not score_answer(RegexMatch("NO"), "no").passed
    assert score_answer(RegexMatch("no", ignore_case=True), "NO").passed
    assert score_answer(RegexMatch("NO", mode="search"), "I say NO.").passed


# --- JSON fields -------------------------------------------------------------

NESTED = {"name": "Ines", "address": {"city": "Porto", "postcode": "4050-262"}, "n": 2}


def test_json_fields_split_one_point_over_nested_leaves():
    grader = JsonFields(NESTED)
    full = score_answer(
        grader, '{"name": "Ines", "n": 2.0, "address": {"postcode": "4050-262", "city": "Porto"}}'
    )
    assert (full.credit, full.passed) == (1.0, True)
    partial = score_answer(grader, '{"name": "Ines", "address": {"city": "Lisboa"}, "n": 2}')
    assert partial.credit == pytest.approx(0.5) and not partial.passed
    assert score_answer(grader, '{"name": "Ines", "address": "Porto", "n": 2}').credit == 0.5


def test_json_fields_with_forbidden_extras_zero_any_extra_or_missing_root_field():
    grader = JsonFields(NESTED, extra_root_fields="forbid")
    extra = '{"name": "Ines", "address": {"city": "Porto", "postcode": "4050-262"}, "n": 2, "x": 0}'
    assert score_answer(grader, extra).credit == 0.0
    assert score_answer(grader, '{"name": "Ines", "n": 2}').credit == 0.0
    # Extra fields below the root are not root fields: only the leaves are checked.
    deeper = (
        '{"name": "Ines", "address": {"city": "Porto", "postcode": "4050-262", "x": 1}, "n": 2}'
    )
    assert score_answer(grader, deeper).passed
    assert score_answer(JsonFields(NESTED), extra).passed  # allowed by default


def test_json_leaf_values_compare_as_json():
    assert score_answer(JsonFields({"a": True}), '{"a": true}').passed
    assert not score_answer(JsonFields({"a": True}), '{"a": 1}').passed
    assert not score_answer(JsonFields({"a": 1}), '{"a": true}').passed
    assert score_answer(JsonFields({"a": None}), '{"a": null}').passed
    assert not score_answer(JsonFields({"a": None}), "{}").passed
    assert score_answer(JsonFields({"a": [4, 3]}), '{"a": [4.0, 3]}').passed
    assert not score_answer(JsonFields({"a": [4, 3]}), '{"a": [3, 4]}').passed
    assert score_answer(JsonFields({"a": {}}), '{"a": {}}').passed
    assert not score_answer(JsonFields({"a": "Co."}), '{"a": "co"}').passed
    assert score_answer(
        JsonFields({"a": "Lumen Co."}, normalise_strings=True), '{"a": "LUMEN  co"}'
    ).passed
    assert score_answer(JsonFields({"ville": "Zürich"}), '{"ville": "Z\\u00fcrich"}').passed


@pytest.mark.parametrize("answer", ["[1, 2]", '"text"', "{not json", "{}x"])
def test_json_fields_need_one_object(answer):
    result = score_answer(JsonFields({"a": 1}), answer)
    assert (result.status, result.credit) == ("parse_failure", 0.0)


# --- statuses ----------------------------------------------------------------

EXACT = ExactMatch(("42",))


def test_failures_of_every_kind_score_zero():
    cases = {
        "timeout": grade_output(EXACT, "final_line", "Answer: 42", timed_out=True),
        "missing": grade_output(EXACT, "final_line", None),
        "refusal": grade_output(EXACT, "final_line", "Answer: 42", finish_reason="content_filter"),
        "parse_failure": grade_output(EXACT, "final_line", "it is 42"),
    }
    for status, result in cases.items():
        assert (result.status, result.credit, result.passed) == (status, 0.0, False)
    ok = grade_output(EXACT, "final_line", "so\nAnswer: 42")
    assert (ok.status, ok.credit, ok.passed, ok.parsed_answer) == ("ok", 1.0, True, "42")


@pytest.mark.parametrize(
    "output",
    [
        "I can\u2019t help with that request.",
        "**I'm sorry, but I cannot** do this.",
        "  i am unable to answer.",
    ],
)
def test_refusal_phrases_at_the_start_are_refusals(output):
    assert is_refusal(output)
    assert grade_output(EXACT, "final_line", output).status == "refusal"


def test_a_refusal_phrase_inside_an_answer_is_not_a_refusal():
    output = 'The robot said "I cannot help with that".\nAnswer: 42'
    assert not is_refusal(output)
    assert grade_output(EXACT, "final_line", output).passed


def test_an_answer_that_is_itself_a_refusal_is_one():
    result = grade_output(EXACT, "final_line", "Answer: I can't help with that.")
    assert result.status == "refusal" and result.parsed_answer is not None


# --- building from a manifest ------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"kind": "regex", "pattern": "(unclosed"}, "pattern"),
        ({"kind": "fuzzy"}, "kind"),
        ({"kind": "exact", "expected": "a", "colour": 1}, "colour"),
        ({"kind": "exact", "expected": "..."}, "expected"),
        ({"kind": "exact", "expected": []}, "expected"),
        ({"kind": "numeric", "expected": 1, "abs_tol": -1}, "abs_tol"),
        ({"kind": "numeric", "expected": "1"}, "expected"),
        ({"kind": "numeric"}, "expected"),
        ({"kind": "regex", "pattern": "a", "mode": "prefix"}, "mode"),
        ({"kind": "json_fields", "expected": {}}, "expected"),
        (
            {"kind": "json_fields", "expected": {"a": 1}, "extra_root_fields": "no"},
            "extra_root_fields",
        ),
        ("exact", "kind"),
    ],
)
def test_bad_grader_specs_name_their_field(spec, field):
    with pytest.raises(SpecError) as caught:
        build_grader(spec)
    assert caught.value.field == field


def test_grader_specs_build():
    assert build_grader({"kind": "exact", "expected": "Bo"}) == ExactMatch(("Bo",))
    assert build_grader({"kind": "numeric", "expected": 3, "rel_tol": 0.1}) == NumericMatch(
        3.0, 0.0, 0.1
    )
    assert build_grader({"kind": "regex", "pattern": "a+", "mode": "search"}) == RegexMatch(
        "a+", "search"
    )
