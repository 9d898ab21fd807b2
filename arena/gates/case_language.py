"""The language a case's prompt is written in, when it is confidently not the family's.

Import runs this once per new case; what it finds becomes the case's
``detected_language`` (lenient: an answer in it or in the family's language
passes the Language gate), with the evidence sentence it returns. It reads the
prompt as the gate reads an answer (prose only, not code, numbers or
identifiers) and answers only when the prompt leaves no doubt.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from arena.gates.han_evidence import read_han
from arena.gates.langid import MIN_MARGIN, identify, language_code, pieces
from arena.gates.text import readable, split_markdown

# Thresholds, chosen on real prompts (docs/gates.md, "Thresholds"):
# weighted letters of prose the prompt must have,
CASE_MIN_LETTERS = 40
# the share of them, by letters, read confidently as the one language,
CASE_MIN_SHARE = 0.8
# and the mean detector margin (letter-weighted) of the pieces read so.
CASE_MIN_MARGIN = 0.8


def detect_case_language(prompt: str, family_language: str) -> tuple[str, str] | None:
    """``(language code, evidence)`` when ``prompt`` is confidently in another language
    than ``family_language``, else None.

    A prompt that opens or ends in the family's language is taken to be an
    instruction in it about a passage in another language ("translate this"),
    so it gives None whatever the passage's share.
    """
    family = language_code(family_language)
    weights: Counter[str] = Counter()
    margins: defaultdict[str, float] = defaultdict(float)
    read_as: list[str] = []
    found_pieces = list(pieces(readable(line) for line in split_markdown(prompt).prose))
    total = sum(weight for _, weight in found_pieces)
    if total < CASE_MIN_LETTERS:
        return None  # too little to tell, whatever the detector would say: no call
    for piece, weight in found_pieces:
        found = identify(piece)
        # Han without kana is Japanese-compatible unless it shows itself Chinese.
        lang = read_han(found.language, piece, (family,))
        if found.margin < MIN_MARGIN or not lang:
            read_as.append("")
            continue
        weights[lang] += weight
        margins[lang] += found.margin * weight
        read_as.append(lang)
    if not weights or family in (read_as[0], read_as[-1]):
        return None
    lang, weight = weights.most_common(1)[0]
    share, margin = weight / total, margins[lang] / weight
    if lang == family or share < CASE_MIN_SHARE or margin < CASE_MIN_MARGIN:
        return None
    return lang, f"prompt: {share:.0%} {lang} over {total} letters (margin {margin:.2f})"
