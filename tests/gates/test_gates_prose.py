"""What the Language gate reads of a line: prose words, not numbers, code or markup."""

from __future__ import annotations

import pytest

from arena.gates.text import readable


@pytest.mark.parametrize(
    "line",
    [
        "The meeting moved to Thursday afternoon.",
        "Die Besprechung wurde auf Donnerstag verschoben.",
        "会议改到星期四下午了。",
        "- l'été dernier, c'est-à-dire en juillet",
    ],
)
def test_a_line_of_prose_is_read_whole(line):
    assert readable(line) == line.strip()


@pytest.mark.parametrize(
    "line",
    [
        '=IF(OR(C7="U.S.A.", C7="Canada", C7="Europe"), TRUE, FALSE)',
        "3x + 10 = 5(x - 2)",
        "| Lyon | France | 522 250 |",
        "|---|---|---|",
        "Ville | Pays | Habitants |",
        '"release_date": "2019-11-18",',
        "function-rgx=[\\p{Han}a-z_][\\p{Han}a-z0-9_]{2,30}$",
        "2019年11月18日",
        "SELECT 名称 FROM 汽车品牌",
        "WHERE 品牌id IN (",
        'cout << "Enter a positive integer to get its Fibonacci number: ";',
        "app.services.users.get_user_by_id",
        "https://de.wikipedia.org/wiki/Straßenbahn_Zürich",
        "",
        "   ",
    ],
)
def test_numbers_formulas_identifiers_tables_and_code_are_not_read(line):
    assert readable(line) == ""


def test_from_a_line_of_prose_only_its_words_are_read():
    assert readable("Therefore, the solution for x is 10.") == "Therefore, the solution for x is"
    assert readable("Call load_config() before the server starts its workers.") == (
        "Call before the server starts its workers."
    )
    assert readable("Call load_config() before os.path.join runs.") == ""  # mostly identifiers
    assert readable("Ein iPhone kostet 999 Euro.") == "Ein kostet Euro."


def test_json_keys_are_dropped_and_prose_values_kept():
    line = '"description": "The new phone is worth the price of admission.",'
    assert readable(line) == '"The new phone is worth the price of admission.",'


def test_han_kana_and_hangul_runs_are_words_between_digits_and_latin():
    assert readable("共有3个苹果，分别是红的和绿的。") == "共有 个苹果，分别是红的和绿的。"


def test_words_of_scripts_with_combining_marks_are_words():
    assert readable("नमस्ते, आप कैसे हैं? 2 बजे मिलते हैं।") == "नमस्ते, आप कैसे हैं? बजे मिलते हैं।"
