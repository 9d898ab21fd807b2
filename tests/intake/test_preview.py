"""What an import would do, read before it is done (the window's import dialog)."""

from __future__ import annotations

import pytest

from arena.errors import BadInput
from arena.intake.family_settings import FamilySettings
from arena.intake.preview import new_family, plan, preview_file, proposed_format, suggest_language
from arena.records import Family
from tests.conftest import native_line
from tests.japanese_answers import QUESTIONS, write_japanese_bench


def test_a_japanese_bench_is_counted_and_read_as_japanese(tmp_path):
    bench = write_japanese_bench(tmp_path / "jmt")
    preview = preview_file(bench, "fastchat")
    assert (preview.records, preview.systems, preview.cases) == (12, ("tanaka", "smith"), 6)
    assert (preview.language, preview.language_evidence) == ("ja", "6 of 6 prompts read as ja")
    family = new_family(preview, "jmt", FamilySettings(language="ja"))
    assert plan(preview, family, new=True) == (
        "12 records (2 systems, 6 cases, fastchat) into new family jmt (votes, ja, "
        "1–20000 characters). Every new output is screened by the gates."
    )


def test_the_content_proposes_the_format_where_the_name_does_not(tmp_path):
    bench = write_japanese_bench(tmp_path / "jmt")
    moved = tmp_path / "answers.jsonl"
    moved.write_bytes(bench.read_bytes())
    assert proposed_format(moved) == "fastchat"
    plain = tmp_path / "plain.jsonl"
    plain.write_text(native_line("c", "a", "text") + "\n", "utf-8")
    assert proposed_format(plain) == "native"


def test_a_native_file_brings_its_family_settings(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_text(
        native_line("c", "a", "x", family={"name": "f", "kind": "tests", "max_chars": 90}) + "\n",
        "utf-8",
    )
    preview = preview_file(path, "native")
    assert preview.family == {"name": "f", "kind": "tests", "max_chars": 90}
    family = new_family(preview, "f", FamilySettings())
    assert (family.kind, family.max_chars) == ("tests", 90)
    assert "None of them has a test result" in plan(preview, family, new=True)
    assert plan(preview, Family("f"), new=False).startswith("1 record (1 system, 1 case,")


def test_a_bad_record_is_refused_as_the_import_would(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"case": {"id": 1, "prompt": "p"}, "system": {"label": "a"}, "output": ""}\n')
    with pytest.raises(BadInput, match="system.model: missing"):
        preview_file(path, "native")


def test_reading_stops_at_the_limit_and_says_so(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text("".join(native_line(f"c{i}", "a", "x") + "\n" for i in range(5)), "utf-8")
    preview = preview_file(path, "native", limit=3)
    assert (preview.records, preview.complete) == (3, False)
    assert plan(preview, Family("f"), new=False).startswith("3+ records")


def test_prompts_of_mixed_languages_propose_none():
    english = ["Explain in detail how the seasons change over a year and why that happens."] * 3
    assert suggest_language(english)[0] == "en"
    assert suggest_language(list(QUESTIONS[:3]) + english) is None
    assert suggest_language(["2 + 2 = ?"]) is None


def test_the_real_japanese_mt_bench_is_proposed_as_japanese_fastchat():
    from tests.conftest import REALDATA

    answers = REALDATA / "fastchat-japanese-mt-bench" / "model_answer" / "gpt-4.jsonl"
    if not answers.exists():
        pytest.skip("the real data folder is not beside this checkout")
    assert proposed_format(answers) == "fastchat"
    preview = preview_file(answers, "fastchat")
    assert (preview.records, preview.cases, preview.language) == (80, 80, "ja")
