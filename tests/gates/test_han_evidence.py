"""Chinese or Japanese: Han-only text in a Japanese family is judged by its evidence."""

from __future__ import annotations

import pytest

from arena.gates import han_evidence, language
from arena.gates.case_language import detect_case_language
from arena.gates.han_evidence import HAN_MIN_EVIDENCE, chinese_evidence, han_language
from arena.records import Case, CaseId, Family, Output, OutputId, SystemId
from tests.gates.conftest import _load

SAMPLES = _load("han_samples")


def _judge(text: str, family_language: str = "ja"):
    output = Output(OutputId("o"), "f", CaseId("c"), SystemId("s"), 0, text)
    case = Case("f", CaseId("c"), "general", "A prompt.")
    return language(output, case, Family("f", language=family_language))


def test_the_sets_are_what_docs_gates_md_says():
    chinese = SAMPLES.CHINESE
    assert len(chinese) >= 50
    assert all(30 <= len(text) <= 300 for _, text in chinese)
    kinds = {kind for kind, _ in chinese}
    assert {"simplified-ui", "simplified-prose", "traditional-ui", "traditional-prose"} <= kinds
    assert len(SAMPLES.KANJI_JAPANESE) >= 30


def test_chinese_answers_fail_in_a_japanese_family():
    passed = [text for _, text in SAMPLES.CHINESE if _judge(text).passed]
    assert len(passed) <= 0.05 * len(SAMPLES.CHINESE), passed


def test_kanji_heavy_japanese_passes_in_a_japanese_family():
    japanese = SAMPLES.KANJI_JAPANESE
    failed = [(text, r.reason) for _, text in japanese if not (r := _judge(text)).passed]
    assert len(failed) <= 0.05 * len(japanese), failed


def test_a_failure_names_the_evidence():
    result = _judge("数据库连接失败，请检查网络设置后重试。如果问题仍然存在，请联系管理员。")
    assert not result.passed
    assert result.reason.startswith("Language: 100% of prose and comments is zh, family language")
    assert result.reason.endswith("; not Japanese: 库 连 败 请 检 查 络 设")


@pytest.mark.parametrize("char", list("这们说车门东时话语书开电发库连请检查每國說嗎"))
def test_chinese_forms_are_evidence(char):
    assert char in han_evidence.not_japanese()


@pytest.mark.parametrize("char", list("国学会来万与体数机後時間東書話語見長門開電龍"))
def test_forms_japanese_writes_are_not(char):
    assert char not in han_evidence.not_japanese()


def test_words_japanese_does_not_write_are_evidence_and_its_compounds_are_not():
    # A character inside a word found (么 in 什么) is not counted again.
    assert chinese_evidence("我们没有什么问题") == ["们", "没有", "什么", "问", "题"]
    assert chinese_evidence("他說這本書很好") == ["說", "這", "很"]
    assert chinese_evidence("這是我們的") == ["這", "是我們的"]
    # 的 and 了 in Japanese compounds, and 在 是 和 都: no evidence.
    assert chinese_evidence("具体的方法、終了時刻、現在地、是非、平和、東京都") == []


def test_no_evidence_reads_japanese_some_is_undetermined_enough_is_chinese():
    assert han_language("日本国憲法第九条") == "ja"
    assert len(chinese_evidence("澤田健一")) == 1 < HAN_MIN_EVIDENCE
    assert han_language("澤田健一") == ""
    assert han_language("这个问题") == "zh"


def test_below_the_threshold_the_verdict_is_undetermined_and_passes():
    result = _judge("您的密碼已過期，請在下次登入時設定新的密碼，至少需要八個字元。")
    assert result.passed
    assert result.reason.startswith("Language: undetermined: ")
    assert f"Han text with under {HAN_MIN_EVIDENCE} signs of Chinese" in result.reason


def test_chinese_stays_chinese_where_chinese_is_expected():
    assert _judge("这个问题的原因是变量没有初始化。", "zh-Hans").passed
    assert not _judge("这个问题的原因是变量没有初始化，你可以给它一个默认值。", "en").passed


def test_a_chinese_prompt_is_detected_in_a_japanese_family():
    prompt = "请用中文回答：为什么天空是蓝色的？请详细说明光的散射原理，并举一个日常生活中的例子。"
    found = detect_case_language(prompt, "ja")
    assert found is not None and found[0] == "zh"
    assert detect_case_language("日本国憲法第九条について説明してください。", "ja") is None


def test_a_word_table_entry_without_a_word_is_refused(monkeypatch, tmp_path):
    table = tmp_path / "language" / "chinese_words.tsv"
    table.parent.mkdir()
    table.write_text("# comment\n您\tpolite you\n\tno word\n", encoding="utf-8")
    monkeypatch.setattr(han_evidence, "resource_path", lambda *parts: tmp_path.joinpath(*parts))
    han_evidence.chinese_words.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"language/chinese_words.tsv: entry 2: no word"):
            han_evidence.chinese_words()
    finally:
        han_evidence.chinese_words.cache_clear()
