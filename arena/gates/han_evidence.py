"""Chinese or Japanese: what Han-only text shows, for the Language gate in Japanese families.

Japanese writes names, titles, addresses and lists in kanji alone, so Han
without kana is not by itself Chinese there. It is read as Chinese on
evidence that Japanese text does not give: characters Japanese does not use
(``resources/script/not_japanese.txt``, made from OpenCC's tables) and Chinese
words and patterns (``resources/language/chinese_words.tsv``). Text with no
evidence at all counts as Japanese; text with some, but less than the
threshold, is undetermined.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cache

from arena.gates.langid import KANA
from arena.paths import resource_path

CHARACTERS = ("script", "not_japanese.txt")
WORDS = ("language", "chinese_words.tsv")
# Evidence (characters plus words) a piece needs to be read as Chinese, chosen on
# tests/gates/han_samples.py and the real Japanese MT-bench answers
# (docs/gates.md, "Chinese or Japanese").
HAN_MIN_EVIDENCE = 2
# "…" in a word of the table: one to eight Han characters.
_GAP = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{1,8}?"


def _lines(where: tuple[str, str]) -> list[str]:
    text = resource_path(*where).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@cache
def not_japanese() -> frozenset[str]:
    """Han characters that Japanese text does not use."""
    return frozenset(line.strip() for line in _lines(CHARACTERS))


@cache
def chinese_words() -> re.Pattern[str]:
    """One pattern matching every word of the table, longest first."""
    words = []
    for number, line in enumerate(_lines(WORDS), start=1):
        word = line.split("\t", 1)[0].strip()
        if not word:
            raise ValueError(f"{'/'.join(WORDS)}: entry {number}: no word before the tab")
        words.append(word)
    words.sort(key=len, reverse=True)
    return re.compile("|".join(_GAP.join(map(re.escape, w.split("…"))) for w in words))


def chinese_evidence(text: str) -> list[str]:
    """The characters and words of ``text`` that Japanese does not write, in order found."""
    table = not_japanese()
    words = list(chinese_words().finditer(text))
    # A character inside a word found is part of that evidence, not more of it.
    inside = {i for m in words for i in range(m.start(), m.end())}
    found = [(m.start(), m.group()) for m in words]
    found += [(i, char) for i, char in enumerate(text) if char in table and i not in inside]
    return [item for _, item in sorted(found)]


def han_language(text: str) -> str:
    """How Han-only ``text`` reads where Japanese is expected: ``zh`` on enough evidence,
    ``ja`` on none, "" (undetermined) in between."""
    evidence = len(chinese_evidence(text))
    if evidence >= HAN_MIN_EVIDENCE:
        return "zh"
    return "" if evidence else "ja"


def read_han(language: str, piece: str, expected: Collection[str]) -> str:
    """``language``, as the detector read ``piece``, the way the gate counts it where
    ``expected`` languages are accepted: Han without kana read as Chinese is judged by its
    evidence (``han_language``) where Japanese is expected and Chinese is not."""
    if language != "zh" or "ja" not in expected or "zh" in expected or KANA.search(piece):
        return language
    return han_language(piece)
