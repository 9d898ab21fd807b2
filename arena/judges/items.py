"""Items and answers as every comparison of judges and raters codes them.

An item is one pair of systems on one case, whichever side each was shown on and whichever
sample. An answer on an item is coded against the pair in one order, the one the reference
(the rater) first saw it in (its system ids sorted for an item the reference did not vote
on): -1 the first better, 0 a tie, +1 the second. Answered more than once, the same answer
each time is that answer, differing answers a tie (as MT-bench reads its two games).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena.ledger.judge_store import JudgeVerdict

Item = tuple[str, str, str]  # case, first system, second system (in the item's order)


@dataclass(frozen=True)
class Answers:
    by_item: dict[Item, int]  # combined answer on each item
    in_order: dict[Item, int]  # first answer given with the item's first system shown left
    swapped: dict[Item, int]  # first answer given with it shown right


def _key(verdict: JudgeVerdict) -> Item:
    left, right = verdict.left_system, verdict.right_system
    return (verdict.case_id, left, right) if left <= right else (verdict.case_id, right, left)


def item_orders(rater: Iterable[JudgeVerdict]) -> dict[Item, Item]:
    """Each item the rater voted on, in the order of the rater's first vote on it."""
    orders: dict[Item, Item] = {}
    for verdict in rater:
        orders.setdefault(
            _key(verdict), (verdict.case_id, verdict.left_system, verdict.right_system)
        )
    return orders


def coded_answer(verdict: JudgeVerdict, orders: dict[Item, Item]) -> tuple[Item, int, bool]:
    key = _key(verdict)
    item = orders.get(key, key)
    in_order = verdict.left_system == item[1]
    answer = {"left": -1, "tie": 0, "right": 1}[verdict.winner]
    return item, answer if in_order else -answer, in_order


def answers_of(verdicts: Iterable[JudgeVerdict], orders: dict[Item, Item]) -> Answers:
    given: dict[Item, set[int]] = {}
    in_order: dict[Item, int] = {}
    swapped: dict[Item, int] = {}
    for verdict in verdicts:
        item, answer, shown_in_order = coded_answer(verdict, orders)
        given.setdefault(item, set()).add(answer)
        if verdict.game > 0:  # a verdict from single scores (game <= 0) was shown no way
            (in_order if shown_in_order else swapped).setdefault(item, answer)
    combined = {item: next(iter(a)) if len(a) == 1 else 0 for item, a in given.items()}
    return Answers(combined, in_order, swapped)


def figure(estimate: Any) -> dict[str, Any]:
    def num(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "value": num(estimate.value),
        "low": num(estimate.low),
        "high": num(estimate.high),
        "count": estimate.count,
    }
