"""The Language gate: is most of the prose and comments in a language the case expects?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache
from operator import itemgetter

from arena.gates.basic import is_truncated
from arena.gates.han_evidence import HAN_MIN_EVIDENCE, chinese_evidence, read_han
from arena.gates.langid import (
    MIN_LETTERS,
    MIN_MARGIN,
    identify,
    language_code,
    letter_weight,
    pieces,
)
from arena.gates.text import Split, comment_bound, comments, readable, split_diff, split_markdown
from arena.records import Case, Family, GateResult, Output

GATE = "language"
# Chinese evidence named in a failing reason (arena.gates.han_evidence).
EVIDENCE_SHOWN = 8


class _Tally:
    """Weighted letters per language read, and those too close to call (undetermined)."""

    def __init__(self, expected: frozenset[str]) -> None:
        self.expected = expected
        self.by_language: Counter[str] = Counter()
        # What showed Han-only text to be Chinese where Japanese is expected.
        self.evidence: list[str] = []
        # Running sums: the verdict is checked after every piece.
        self.own = self.other = self.undetermined = 0

    def add(self, piece: str, weight: int) -> None:
        language = read_as(piece, self.expected)
        if not language:
            self.undetermined += weight
            return
        self.by_language[language] += weight
        if language == "zh" and "ja" in self.expected and len(self.evidence) < EVIDENCE_SHOWN:
            self.evidence += chinese_evidence(piece)
        if language in self.expected:
            self.own += weight
        else:
            self.other += weight

    @property
    def total(self) -> int:
        return self.own + self.other + self.undetermined

    def fails(self) -> bool:
        """More than half of all that is read is confidently another language, and enough of it."""
        return self.other >= MIN_LETTERS and 2 * self.other > self.total

    def cannot_fail(self, unread: int) -> bool:
        """Whether what is not yet read can no longer make the gate fail.

        ``unread`` bounds the letters still to read: the unread prose pieces,
        and the unread code blocks, whose comments are part of their letters.
        Only a pass is settled early, once enough is read to name a share: a
        failure is read to the end, so that its reason gives the whole evidence.
        """
        return self.total >= MIN_LETTERS and self.other + unread <= self.own + self.undetermined


def read_as(piece: str, expected: frozenset[str]) -> str:
    """The language a piece counts as; "" when the detector's margin is too small to tell."""
    found = identify(piece)
    if found.margin < MIN_MARGIN:
        return ""
    # Han without kana is how Japanese writes names, titles and lists too.
    return read_han(found.language, piece, expected)


def expected_codes(case: Case, family: Family) -> frozenset[str]:
    return _codes(case.expected_languages(family.language))


@cache
def _codes(tags: tuple[str, ...]) -> frozenset[str]:
    return frozenset(language_code(tag) for tag in tags)


def readable_pieces(output: Output) -> Iterator[tuple[str, int]]:
    """Every piece the gate may read, in reading order: the prose, then each code
    block's comments (a diff's added lines only); the gate itself stops early."""
    split = _split(output)
    yield from pieces(readable(line) for line in split.prose)
    for block in split.code:
        yield from pieces(readable(line) for line in comments(block))


def _split(output: Output) -> Split:
    if output.is_diff:
        return split_diff(output.text)
    return split_markdown(output.text, truncated=is_truncated(output.finish_reason))


def _judged_against(case: Case, family: Family) -> str:
    """The languages an answer to ``case`` is judged against, and where they come from."""
    if case.language is not None:
        return f"case language is {case.language} (set)"
    if case.detected_language is not None:
        return (
            f"case language is {case.detected_language} (detected from the prompt)"
            f" or the family's {family.language}"
        )
    return f"family language is {family.language}"


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%"


def _shares(tally: _Tally, languages: list[tuple[str, int]]) -> str:
    return ", ".join(f"{lang} {_percent(n, tally.total)}" for lang, n in languages[:3])


def _reason(tally: _Tally, read: str) -> tuple[bool, str]:
    total = tally.total
    if total < MIN_LETTERS:
        return True, (
            f"undetermined: {total} letters of {read}, under the {MIN_LETTERS} needed to tell"
        )
    ranked = tally.by_language.most_common()
    others = [(lang, n) for lang, n in ranked if lang not in tally.expected]
    own = [(lang, n) for lang, n in ranked if lang in tally.expected]
    if tally.fails():
        if len(others) == 1:
            return False, f"{_percent(tally.other, total)} of {read} is {others[0][0]}"
        listed = " or ".join(sorted(tally.expected))
        return False, (
            f"{_percent(tally.other, total)} of {read} is not {listed} ({_shares(tally, others)})"
        )
    if 2 * tally.own > total:
        names = " and ".join(lang for lang, _ in own)
        return True, f"{_percent(tally.own, total)} of {read} is {names}"
    if 2 * tally.other > total:
        return True, (
            f"undetermined: {tally.other} letters of {read} in another language "
            f"({_shares(tally, others)}), under the {MIN_LETTERS} needed to tell"
        )
    unsure = f"detector margin under {MIN_MARGIN}"
    if "ja" in tally.expected and "zh" not in tally.expected:
        unsure += f" or Han text with under {HAN_MIN_EVIDENCE} signs of Chinese"
    unclear = f"{unsure} for {_percent(tally.undetermined, total)}"
    shares = "; ".join(filter(None, [_shares(tally, ranked), unclear]))
    return True, f"undetermined: no language holds more than half of {read} ({shares})"


def language(output: Output, case: Case, family: Family) -> GateResult:
    """Fail when more than half of prose plus comments, by weighted letters, is confidently in
    a language the case does not expect (``Case.expected_languages``).

    Identifying and lexing cost most of the gate, so pieces and code blocks
    are read, largest first, only while what is left could still make the gate
    fail; a reason then says that some were left unread.
    """
    tally = _Tally(expected_codes(case, family))
    split = _split(output)
    # Largest first, so that the verdict is settled after as few as possible.
    prose = sorted(pieces(readable(line) for line in split.prose), key=itemgetter(1), reverse=True)
    blocks = sorted(split.code, key=lambda block: len(block.code), reverse=True)
    bounds = [letter_weight(comment_bound(block)) for block in blocks]
    unread = sum(weight for _, weight in prose) + sum(bounds)
    skipped = False
    for piece, weight in prose:
        if skipped := tally.cannot_fail(unread):
            break
        tally.add(piece, weight)
        unread -= weight
    for block, bound in zip(blocks, bounds, strict=True):
        if skipped or (skipped := tally.cannot_fail(unread)):
            break
        for piece, weight in pieces(readable(line) for line in comments(block)):
            tally.add(piece, weight)
        unread -= bound

    read = "prose and comments read" if skipped else "prose and comments"
    passed, what = _reason(tally, read)
    reason = f"Language: {what}, {_judged_against(case, family)}"
    if not passed and tally.evidence:
        shown = " ".join(tally.evidence[:EVIDENCE_SHOWN])
        reason += f"; not Japanese: {shown}"
    if skipped:
        reason += "; the rest could not change the result"
    return GateResult(GATE, passed, reason)
