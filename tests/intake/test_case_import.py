"""`arena case import`: cases without outputs, in one transaction, from five formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.errors import BadInput
from arena.intake.case_import import import_cases
from arena.intake.families import create_family
from arena.intake.family_settings import FamilySettings
from arena.intake.outputs import import_file
from arena.intake.readers import ReadOptions
from arena.ledger import catalog, roster
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.conftest import REALDATA

MT_BENCH = REALDATA / "fastchat-japanese-mt-bench"
SWEBENCH = REALDATA / "swebench-diffs"


@pytest.fixture
def fam(ledger):
    create_family(ledger, "fam", FamilySettings(kind="votes", language="en"))
    return ledger


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    return path


def _table_counts(ledger) -> tuple[int, ...]:
    return tuple(
        ledger.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
        for t in ("cases", "case_details", "imports", "outputs")
    )


def test_native_cases_keep_turns_reference_language_and_metadata(fam, tmp_path):
    path = _write(
        tmp_path / "c.jsonl",
        [
            {"id": "a", "prompt": "Say hello.", "category": "greeting"},
            {
                "id": 7,
                "turns": ["Write a haiku.", "Now in French."],
                "language": "fr",
                "reference": ["A haiku", "Un haïku"],
                "metadata": {"source": "hand"},
            },
        ],
    )
    report = import_cases(fam, path, family="fam", fmt="native")
    assert (report.records, report.cases_added) == (2, 2)
    a, seven = catalog.get_case(fam, "fam", "a"), catalog.get_case(fam, "fam", "7")
    assert (a.prompt, a.category, a.language) == ("Say hello.", "greeting", None)
    assert seven.language == "fr" and "**Turn 2**\n\nNow in French." in seven.prompt
    details = roster.case_details(fam, "fam")
    assert details["7"].turns == ("Write a haiku.", "Now in French.")
    assert details["7"].reference == "**Turn 1**\n\nA haiku\n\n**Turn 2**\n\nUn haïku"
    assert details["7"].metadata == {"source": "hand"}
    assert catalog.count_outputs(fam, "fam") == 0


def test_importing_the_same_cases_again_adds_nothing(fam, tmp_path):
    path = _write(tmp_path / "c.jsonl", [{"id": "a", "turns": ["One.", "Two."]}])
    import_cases(fam, path, family="fam", fmt="native")
    before = _table_counts(fam)
    again = import_cases(fam, path, family="fam", fmt="native")
    assert again.cases_added == 0
    assert _table_counts(fam)[:2] == before[:2]


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"id": "b"}, "prompt", "either prompt"),
        ({"id": "b", "prompt": "x", "turns": ["y"]}, "prompt", "either prompt"),
        ({"id": "b", "turns": []}, "turns", "non-empty"),
        ({"id": "b", "turns": ["ok", ""]}, "turns[1]", "empty"),
        ({"id": "b", "prompt": "x", "language": "not a tag"}, "language", "language tag"),
        ({"id": "b", "prompt": "x", "answer": "?"}, "answer", "unknown field; put a field"),
        ({"id": "b", "prompt": "x", "categroy": "?"}, "categroy", "did you mean 'category'"),
        ({"id": "a", "prompt": "another prompt"}, "case.prompt", "different prompt"),
        ({"id": "b", "prompt": "x", "metadata": [1]}, "metadata", "object"),
        ({"id": "b\u0000", "prompt": "x"}, "id", "holds U+0000"),
        ({"id": "b\u2028c", "prompt": "x"}, "id", "holds U+2028"),
    ],
)
def test_a_bad_line_is_named_with_its_field_and_nothing_is_stored(
    fam, tmp_path, record, field, message
):
    import_cases(
        fam,
        _write(tmp_path / "first.jsonl", [{"id": "a", "prompt": "P"}]),
        family="fam",
        fmt="native",
    )
    before = _table_counts(fam)
    path = _write(tmp_path / "c.jsonl", [{"id": "z", "prompt": "fine"}, record])
    with pytest.raises(BadInput) as refused:
        import_cases(fam, path, family="fam", fmt="native")
    assert (refused.value.path, refused.value.line, refused.value.field) == (str(path), 2, field)
    assert message in refused.value.message
    assert _table_counts(fam) == before


def test_a_case_twice_in_one_file_is_refused(fam, tmp_path):
    path = _write(tmp_path / "c.jsonl", [{"id": "a", "prompt": "P"}, {"id": "a", "prompt": "P"}])
    with pytest.raises(BadInput, match="already on line 1") as refused:
        import_cases(fam, path, family="fam", fmt="native")
    assert refused.value.line == 2


def test_csv_alpacaeval_and_swebench_task_files(fam, tmp_path):
    csv = tmp_path / "c.csv"
    csv.write_text("case_id,prompt,category,language\nq1,Bonjour ?,chat,fr\nq2,Hi,,\n", "utf-8")
    assert import_cases(fam, csv, family="fam", fmt="csv").cases_added == 2
    assert catalog.get_case(fam, "fam", "q1").language == "fr"
    alpaca = tmp_path / "a.json"
    alpaca.write_text(
        json.dumps([{"instruction": "List 3 fruits.", "output": "apple", "dataset": "s"}]), "utf-8"
    )
    import_cases(fam, alpaca, family="fam", fmt="alpacaeval")
    (case,) = [c for c in catalog.cases(fam, "fam") if c.prompt == "List 3 fruits."]
    assert (
        case.category == "s" and roster.case_details(fam, "fam")[case.case_id].reference == "apple"
    )
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("django__django-11099\n\nsympy__sympy-20590\n", "utf-8")
    assert import_cases(fam, tasks, family="fam", fmt="swebench-tasks").cases_added == 2
    assert catalog.get_case(fam, "fam", "sympy__sympy-20590").category == "sympy/sympy"


def test_an_unknown_family_is_refused(ledger, tmp_path):
    path = _write(tmp_path / "c.jsonl", [{"id": "a", "prompt": "P"}])
    with pytest.raises(BadInput, match="no family"):
        import_cases(ledger, path, family="nope", fmt="native")


def test_the_command_prints_file_line_and_field(tmp_path, capsys):
    ledger = str(tmp_path / "l.sqlite")
    assert main(["--ledger", ledger, "family", "create", "f", "--kind", "votes"]) == 0
    bad = _write(tmp_path / "c.jsonl", [{"id": "a", "prompt": "P"}, {"id": "b"}])
    assert main(["--ledger", ledger, "case", "import", str(bad), "--family", "f"]) != 0
    assert f"{bad}:2" in capsys.readouterr().err


@pytest.mark.skipif(not MT_BENCH.is_dir(), reason="needs shared/realdata")
def test_mt_bench_questions_then_answers_find_the_same_cases(fam, tmp_path):
    questions = MT_BENCH / "question.jsonl"
    first = import_cases(fam, questions, family="fam", fmt="fastchat-questions")
    assert (first.records, first.cases_added) == (80, 80)
    details = roster.case_details(fam, "fam")
    assert {len(d.turns) for d in details.values()} == {2}
    assert len({c.category for c in catalog.cases(fam, "fam")}) == 8  # MT-bench's eight
    answers = sorted((MT_BENCH / "model_answer").glob("*.jsonl"))[0]
    report = import_file(
        fam, answers, family="fam", fmt="fastchat", options=ReadOptions(questions=questions)
    )
    assert report.cases_added == 0 and report.outputs_added > 0


@pytest.mark.skipif(not SWEBENCH.is_dir(), reason="needs shared/realdata")
def test_swebench_lite_with_tasks_judges_each_run_over_300_tasks(ledger):
    run = SWEBENCH / "autocoderover-acr-run-1" / "predictions_for_swebench.json"
    report = import_file(
        ledger,
        run,
        family="lite",
        fmt="swebench",
        settings=FamilySettings(kind="tests", language="en"),
        options=ReadOptions(tasks=SWEBENCH / "swe-bench-lite-tasks.txt"),
    )
    assert len(catalog.cases(ledger, "lite")) == 300
    assert report.outputs_added == 249 and report.cases_added == 300
    (row,) = close_round(ledger, "lite", RoundSettings()).board.systems
    assert (row.trials, row.no_output) == (300, 51)
    assert row.pass_rate == pytest.approx(row.trials_passed / 300)
