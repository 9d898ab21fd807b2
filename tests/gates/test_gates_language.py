"""The Language gate: prose plus comments, weighed by letters, against the family's language."""

from __future__ import annotations

import socket

import pytest

from arena.gates import language
from arena.gates.langid import (
    MIN_LETTERS,
    detector,
    identify,
    is_simplified_chinese,
    language_code,
    letter_weight,
)

FENCE = "```"


def _run(make_output, make_case, make_family, text, family_language, **fields):
    return language(make_output(text, **fields), make_case(), make_family(language=family_language))


def test_every_labelled_sample_passes_in_its_own_language(
    make_output, make_case, make_family, lang_samples
):
    family_tag = {"zh": "zh-Hans", "pt": "pt-BR"}
    for label, kind, text in lang_samples:
        result = _run(make_output, make_case, make_family, text, family_tag.get(label, label))
        assert result.passed, (label, kind, result.reason)


def test_every_labelled_sample_fails_in_another_language(
    make_output, make_case, make_family, lang_samples
):
    for label, kind, text in lang_samples:
        other = "de" if label != "de" else "en"
        result = _run(make_output, make_case, make_family, text, other)
        assert not result.passed, (label, kind, result.reason)
        assert result.reason.endswith(f", family language is {other}")


def test_english_answer_in_a_simplified_chinese_family_fails_with_a_readable_reason(
    make_output, make_case, make_family
):
    text = (
        "Sure! To reverse a linked list you walk it once, pointing each node back at the "
        "previous one. "
        "Keep three references: previous, current and next, and stop when current becomes empty."
    )
    result = _run(make_output, make_case, make_family, text, "zh-Hans")
    assert not result.passed
    assert result.reason == "Language: 100% of prose and comments is en, family language is zh-Hans"


def test_traditional_chinese_passes_language_in_a_simplified_family(
    make_output, make_case, make_family
):
    text = (
        "這個問題的關鍵在於記憶體的配置方式。"
        "程式每次呼叫函數時都會建立新的物件，所以記憶體用量會持續增加。"
    )
    result = _run(make_output, make_case, make_family, text, "zh-Hans")
    assert result.passed
    assert result.reason == "Language: 100% of prose and comments is zh, family language is zh-Hans"


@pytest.mark.parametrize("tag", ["zh", "zh-CN", "zh-Hant", "zh-TW", "cmn-Hans"])
def test_chinese_family_tags_compare_at_the_language_level(
    make_output, make_case, make_family, tag
):
    text = (
        "这个问题的关键在于内存的分配方式。"
        "程序每次调用函数时都会创建新的对象，所以内存用量会持续增加。"
    )
    assert _run(make_output, make_case, make_family, text, tag).passed


def test_chinese_prose_with_english_comments_still_passes(make_output, make_case, make_family):
    text = (
        "下面的函数会读取配置文件，如果文件不存在就返回默认设置。\n\n"
        f"{FENCE}python\n"
        "def load(path):\n"
        '    """Read the settings file and fall back to the defaults."""\n'
        "    # The file may be missing on a fresh install, which is fine\n"
        "    if not os.path.exists(path):\n"
        "        return DEFAULTS  # nothing to merge yet\n"
        "    with open(path) as handle:\n"
        "        return {**DEFAULTS, **json.load(handle)}\n"
        f"{FENCE}\n\n"
        "调用时传入配置文件的路径即可；返回值是一个字典，用户的设置会覆盖默认值。\n"
    )
    result = _run(make_output, make_case, make_family, text, "zh-Hans")
    assert result.passed, result.reason


def test_code_heavy_answer_whose_comments_are_in_another_language_fails(
    make_output, make_case, make_family
):
    text = (
        "Here you go:\n\n"
        f"{FENCE}go\n"
        "// 读取配置文件，如果文件不存在就返回默认配置\n"
        "func Load(path string) (Config, error) {\n"
        "\t/* 先检查文件是否存在，避免在全新安装时报错。\n"
        "\t   之后再把用户的设置合并到默认设置上面。 */\n"
        "\tdata, err := os.ReadFile(path)\n"
        "\tif err != nil {\n"
        "\t\treturn Defaults, nil // 没有文件时使用默认值\n"
        "\t}\n"
        "\treturn parse(data)\n"
        "}\n"
        f"{FENCE}\n"
    )
    result = _run(make_output, make_case, make_family, text, "en")
    assert not result.passed
    assert result.reason.startswith("Language: ")
    assert result.reason.endswith("of prose and comments is zh, family language is en")


def test_code_itself_is_never_judged(make_output, make_case, make_family):
    code = "\n".join(f"value_{i} = compute_total(items[{i}], discount=0.{i})" for i in range(30))
    text = f"代码如下：\n\n{FENCE}python\n{code}\n{FENCE}\n"
    result = _run(make_output, make_case, make_family, text, "zh-Hans")
    assert result.passed
    assert result.reason.startswith("Language: undetermined: 12 letters of prose and comments")


@pytest.mark.parametrize(
    ("text", "letters"),
    [("OK", 2), ("42", 0), ("Yes.", 3), ("好的。", 6), (f"{FENCE}\nls -la\n{FENCE}", 0)],
)
def test_too_little_text_passes(make_output, make_case, make_family, text, letters):
    result = _run(make_output, make_case, make_family, text, "fr")
    assert result.passed
    assert result.reason == (
        f"Language: undetermined: {letters} letters of prose and comments, "
        f"under the {MIN_LETTERS} needed to tell, family language is fr"
    )


def test_output_blocks_do_not_count(make_output, make_case, make_family):
    text = (
        "Le programme affiche la liste des fichiers modifiés depuis hier soir.\n\n"
        f"{FENCE}text\n"
        "Error: the file could not be opened because it is locked by another process.\n"
        "Warning: retrying in five seconds, please wait until the operation finishes.\n"
        f"{FENCE}\n"
    )
    assert _run(make_output, make_case, make_family, text, "fr").passed


def test_several_other_languages_are_listed_in_the_reason(make_output, make_case, make_family):
    text = (
        "Die Besprechung wurde auf Donnerstagnachmittag verschoben, weil der Raum belegt war.\n\n"
        "La reunión se cambió al jueves por la tarde porque la sala estaba ocupada.\n\n"
        "The meeting moved to Thursday."
    )
    result = _run(make_output, make_case, make_family, text, "en")
    assert not result.passed
    assert "is not en (de " in result.reason and "es " in result.reason


def test_comments_that_cannot_change_the_result_are_left_unread(
    make_output, make_case, make_family
):
    prose = (
        "This paragraph explains the approach in plain English before showing any code at all. " * 6
    )
    text = f"{prose}\n\n{FENCE}python\n# 注释\nx = 1\n{FENCE}\n"
    result = _run(make_output, make_case, make_family, text, "en")
    assert result.passed
    assert result.reason.endswith("; the rest could not change the result")


def test_open_fence_does_not_swallow_the_explanation_after_it(make_output, make_case, make_family):
    text = (
        f"{FENCE}python\nprint(total)\n\n"
        "Cette fonction additionne les prix du panier et renvoie le total avec les taxes comprises."
    )
    assert _run(make_output, make_case, make_family, text, "fr", finish_reason="stop").passed
    truncated = _run(make_output, make_case, make_family, text, "fr", finish_reason="length")
    assert truncated.reason.startswith("Language: undetermined: 0 letters of prose and comments")


def test_diff_comments_are_judged(make_output, make_case, make_family):
    diff = (
        "--- a/cart.py\n+++ b/cart.py\n@@ -1,2 +1,4 @@\n"
        "+# 计算购物车里所有商品的总价，包括运费和税费，结果保留两位小数\n"
        "+def total(items):\n+    return round(sum(i.price for i in items), 2)\n"
    )
    result = _run(make_output, make_case, make_family, diff, "en", is_diff=True)
    assert not result.passed
    assert "is zh" in result.reason


def test_japanese_without_kana_reads_as_chinese_and_with_kana_as_japanese():
    assert identify("東京都庁舎") == ("zh", 1.0)
    assert identify("東京都庁の展望室からは富士山が見えます") == ("ja", 1.0)


def test_shouted_english_is_still_english():
    assert identify("PLEASE DO NOT TOUCH THE EXHIBITS IN THIS ROOM").language == "en"


def test_cjk_letters_weigh_three_latin_letters():
    assert letter_weight("abc, 123!") == 3
    assert letter_weight("中文") == 6
    assert letter_weight("한국어") == 9


@pytest.mark.parametrize(
    ("tag", "code"),
    [
        ("en", "en"),
        ("en-US", "en"),
        ("zh-Hans", "zh"),
        ("zh_CN", "zh"),
        ("pt-BR", "pt"),
        ("yue", "zh"),
        ("nb", "no"),
        ("JA", "ja"),
    ],
)
def test_family_tags_reduce_to_their_language(tag, code):
    assert language_code(tag) == code


@pytest.mark.parametrize(
    ("tag", "simplified"),
    [
        ("zh", True),
        ("zh-Hans", True),
        ("zh-CN", True),
        ("zh-SG", True),
        ("zh-Hans-HK", True),
        ("zh-Hant", False),
        ("zh-TW", False),
        ("zh-HK", False),
        ("ja", False),
        ("en", False),
    ],
)
def test_simplified_chinese_tags(tag, simplified):
    assert is_simplified_chinese(tag) is simplified


def test_model_loads_once_and_without_the_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network is off in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    detector.cache_clear()
    assert identify("The bundled model answers without downloading anything.").language == "en"
    assert detector() is detector()
