"""The turns of a multi-turn case, found again in its prompt and its answers.

An import joins a multi-turn question and each answer to it into one text, each
turn under a ``**Turn N**`` line (``arena.intake.readers.fastchat.join_turns``).
The pair view splits them back to lay the case out turn by turn: each question
above the two answers to it.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.records import Output

FIRST = "**Turn 1**\n\n"


class Turn(NamedTuple):
    question: str
    left: str
    right: str


def split_turns(text: str) -> list[str] | None:
    """The turns ``text`` joins, in order; None unless it joins two or more."""
    if not text.startswith(FIRST):
        return None
    turns, at, number = [], len(FIRST), 2
    while (found := text.find(f"\n\n**Turn {number}**\n\n", at)) >= 0:
        turns.append(text[at:found])
        at = found + len(f"\n\n**Turn {number}**\n\n")
        number += 1
    turns.append(text[at:])
    return turns if len(turns) > 1 else None


def output_turns(output: Output) -> list[str] | None:
    return None if output.is_diff else split_turns(output.text)


def pair_turns(prompt: str, left: Output, right: Output) -> list[Turn] | None:
    """The case's turns with both answers to each; None unless all three split alike."""
    questions = split_turns(prompt)
    if questions is None:
        return None
    lefts, rights = output_turns(left), output_turns(right)
    if lefts is None or rights is None or not len(questions) == len(lefts) == len(rights):
        return None
    return [Turn(*t) for t in zip(questions, lefts, rights, strict=True)]
