"""A case's language, read from its prompt at import: only when there is no doubt."""

from __future__ import annotations

import re

import pytest

from arena.gates.case_language import CASE_MIN_LETTERS, detect_case_language

FENCE = "```"

RUSSIAN = (
    "скажи мне как оптимизировать код и какие могут быть у него ошибки\n\n"
    f"{FENCE}\nnew_results = []\nfor value in results:\n    new_results.append(value)\n{FENCE}\n"
)
GERMAN_PASSAGE = (
    "Die Besprechung wurde auf Donnerstagnachmittag verschoben, weil der große Raum belegt war. "
    "Wir treffen uns dann um drei Uhr im kleinen Saal im zweiten Stock, gleich neben der Küche. "
    "Bitte bringt die Unterlagen vom letzten Quartal mit, damit wir die Zahlen besprechen können."
)


def test_a_prompt_written_in_russian_expects_russian():
    found = detect_case_language(RUSSIAN, "en")
    assert found is not None
    language, evidence = found
    assert language == "ru"
    assert re.fullmatch(r"prompt: 100% ru over \d+ letters \(margin 0\.9\d\)", evidence)


@pytest.mark.parametrize(
    ("prompt", "family", "expected"),
    [
        (GERMAN_PASSAGE, "en", "de"),
        ("请用三句话解释什么是递归，并给出一个简单的例子。最好使用 Python 代码。", "en", "zh"),
        (
            "Write a short poem about the sea at night, with the moon and the lighthouse in it.",
            "zh-Hans",
            "en",
        ),
        ("Écris un court poème sur la mer la nuit, avec la lune et le phare.", "de", "fr"),
    ],
)
def test_a_prompt_in_another_language_than_the_familys_is_detected(prompt, family, expected):
    found = detect_case_language(prompt, family)
    assert found is not None and found[0] == expected


@pytest.mark.parametrize(
    ("prompt", "family"),
    [
        # In the family's language, at the language level.
        ("Explain recursion in three sentences and give a small example.", "en"),
        ("這個問題的關鍵在於記憶體的配置方式，請解釋為什麼用量會持續增加。", "zh-Hans"),
        ("次のカテゴリーがあります。以下の質問を分析し、カテゴリーに割り当ててください。", "ja"),
        ("東京都千代田区丸の内一丁目から皇居外苑までの道順", "ja"),  # kanji only
        # An English instruction around a passage in another language.
        (f"Translate the following text into English:\n\n{GERMAN_PASSAGE}", "en"),
        (f"{GERMAN_PASSAGE}\n\nTranslate the text above into English, please.", "en"),
        # Too little prose: a greeting, a formula, code.
        ("Bonjour !", "en"),
        ('=IF(OR(C7="U.S.A.", C7="Canada"), TRUE, FALSE)', "en"),
        (f"{FENCE}python\ndef total(items):\n    return sum(items)\n{FENCE}", "en"),
        # A detector margin too small to be sure.
        ("Ja, je kunt de fiets gewoon meenemen in de trein, toch?", "en"),
    ],
)
def test_otherwise_there_is_no_case_language(prompt, family):
    assert detect_case_language(prompt, family) is None


def test_a_clear_language_needs_enough_prose():
    short = "Объясни рекурсию, пожалуйста."  # a clear language, but under the minimum
    assert sum(c.isalpha() for c in short) < CASE_MIN_LETTERS
    assert detect_case_language(short, "en") is None
    assert detect_case_language(short + " Приведи простой пример на Python.", "en") is not None
