"""The Language gate: is most of the prose and comments in the family's language?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from arena.gates.basic import is_truncated
from arena.gates.langid import MIN_LETTERS, identify, language_code, letter_weight, pieces
from arena.gates.text import Split, comment_bound, comments, split_diff, split_markdown
from arena.records import Case, Family, GateResult, Output

GATE = "language"


class _Tally:
    """Weighted letters per language, for the family's language and all others."""

    def __init__(self, family_language: str) -> None:
        self.family_language = family_language
        self.by_language: Counter[str] = Counter()

    def add(self, lines: Iterable[str]) -> None:
        for piece, weight in pieces(lines):
            self.by_language[identify(piece)] += weight

    @property
    def total(self) -> int:
        return sum(self.by_language.values())

    @property
    def own(self) -> int:
        return self.by_language[self.family_language]

    @property
    def other(self) -> int:
        return self.total - self.own

    def settled_by(self, unread: int) -> bool:
        """Whether comments not yet read cannot change the result any more.

        ``unread`` is the letter weight of the unread code blocks: their
        comments are part of those letters, so it bounds them.
        """
        if self.own >= self.other + unread:
            return True
        return self.other > self.own + unread and self.total >= MIN_LETTERS


def _split(output: Output) -> Split:
    if output.is_diff:
        return split_diff(output.text)
    return split_markdown(output.text, truncated=is_truncated(output.finish_reason))


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%"


def language(output: Output, case: Case, family: Family) -> GateResult:
    """Fail when more than half of prose plus comments, by weighted letters, is another language.

    Lexing code for its comments costs more than identifying the language, so
    code blocks are read only while their comments could still change the
    result; a reason then says that some were left unread.
    """
    del case  # the prompt does not bear on the answer's language
    tally = _Tally(language_code(family.language))
    split = _split(output)
    tally.add(split.prose)
    blocks = sorted(split.code, key=lambda block: len(block.code), reverse=True)
    bounds = [letter_weight(comment_bound(block)) for block in blocks]
    unread = sum(bounds)
    skipped = False
    for block, bound in zip(blocks, bounds, strict=True):
        if tally.settled_by(unread):
            skipped = True
            break
        tally.add(comments(block))
        unread -= bound

    total = tally.total
    if total < MIN_LETTERS:
        return GateResult(GATE, True, "Language: too little prose and comments to tell")
    read = "prose and comments read" if skipped else "prose and comments"
    if tally.other > tally.own:
        others = [
            (lang, n)
            for lang, n in tally.by_language.most_common()
            if lang != tally.family_language
        ]
        if len(others) == 1:
            lang = others[0][0]
            what = f"{_percent(tally.other, total)} of {read} is {lang}"
        else:
            parts = ", ".join(f"{lang} {_percent(n, total)}" for lang, n in others[:3])
            what = (
                f"{_percent(tally.other, total)} of {read} is not {tally.family_language} ({parts})"
            )
        return GateResult(GATE, False, f"Language: {what}, family language is {family.language}")
    reason = f"Language: {_percent(tally.own, total)} of {read} is {tally.family_language}"
    if skipped:
        reason += "; the other code comments could not change the result"
    return GateResult(GATE, True, reason)
