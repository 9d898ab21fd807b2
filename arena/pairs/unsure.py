"""Pairs where the judge is unsure, first: the case drawn within a system pair favours the
items a run judge is unsure of, with a probability known and recorded.

An item (a case and a system pair) is *unsure* when a run judge's verdicts on it do not
name one winner: its two orders disagree, or it said tie (judged in one order only: it
said tie). The scheduler chooses the system pair as the family's pair design does
(coverage first, then adaptive or coverage) and then, among the pairs it would have drawn
from uniformly (its *candidates*, ``m``), draws pair ``i`` with probability

    pi_i = (1 + (BOOST - 1) * unsure_i) / sum_j (1 + (BOOST - 1) * unsure_j),

uniform when none (or all) of them is unsure. Each presentation records ``pi_i`` and ``m``
(``presentation_draws``); the round's prediction-powered fit weighs the vote by
``1 / (m * pi_i)`` within its system pair (uniform: 1), so that the board still estimates
the rater's, now with more of the rater's votes where the judge needs correcting most
(active inference, Zrnic and Candès 2024). Sides, counterbalancing and repeats are as
before; a family without a run judge is scheduled exactly as before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from arena.ledger import Ledger, draws, family_changes
from arena.pairs import pair_index
from arena.records import CaseId, SystemId

#: How many times as likely an unsure item is drawn as a sure one in the same system pair.
BOOST = pair_index.BOOST

SystemPair = tuple[SystemId, SystemId]
Unsure = Mapping[SystemPair, frozenset[CaseId]]


def unsure_items(
    verdicts: Iterable[tuple[str, str, str, str, str]],
) -> dict[SystemPair, frozenset[CaseId]]:
    """The unsure cases of each system pair (sorted ids) from run judges' verdicts
    (judge, case, left system, right system, verdict): an item is unsure when a judge's
    verdicts on it name no single winner."""
    said: dict[tuple[str, str, SystemPair], set[str | None]] = defaultdict(set)
    for judge, case, left, right, verdict in verdicts:
        a, b = SystemId(left), SystemId(right)
        pair = (a, b) if a <= b else (b, a)
        winner = left if verdict == "left" else right if verdict == "right" else None
        said[(judge, case, pair)].add(winner)
    found: dict[SystemPair, set[CaseId]] = defaultdict(set)
    for (_, case, pair), winners in said.items():
        if None in winners or len(winners) > 1:
            found[pair].add(CaseId(case))
    return {pair: frozenset(cases) for pair, cases in found.items()}


def for_session(ledger: Ledger, family: str) -> dict[SystemPair, frozenset[CaseId]] | None:
    """What a rating session of ``family`` favours: the unsure items of its run judges, read
    once; None when unsure-first does not apply (no run judge, or the family set it off)."""
    if family_changes.unsure_first(ledger, family) == "off":
        return None
    verdicts = draws.judged_verdicts(ledger, family)
    if not verdicts:
        return None
    return unsure_items(verdicts)


def weight(probability: float, candidates: int) -> float:
    """A vote's weight within its system pair in the prediction-powered fit: 1 / (m * pi)."""
    return 1.0 / (candidates * probability)
