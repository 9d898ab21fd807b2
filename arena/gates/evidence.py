"""Which pieces of an output the Language gate reads, and as which language.

The Gates page shows these so the rater can see how a verdict was reached.
Pieces are read as the gate reads them (``language_gate.readable_pieces`` and
``read_as``); unlike the gate, every piece is read, even those that could no
longer change the verdict, so the evidence is complete.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.gates.language_gate import expected_codes, read_as, readable_pieces
from arena.records import Case, Family, Output


@dataclass(frozen=True)
class Piece:
    """A piece of text read as one: ``language`` is "" when the detector was unsure."""

    text: str
    language: str
    weight: int


def language_pieces(output: Output, case: Case, family: Family) -> list[Piece]:
    """The pieces of ``output`` the Language gate reads, each with the language it was read as."""
    expected = expected_codes(case, family)
    return [
        Piece(text, read_as(text, expected), weight) for text, weight in readable_pieces(output)
    ]
