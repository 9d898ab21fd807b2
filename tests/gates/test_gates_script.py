"""The Script gate: Traditional-only characters in Simplified-Chinese answers."""

from __future__ import annotations

import pytest

from arena.gates import script
from arena.gates.script_gate import TABLE, traditional_only
from arena.paths import resource_path


def test_table_has_the_expected_size_and_members():
    table = traditional_only()
    assert 3000 < len(table) < 3500
    assert set("後髮發臺檯颱裡裏") <= table
    assert not set("后干发台于里乾於") & table
    assert "著" not in table


def test_table_header_names_its_source_and_opencc_version():
    header = resource_path(*TABLE).read_text(encoding="utf-8").splitlines()[:6]
    assert any("OpenCC 1." in line for line in header)
    assert any("make_table.py" in line for line in header)
    assert resource_path("script", "OPENCC-LICENSE.txt").is_file()


def test_simplified_answer_passes(make_output, make_case, make_family):
    text = (
        "后来我们发现这里的问题在于台风季节的排水系统，于是重新设计了管道。"
        "著名的工程师也显著改进了方案。"
    )
    result = script(make_output(text), make_case("请分析这个问题"), make_family("zh-Hans"))
    assert result.passed
    assert result.reason == "Script: no Traditional-only characters outside the prompt"


def test_traditional_drift_fails_and_names_the_characters(make_output, make_case, make_family):
    text = "这个方案很好。後來我們發現這裡還有一個問題。"
    result = script(make_output(text), make_case("请分析这个问题"), make_family("zh-CN"))
    assert not result.passed
    assert result.reason == (
        "Script: 11 Traditional-only characters not in the prompt (11 distinct): "
        "後 來 們 發 現 這 裡 還 …"
    )


def test_repeated_characters_are_counted_each_time(make_output, make_case, make_family):
    result = script(make_output("發發發，这是什么？"), make_case("问题"), make_family("zh"))
    assert (
        result.reason == "Script: 3 Traditional-only characters not in the prompt (1 distinct): 發"
    )


def test_quoting_traditional_characters_from_the_prompt_passes(make_output, make_case, make_family):
    prompt = "请把「臺灣的颱風」改写成简体。"
    text = "原文「臺灣的颱風」的简体写法是「台湾的台风」。"
    result = script(make_output(text), make_case(prompt), make_family("zh-Hans"))
    assert result.passed, result.reason


def test_prompt_characters_excuse_only_themselves(make_output, make_case, make_family):
    result = script(
        make_output("臺灣的颱風很大，後來停了。"), make_case("臺灣"), make_family("zh-Hans")
    )
    assert not result.passed
    assert result.reason.endswith("(4 distinct): 颱 風 後 來")


def test_japanese_lines_do_not_trip_the_gate(make_output, make_case, make_family):
    text = "日语原句是：\n東京の時間は長いです。電話で話しましょう。\n意思是东京的时间很长。"
    result = script(make_output(text), make_case("翻译这句日语"), make_family("zh-Hans"))
    assert result.passed, result.reason


def test_kana_on_one_line_does_not_excuse_other_lines(make_output, make_case, make_family):
    text = "東京の時間です。\n這裡的時間很長。"
    result = script(make_output(text), make_case("翻译"), make_family("zh-Hans"))
    assert not result.passed
    assert "這" in result.reason and "裡" in result.reason


@pytest.mark.parametrize("tag", ["zh-Hant", "zh-TW", "ja", "en", "ko"])
def test_other_families_are_not_checked(make_output, make_case, make_family, tag):
    result = script(make_output("後來我們發現這裡有問題。"), make_case("?"), make_family(tag))
    assert result.passed
    assert result.reason == f"Script: not checked for family language {tag}"
