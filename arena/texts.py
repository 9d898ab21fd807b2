"""Texts as settling compares them: normalised, and the key of a normalised text; and a
count as a person reads it (``counted``).

Two outputs are identical when their texts are equal once line endings are made
``\n`` and trailing whitespace is dropped. The ledger stores each output's
``text_key`` so that counting identical pairs reads 64 characters, not the text.
Changing ``normalise_text`` changes every key: it then needs a migration that
stores the new keys.
"""

from __future__ import annotations

from arena.canonical import sha256_hex

# What a line may end in that normalising drops (str.rstrip() drops more at the very end).
_LINE_END_SPACE = " \t\f\v"
_LINE_END_SPACES = tuple(_LINE_END_SPACE)


def normalise_text(text: str) -> str:
    """Line endings made ``\\n`` and trailing whitespace dropped, per line and at the end."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Most texts have no line with trailing space: then only the end needs stripping (and
    # in a text of one line, the end is all there is).
    if "\n" in text:
        lines = text.split("\n")
        if any(line.endswith(_LINE_END_SPACES) for line in lines):
            text = "\n".join(line.rstrip(_LINE_END_SPACE) for line in lines)
    return text.rstrip()


def text_key(text: str) -> str:
    """sha256 of the normalised text: equal keys, identical outputs."""
    return sha256_hex(normalise_text(text))


def counted(n: int, noun: str, plural: str | None = None, *, shown: str | None = None) -> str:
    """``n`` and ``noun`` in the number it takes: ``1 case``, ``2 cases``, ``0 cases``
    (``plural`` where adding "s" does not make it: ``counted(2, "case in doubt", "cases in
    doubt")``; ``shown``: how ``n`` is written, e.g. ``"1,200+"``)."""
    return f"{n if shown is None else shown} {noun if n == 1 else plural or noun + 's'}"
