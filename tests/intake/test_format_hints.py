"""A file read as the wrong format says which format it looks like (never switched silently)."""

from __future__ import annotations

import json

import pytest

from arena.errors import BadInput
from arena.intake.outputs import import_file
from arena.intake.readers.sniff import QUESTIONS, sniff_format
from arena.ledger import catalog
from tests.conftest import native_line
from tests.japanese_answers import write_japanese_bench

PATCH = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"


def _alpaca(path):
    path.write_text(
        json.dumps(
            [{"instruction": "Say hi.", "output": "Hi!", "generator": "g"}], ensure_ascii=False
        ),
        "utf-8",
    )
    return path


def _swebench(path):
    record = {"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": PATCH}
    path.write_text(json.dumps(record) + "\n", "utf-8")
    return path


def _refusal(ledger, path, fmt) -> str:
    with pytest.raises(BadInput) as refused:
        import_file(ledger, path, family="f", fmt=fmt)
    assert catalog.families(ledger) == []  # nothing was stored
    return str(refused.value)


def test_fastchat_answers_outside_model_answer_read_as_native_get_the_hint(ledger, tmp_path):
    bench = write_japanese_bench(tmp_path / "jmt")
    moved = tmp_path / "gpt-4.jsonl"
    moved.write_bytes(bench.read_bytes())
    message = _refusal(ledger, moved, "native")
    assert message.startswith(f"{moved}:1: case: missing; this looks like a FastChat answer file")
    assert "import it with --format fastchat" in message and "--questions FILE" in message


def test_an_alpacaeval_array_in_a_jsonl_file_gets_the_hint(ledger, tmp_path):
    message = _refusal(ledger, _alpaca(tmp_path / "outputs.jsonl"), "native")
    assert "this looks like an AlpacaEval outputs file (a JSON array)" in message
    assert "--format alpacaeval" in message


def test_swebench_predictions_read_as_alpacaeval_get_the_hint(ledger, tmp_path):
    path = tmp_path / "run.json"
    record = {"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": PATCH}
    path.write_text(json.dumps([record]), "utf-8")
    message = _refusal(ledger, path, "alpacaeval")
    assert "this looks like SWE-bench predictions: import it with --format swebench" in message


def test_swebench_predictions_read_as_native_get_the_hint(ledger, tmp_path):
    message = _refusal(ledger, _swebench(tmp_path / "preds-run.jsonl"), "native")
    assert "--format swebench" in message


def test_a_questions_file_is_told_apart_from_answers(ledger, tmp_path):
    bench = write_japanese_bench(tmp_path / "jmt")
    questions = bench.parent.parent / "question.jsonl"
    message = _refusal(ledger, questions, "native")
    assert "FastChat question file, not answers" in message


def test_a_bad_record_in_the_right_format_gets_no_hint(ledger, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"case": {"id": 1, "prompt": "p"}, "system": {"label": "a"}, "output": ""}\n')
    assert _refusal(ledger, path, "native") == f"{path}:1: system.model: missing"


def test_an_error_after_good_records_gets_no_hint(ledger, tmp_path):
    path = tmp_path / "half.jsonl"
    good = native_line("c1", "a", "fine")
    path.write_text(good + "\n" + '{"question_id": 1, "model_id": "m", "choices": []}\n')
    assert "looks like" not in _refusal(ledger, path, "native")


@pytest.mark.parametrize(
    ("content", "found"),
    [
        ("", None),
        ("not json at all\n", None),
        ("[" * 5000 + "]" * 5000, None),  # too deep to read: no guess, no crash
        ('{"question_id": 1, "turns": ["q"]}\n', QUESTIONS),
        ('{"a__b-1": {"model_patch": "x", "instance_id": "a__b-1"}}', "swebench"),
        ('{\n  "a__b-1": {\n    "model_patch": "x"\n  }\n}\n', "swebench"),
        ("case_id,prompt,system,output\nc,p,a,o\n", "csv"),
    ],
)
def test_sniffing_never_fails(tmp_path, content, found):
    path = tmp_path / "file.txt"
    path.write_text(content, "utf-8")
    assert sniff_format(path) == found


def test_the_real_fastchat_file_outside_its_folder_gets_the_hint(ledger, tmp_path):
    from tests.conftest import REALDATA

    answers = REALDATA / "fastchat-japanese-mt-bench" / "model_answer" / "gpt-4.jsonl"
    if not answers.exists():
        pytest.skip("the real data folder is not beside this checkout")
    moved = tmp_path / "gpt-4.jsonl"
    moved.write_bytes(answers.read_bytes())
    assert "--format fastchat" in _refusal(ledger, moved, "native")
