"""Which pieces of an output the Language gate reads, and as which language.

The Gates page shows these so the rater can see how a verdict was reached.
Text is split and grouped as the gate does it: the prose, then the comments
of each code block (a diff's added lines only), each line reduced to its
prose words (``text.readable``) and short lines joined (``langid.pieces``).
Unlike the gate, every code block is read, even those whose comments could
no longer change the verdict, so the evidence is complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.gates.basic import is_truncated
from arena.gates.langid import KANA, MIN_MARGIN, identify, language_code, pieces
from arena.gates.text import comments, readable, split_diff, split_markdown
from arena.records import Case, Family, Output


@dataclass(frozen=True)
class Piece:
    """A piece of text read as one: ``language`` is "" when the detector was unsure."""

    text: str
    language: str
    weight: int


def _read(lines: Iterable[str], expected: frozenset[str]) -> list[Piece]:
    found = []
    for text, weight in pieces(readable(line) for line in lines):
        identified = identify(text)
        language = identified.language if identified.margin >= MIN_MARGIN else ""
        # As the gate does: Han without kana is how Japanese writes names and lists too.
        if language == "zh" and "ja" in expected and not KANA.search(text):
            language = "ja"
        found.append(Piece(text, language, weight))
    return found


def language_pieces(output: Output, case: Case, family: Family) -> list[Piece]:
    """The pieces of ``output`` the Language gate reads, each with the language it was read as."""
    if output.is_diff:
        split = split_diff(output.text)
    else:
        split = split_markdown(output.text, truncated=is_truncated(output.finish_reason))
    expected = frozenset(language_code(t) for t in case.expected_languages(family.language))
    found = _read(split.prose, expected)
    for block in split.code:
        found.extend(_read(comments(block), expected))
    return found
