"""Suite manifests, the starter suite, scores and tiers."""

from __future__ import annotations

import json
import tomllib
from collections import Counter

import pytest

from arena.errors import BadInput
from arena.graded.graders import ExactMatch, Grade
from arena.graded.suite_scores import score_suite
from arena.graded.suites import (
    Task,
    bundled_suites,
    check_tier,
    grade,
    load_suite,
    parse_suite,
)
from arena.paths import resource_path

# --- the starter suite -------------------------------------------------------


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def test_starter_has_six_original_tasks_in_each_of_four_categories(starter):
    assert len(starter.tasks) == 24
    assert starter.categories == (
        "reasoning",
        "mathematics",
        "structured extraction",
        "instruction compliance",
    )
    assert Counter(t.category for t in starter.tasks) == {c: 6 for c in starter.categories}
    assert len({t.task_id for t in starter.tasks}) == 24
    assert "starter" in bundled_suites()


def test_starter_graders_fit_their_categories(starter):
    kinds = {
        c: {type(t.grader).__name__ for t in starter.tasks if t.category == c}
        for c in starter.categories
    }
    assert kinds["mathematics"] == {"NumericMatch"}
    assert kinds["structured extraction"] == {"JsonFields"}
    assert kinds["reasoning"] <= {"ExactMatch", "RegexMatch"}
    assert kinds["instruction compliance"] <= {"RegexMatch", "JsonFields"}


def test_every_starter_reference_scores_full_credit(starter):
    for task in starter.tasks:
        assert task.reference is not None, task.task_id
        result = grade(task, task.reference)
        assert (result.status, result.passed) == ("ok", True), (task.task_id, result)


# Plausible wrong outputs: each must fall short of full credit.
WRONG = {
    "reasoning-01": ["Answer: Eli", "Answer: Cy", "Bo"],
    "reasoning-02": ["Answer: knight, knave", "Answer: knave, knave"],
    "reasoning-03": ["Answer: Tuesday", "Answer: Thursday"],
    "reasoning-04": ["Answer: red", "Answer: cannot be determined"],
    "reasoning-05": ["Answer: EW", "Answer: FV"],
    "reasoning-06": ["Answer: niece", "Answer: sister", "Answer: granddaughter"],
    "mathematics-01": ["Answer: 3.75", "Answer: 4.2", "Answer: 3.5 or 3.75"],
    "mathematics-02": ["Answer: 2,849", "Answer: 2842.5", "Answer: 28"],
    "mathematics-03": ["Answer: 63.08", "Answer: 59"],
    "mathematics-04": ["Answer: 21", "Answer: 5.25"],
    "mathematics-05": ["Answer: 0.0833", "Answer: 1/9", "Answer: 0.111"],
    "mathematics-06": ["Answer: 2300", "Answer: $2,315.26", "Answer: 2315"],
    "extraction-01": [
        '```json\n{"vendor": "Lumen Paper Co.", "total": 1284.5, "currency": "€",'
        ' "due_date": "2025-04-09"}\n```',
        '```json\n{"vendor": "Lumen Paper Co.", "total": 1284.5, "currency": "EUR",'
        ' "due_date": "2025-04-09", "month": "March"}\n```',
        '```json\n{"vendor": "Lumen Paper Co.", "total": 1284.5, "currency": "EUR",'
        ' "due_date": "09/04/2025"}\n```',
    ],
    "extraction-02": [
        '```json\n{"name": "Dr. Ines Carvalho", "phone": "351912345678", "address":'
        ' {"street": "Rua das Flores 12", "postcode": "4050-262", "city": "Porto"}}'
        "\n```",
        '```json\n{"name": "Ines Carvalho", "phone": "+351 912 345 678", "address":'
        ' {"street": "Rua das Flores 12", "postcode": "4050-262", "city": "Porto"}}'
        "\n```",
    ],
    "extraction-03": [
        '```json\n{"attendees": ["Priya", "Olu", "Hedda"], "count": 3, "late": ["Marek"]}\n```',
        '```json\n{"attendees": ["Olu", "Priya", "Hedda", "Marek"], "count": 4, '
        '"late": ["Marek"]}\n```',
    ],
    "extraction-04": [
        '```json\n{"servings": 8, "ingredients": {"flour_g": 250, "butter_g": 125,'
        ' "eggs": "two"}}\n```',
        '```json\n{"servings": "8", "ingredients": {"flour_g": 250, '
        '"butter_g": 125, "eggs": 2}}\n```',
    ],
    "extraction-05": [
        '```json\n{"timestamp": "2025-02-17T08:15:02Z", "level": "WARN", "device":'
        ' "/dev/sdb1", "usage_percent": "91%", "host": "ledger-02"}\n```',
        '```json\n{"timestamp": "2025-02-17 08:15:02", "level": "warning", "device":'
        ' "/dev/sdb1", "usage_percent": 91, "host": "ledger-02"}\n```',
    ],
    "extraction-06": [
        '```json\n{"order_id": "#A-20931", "refund_requested": false, '
        '"replacement_requested": true}\n```',
        '```json\n{"order_id": "A-20931", "refund_requested": true, '
        '"replacement_requested": true}\n```',
    ],
    "compliance-01": [
        "Blue\nGreen\nRed",
        "red\ngreen\nblue",
        "blue, green, red",
        "Here they are:\nblue\ngreen\nred",
    ],
    "compliance-02": ["[harbour]", "HARBOUR", "Sure: [HARBOUR]"],
    "compliance-03": [
        '{"ok": true, "items": [1, 2, 3, 4]}',
        '{"ok": "true", "items": [4, 3, 2, 1]}',
        '{"ok": true, "items": [4, 3, 2, 1], "note": "done"}',
    ],
    "compliance-04": [
        "Where are you going?",
        "Is it raining",
        "Is it raining?\nYes.",
        "Can a lazy cat or a big dog jump high today?",
    ],
    "compliance-05": ["Answer: no", "Answer: YES", "Answer: NO."],
    "compliance-06": ["1, even, 3, even, 5", "1,2,3,4,5", "1,even,3,even,5,"],
}


def test_plausible_wrong_starter_answers_do_not_pass(starter):
    assert set(WRONG) == {t.task_id for t in starter.tasks}
    for task in starter.tasks:
        for output in WRONG[task.task_id]:
            assert not grade(task, output).passed, (task.task_id, output)


def test_starter_inputs_name_their_answer_contract(starter):
    for task in starter.tasks:
        if task.answer_contract == "final_line":
            assert '"Answer:' in task.input, task.task_id
        if task.answer_contract == "json_block":
            assert "json" in task.input.lower(), task.task_id


# --- manifests ---------------------------------------------------------------

TOML = """\
name = "tiny"
answer_contract = "final_line"

[[tasks]]
id = "t1"
category = "a"
input = "Say 42."
weight = 2
grader = { kind = "numeric", expected = 42, abs_tol = 0.5 }

[[tasks]]
id = "t2"
category = "b"
input = "Give JSON."
answer_contract = "json_block"
[tasks.grader]
kind = "json_fields"
expected = { x = 1, y = { z = "q" } }
"""


def test_json_and_toml_of_one_suite_hash_alike(tmp_path):
    as_toml = parse_suite(TOML, fmt="toml")
    as_json = parse_suite(json.dumps(tomllib.loads(TOML), indent=2), fmt="json")
    assert as_toml.manifest_hash == as_json.manifest_hash
    assert as_toml.tasks == as_json.tasks
    changed = parse_suite(TOML.replace("abs_tol = 0.5", "abs_tol = 0.25"), fmt="toml")
    assert changed.manifest_hash != as_toml.manifest_hash
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(tomllib.loads(TOML)), "utf-8")
    assert load_suite(path).manifest_hash == as_toml.manifest_hash


def test_tasks_carry_weights_contracts_and_input_hashes():
    suite = parse_suite(TOML)
    first, second = suite.tasks
    assert (first.weight, first.answer_contract) == (2.0, "final_line")
    assert second.answer_contract == "json_block"
    assert len(first.input_hash) == 64 and suite.task("t2") is second


def _error(text, fmt="toml"):
    with pytest.raises(BadInput) as caught:
        parse_suite(text, fmt=fmt, source="suite.toml" if fmt == "toml" else "suite.json")
    return caught.value


def test_a_bad_pattern_is_named_with_file_line_and_field():
    text = TOML.replace(
        'grader = { kind = "numeric", expected = 42, abs_tol = 0.5 }',
        "grader = { kind = \"regex\", pattern = '(4' }",
    )
    error = _error(text)
    assert error.field == "tasks[0].grader.pattern"
    assert str(error).startswith("suite.toml:9: tasks[0].grader.pattern: not a valid regular")


@pytest.mark.parametrize(
    ("old", "new", "field", "line"),
    [
        ('id = "t2"', 'id = "t1"', "tasks[1].id", 12),
        ('input = "Say 42."', 'input = ""', "tasks[0].input", 7),
        ("weight = 2", "weight = 0", "tasks[0].weight", 8),
        ("weight = 2", "colour = 2", "tasks[0].colour", 8),
        ('kind = "json_fields"', 'kind = "fuzzy"', "tasks[1].grader.kind", 17),
        (
            'expected = { x = 1, y = { z = "q" } }',
            "expected = 1979-05-27",
            "tasks[1].grader.expected",
            18,
        ),
        (
            'answer_contract = "json_block"',
            'answer_contract = "last_word"',
            "tasks[1].answer_contract",
            15,
        ),
        ('name = "tiny"', "name = 3", "name", 1),
    ],
)
def test_manifest_errors_name_field_and_line(old, new, field, line):
    error = _error(TOML.replace(old, new, 1))
    assert (error.field, error.line, error.path) == (field, line, "suite.toml")


def test_json_manifest_errors_find_the_task_line():
    data = tomllib.loads(TOML)
    data["tasks"][1]["grader"]["pattern"] = "x"
    error = _error(json.dumps(data, indent=2), fmt="json")
    assert error.field == "tasks[1].grader.pattern"
    lines = json.dumps(data, indent=2).splitlines()
    assert '"pattern"' in lines[error.line - 1]


def test_unparseable_manifests_report_the_line():
    assert _error('name = "x"\ntasks = [\n  oops\n]').line == 3
    assert _error('{\n  "name": "x",\n  "tasks": [,]\n}', fmt="json").line == 3
    assert _error('{"name": "x", "tasks": [], "w": NaN}', fmt="json").path == "suite.json"


def test_missing_or_empty_tasks_and_unknown_top_fields_are_refused():
    assert _error('name = "x"').field == "tasks"
    assert _error('name = "x"\ntasks = []').field == "tasks"
    assert _error('name = "x"\nflavour = 1\ntasks = []').field == "flavour"


def test_a_reference_its_own_grader_fails_is_refused():
    text = TOML.replace("weight = 2\n", 'weight = 2\nreference = "Answer: 41"\n')
    error = _error(text)
    assert error.field == "tasks[0].reference" and "credit 0" in error.message


def test_load_suite_by_name_or_path_and_unknown_names(tmp_path):
    bundled = resource_path("suites", "starter.toml")
    assert load_suite(str(bundled)).manifest_hash == load_suite("starter").manifest_hash
    with pytest.raises(BadInput, match="bundled: starter"):
        load_suite("no-such-suite")
    broken = tmp_path / "broken.toml"
    broken.write_bytes(b'name = "\xff"')
    with pytest.raises(BadInput, match="UTF-8"):
        load_suite(broken)


def test_the_documented_example_manifest_loads():
    doc = (resource_path().parent / "docs" / "graded.md").read_text("utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    suite = parse_suite(example)
    assert [t.task_id for t in suite.tasks] == ["sum-1", "card-1"]
    for task in suite.tasks:
        assert task.reference is None or grade(task, task.reference).passed


# --- scores ------------------------------------------------------------------


def _task(task_id, category, weight=1.0):
    return Task(task_id, category, "q", ExactMatch(("a",)), weight=weight)


def _grade(credit, status="ok"):
    return Grade(status, credit, credit >= 1.0, "x" if status == "ok" else None)


def test_headline_is_the_macro_average_of_weighted_category_means():
    tasks = [
        _task("a1", "A"),
        _task("a2", "A"),
        _task("a3", "A", weight=2.0),
        _task("b1", "B"),
        _task("b2", "B"),
    ]
    grades = {
        "a1": _grade(1.0),
        "a2": _grade(0.5),
        "a3": _grade(0.0, "parse_failure"),
        "b1": _grade(1.0),
    }  # b2 never attempted
    result = score_suite(tasks, grades)
    # A: (1*1 + 1*0.5 + 2*0) / 4 = 0.375; B: (1 + 0) / 2 = 0.5; headline (0.375 + 0.5) / 2.
    assert [c.score for c in result.categories] == [0.375, 0.5]
    assert result.headline == pytest.approx(0.4375)
    assert (result.tasks, result.passed, result.attempted) == (5, 2, 4)
    assert result.coverage == pytest.approx(0.8)
    assert result.credits == (1.0, 0.5, 0.0, 1.0, 0.0)
    assert result.category_labels == ("A", "A", "A", "B", "B")
    assert result.status_counts["missing"] == 1 and result.status_counts["parse_failure"] == 1
    assert [(c.tasks, c.passed, c.attempted) for c in result.categories] == [(3, 1, 3), (2, 1, 1)]


def test_a_run_with_no_outputs_scores_zero_with_zero_coverage(starter):
    result = score_suite(starter, {})
    assert (result.headline, result.coverage, result.passed) == (0.0, 0.0, 0)


def test_perfect_starter_run_scores_one(starter):
    grades = {t.task_id: grade(t, t.reference) for t in starter.tasks}
    result = score_suite(starter, grades)
    assert (result.headline, result.passed, result.coverage) == (1.0, 24, 1.0)


def test_grades_for_unknown_tasks_are_refused():
    with pytest.raises(ValueError, match="'zz'"):
        score_suite([_task("a1", "A")], {"zz": _grade(1.0)})


# --- tiers -------------------------------------------------------------------


def test_tiers_reference_and_community_are_allowed_and_verified_is_refused():
    assert check_tier("reference") == "reference"
    assert check_tier("community") == "community"
    with pytest.raises(BadInput, match="independent"):
        check_tier("verified")
    with pytest.raises(BadInput, match="expected one of"):
        check_tier("gold")


@pytest.mark.parametrize("fmt", ["toml", "json"])
@pytest.mark.parametrize("depth", [33, 100_000])
def test_a_manifest_nested_too_deep_is_refused_not_a_crash(fmt, depth):
    inner = "[" * depth + "]" * depth
    text = f"name = {inner}" if fmt == "toml" else f'{{"name": {inner}}}'
    with pytest.raises(BadInput, match="nested deeper than 32 levels"):
        parse_suite(text, fmt=fmt, source=f"deep.{fmt}")


def test_a_manifest_nested_within_the_limit_is_read_as_usual():
    inner = "[" * 30 + "]" * 30
    with pytest.raises(BadInput) as refused:
        parse_suite(f'name = "x"\nversion = {inner}', source="ok.toml")
    assert "nested" not in str(refused.value)
