"""What a board cannot say, told where its readers read it: at the foot of `arena round
show` and in the window's round summary (docs/window.md, "What a board cannot say").

The limits of a voted board (one rater's votes, points that are only relative, no length
adjustment) and of any score (no best model in general, nothing on what the family does
not test, no proof against training-data contamination, times and costs taken elsewhere).
"""

from __future__ import annotations

from arena.records import VOTED_KINDS

# What measures outputs against a fixed bar, where points only compare systems.
_ABSOLUTE = {
    "votes": "the both-bad and gate-failure shares",
    "tests_then_votes": "the pass rate and the both-bad and gate-failure shares",
    "tests": "the pass rate and the gate-failure share",
}
_VOTES = (
    "Every vote is the rater's own (and, in a pooled round, the named judges'): the points "
    "describe those preferences, not everyone's.",
)
_LENGTH = (
    "Points are not adjusted for length: the length bias in the round summary says whether "
    "the rater leaned toward longer or shorter outputs.",
)
_ANY = (
    "No board names the best model in general: it orders these systems, as they were run, "
    "on this family's cases.",
    "It says nothing about skills, languages or kinds of input (images, audio, tools) that "
    "the family does not test.",
    "It cannot tell whether a system saw these cases in training.",
    "Times and costs are as each output reported them, on its own hardware and prices: "
    "they help diagnose, and rank no system's speed.",
)


def known_limits(kind: str | None) -> tuple[str, ...]:
    """The limits of a board of a family of ``kind``, one sentence each."""
    if kind not in _ABSOLUTE:  # a graded run's score is its own: no anchor, no votes
        return _ANY
    relative = (
        f"Points are relative to the anchor; only {_ABSOLUTE[kind]} measure outputs "
        "against a fixed bar.",
    )
    voted = kind in VOTED_KINDS
    return (_VOTES if voted else ()) + relative + (_LENGTH if voted else ()) + _ANY
