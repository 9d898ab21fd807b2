"""The Language gate decides only on enough evidence, against the languages the case expects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.gates import language, language_gate
from arena.gates.langid import MIN_LETTERS, MIN_MARGIN, identify
from arena.records import Case, CaseId, Family, Output, OutputId, SystemId

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"
FENCE = "```"


def _judge(text, family_language, *, is_diff=False, **case_fields):
    output = Output(OutputId("o"), "f", CaseId("c"), SystemId("s"), 0, text, is_diff=is_diff)
    case = Case("f", CaseId("c"), "general", "A prompt.", **case_fields)
    return language(output, case, Family("f", language=family_language))


def test_held_out_wrong_language_answers_are_still_caught(wrong_language_samples):
    samples = wrong_language_samples.WRONG
    assert len(samples) >= 60
    assert len({lang for lang, _, _, _ in samples}) >= 9
    missed = [
        (lang, family, kind, result.reason)
        for lang, family, kind, text in samples
        if (result := _judge(text, family, is_diff=kind == "diff")).passed
    ]
    assert len(missed) <= 0.05 * len(samples), missed


def test_held_out_failures_name_the_answers_language(wrong_language_samples):
    for lang, family, kind, text in wrong_language_samples.WRONG:
        result = _judge(text, family, is_diff=kind == "diff")
        if not result.passed:
            assert f"is {lang}," in result.reason, (lang, kind, result.reason)


def test_short_and_symbolic_answers_in_the_familys_language_pass(wrong_language_samples):
    failed = [
        (family, kind, text[:40], result.reason)
        for family, kind, text in wrong_language_samples.RIGHT_HARD
        if not (result := _judge(text, family, is_diff=kind == "diff")).passed
    ]
    assert not failed


def test_demo_fails_language_exactly_where_its_readme_plants_it():
    failing = set()
    for name in ("prose-en", "zh-hans", "coding", "fixes"):
        for line in (DEMO / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            result = _judge(
                record["output"], record["family"]["language"], is_diff=record.get("is_diff", False)
            )
            if not result.passed:
                failing.add((record["case"]["id"], record["system"]["label"]))
    assert failing == {
        ("explain-05", "ember-large"),
        ("advise-09", "dune-mini"),
        ("summarise-08", "ember-large"),
        ("zh-09", "ember-large"),
        ("zh-11", "dune-mini"),
    }


def test_a_small_detector_margin_is_undetermined_and_passes():
    text = "Ja, je kunt de fiets gewoon meenemen in de trein."  # lite model: nl 0.32, fr 0.24
    assert identify(text).margin < MIN_MARGIN
    result = _judge(text, "en")
    assert result.passed
    assert result.reason == (
        "Language: undetermined: no language holds more than half of prose and comments "
        f"(detector margin under {MIN_MARGIN} for 100%), family language is en"
    )


def test_too_little_prose_is_undetermined_and_passes():
    result = _judge("Sriracha Tuna Avocado Wraps", "en")
    assert result.passed
    assert result.reason == (
        f"Language: undetermined: 24 letters of prose and comments, "
        f"under the {MIN_LETTERS} needed to tell, family language is en"
    )


def test_too_little_prose_in_another_language_is_undetermined():
    # Over half of what is read is French, but 28 letters are too few for a verdict.
    result = _judge("Oui, c'est une très bonne idée, merci.\n\nSriracha Tuna Avocado Wraps", "en")
    assert result.passed
    assert result.reason == (
        "Language: undetermined: 28 letters of prose and comments in another language (fr 54%), "
        f"under the {MIN_LETTERS} needed to tell, family language is en"
    )


def test_a_case_language_set_by_the_rater_is_strict():
    french = (
        "Voici la traduction de l'article : la médecine dentaire soigne les dents et les gencives."
    )
    english = "Here is the translation of the article: dentistry treats the teeth and the gums."
    passed = _judge(french, "en", language="fr")
    assert passed.passed
    assert passed.reason == "Language: 100% of prose and comments is fr, case language is fr (set)"
    failed = _judge(english, "en", language="fr")
    assert not failed.passed
    assert failed.reason == "Language: 100% of prose and comments is en, case language is fr (set)"


def test_a_detected_case_language_is_lenient():
    russian = "Ваш код выглядит нормально, но его можно ускорить, если убрать лишний цикл."
    english = "Your code looks fine, but you can speed it up by removing the extra loop."
    german = (
        "Dein Code sieht gut aus, aber du kannst ihn beschleunigen, wenn du die Schleife entfernst."
    )
    against = "case language is ru (detected from the prompt) or the family's en"
    assert _judge(russian, "en", detected_language="ru").reason == (
        f"Language: 100% of prose and comments is ru, {against}"
    )
    assert _judge(english, "en", detected_language="ru").passed
    failed = _judge(german, "en", detected_language="ru")
    assert not failed.passed
    assert failed.reason == f"Language: 100% of prose and comments is de, {against}"


def test_case_languages_compare_at_the_language_level():
    traditional = "這個問題的關鍵在於記憶體的配置方式，程式每次呼叫函數時都會建立新的物件。"
    assert _judge(traditional, "en", language="zh-Hant").passed
    assert _judge(traditional, "en", language="zh-CN").passed
    # Han only, but 這個 and 體 are not Japanese: Chinese, by evidence (arena.gates.han_evidence).
    assert not _judge(traditional, "en", language="ja").passed


def test_han_only_text_counts_as_japanese_where_japanese_is_expected():
    kanji = "\n".join(
        ["東京都千代田区丸の内", "1. 文学 - 三島由紀夫", "2. 歴史 - 戦国時代", "3. 芸術 - 浮世絵"]
    )
    han_only = "\n".join(["1. 文学", "2. 歴史", "3. 科学", "4. 芸術", "5. 音楽", "6. 建築"])
    for text in (kanji, han_only):
        assert _judge(text, "ja").passed
        assert _judge(text, "en", language="ja").passed
    assert not _judge(han_only * 2, "en").passed  # in an English family it is Chinese-script text


def test_kana_text_is_not_chinese():
    japanese = "はい、その設定は後から変更できます。駅から徒歩五分のところにあります。"
    result = _judge(japanese, "zh-Hans")
    assert not result.passed
    assert "is ja," in result.reason


def test_in_a_diff_only_comments_on_added_lines_are_read():
    removed_german = (
        "--- a/cache.py\n+++ b/cache.py\n@@ -1,3 +1,3 @@\n"
        "-# Den Eintrag nur löschen, wenn er wirklich abgelaufen ist und niemand ihn braucht\n"
        "+# Drop the entry only once it has really expired and nobody needs it any more\n"
        " # Dieser Kontext bleibt unverändert und wird deshalb nicht gelesen, egal wie lang\n"
        "     del self._store[key]\n"
    )
    assert _judge(removed_german, "en", is_diff=True).passed
    added_german = removed_german.replace("-# Den", "+# Den").replace("+# Drop", "-# Drop")
    result = _judge(added_german, "en", is_diff=True)
    assert not result.passed
    assert "is de," in result.reason


def test_one_line_english_comments_in_a_diff_are_too_little_to_tell():
    diff = (
        "--- a/django/db/backends/client.py\n+++ b/django/db/backends/client.py\n"
        "@@ -30,4 +30,5 @@\n"
        "+        # Move parameters before dbname\n"
        "+        args.extend(parameters)\n"
        "+        args += [dbname]\n"
    )
    result = _judge(diff, "en", is_diff=True)
    assert result.passed
    assert result.reason.startswith("Language: undetermined: ")


def test_a_failure_reads_everything_so_its_reason_gives_the_whole_share():
    text = (
        "Die Besprechung wurde auf Donnerstagnachmittag verschoben, weil der Raum belegt war.\n\n"
        "Wir treffen uns dann um drei Uhr im kleinen Saal im zweiten Stock.\n\n"
        "The meeting moved to Thursday afternoon."
    )
    result = _judge(text, "en")
    assert not result.passed
    assert "read" not in result.reason
    assert result.reason.startswith("Language: 7")  # about three quarters German


@pytest.mark.parametrize("text", ["これはテストです。", "這是測試。", "이것은 시험입니다."])
def test_text_decided_by_its_script_is_certain(text):
    assert identify(text).margin == 1.0


def test_stopping_early_gives_the_verdict_of_reading_everything(
    monkeypatch, lang_samples, wrong_language_samples
):
    texts = [(text, label, "") for label, _, text in lang_samples]
    texts += [(text, family, kind) for _, family, kind, text in wrong_language_samples.WRONG]
    texts += [(text, family, kind) for family, kind, text in wrong_language_samples.RIGHT_HARD]
    judged = [(text, family, kind) for text, lang, kind in texts for family in (lang, "en")]
    early = [_judge(text, family, is_diff=kind == "diff").passed for text, family, kind in judged]
    monkeypatch.setattr(language_gate._Tally, "cannot_fail", lambda self, unread: False)
    full = [_judge(text, family, is_diff=kind == "diff").passed for text, family, kind in judged]
    assert early == full
