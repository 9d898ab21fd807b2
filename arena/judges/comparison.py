"""`arena judges show`: each judge beside the rater on the items both answered.

An item is one pair of systems on one case, whichever side each was shown on and whichever
sample. A judge's answer on an item is coded against the pair in one order, the one the
rater first saw it in (its system ids sorted for an item the rater did not vote on): -1 the
first better, 0 a tie, +1 the second. κ and α depend on that order, as they depend on which
side is called left; the rater's is the one the rater's own figures use. A judge that
answered an item more than once is read as MT-bench reads its two games: the same answer
each time is that answer, differing answers a tie.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena import fit
from arena.ledger import Ledger, catalog, judge_store
from arena.ledger.judge_store import JudgeVerdict

Item = tuple[str, str, str]  # case, first system, second system (in the item's order)
SEED = 0


@dataclass(frozen=True)
class _Answers:
    by_item: dict[Item, int]  # combined answer on each item
    in_order: dict[Item, int]  # first answer given with the item's first system shown left
    swapped: dict[Item, int]  # first answer given with it shown right


def _key(verdict: JudgeVerdict) -> Item:
    first, second = sorted((verdict.left_system, verdict.right_system))
    return verdict.case_id, first, second


def _orders(rater: Iterable[JudgeVerdict]) -> dict[Item, Item]:
    """Each item the rater voted on, in the order of the rater's first vote on it."""
    orders: dict[Item, Item] = {}
    for verdict in rater:
        orders.setdefault(
            _key(verdict), (verdict.case_id, verdict.left_system, verdict.right_system)
        )
    return orders


def _coded(verdict: JudgeVerdict, orders: dict[Item, Item]) -> tuple[Item, int, bool]:
    key = _key(verdict)
    item = orders.get(key, key)
    in_order = verdict.left_system == item[1]
    answer = {"left": -1, "tie": 0, "right": 1}[verdict.winner]
    return item, answer if in_order else -answer, in_order


def _answers(verdicts: Iterable[JudgeVerdict], orders: dict[Item, Item]) -> _Answers:
    given: dict[Item, set[int]] = {}
    in_order: dict[Item, int] = {}
    swapped: dict[Item, int] = {}
    for verdict in verdicts:
        item, answer, shown_in_order = _coded(verdict, orders)
        given.setdefault(item, set()).add(answer)
        (in_order if shown_in_order else swapped).setdefault(item, answer)
    combined = {item: next(iter(a)) if len(a) == 1 else 0 for item, a in given.items()}
    return _Answers(combined, in_order, swapped)


def _figure(estimate: Any) -> dict[str, Any]:
    def num(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "value": num(estimate.value),
        "low": num(estimate.low),
        "high": num(estimate.high),
        "count": estimate.count,
    }


def _judge_row(
    summary: judge_store.JudgeSummary, answers: _Answers, rater: _Answers, seed: int
) -> dict[str, Any]:
    shared = sorted(set(answers.by_item) & set(rater.by_item))
    agreement = fit.pair_agreement(
        [rater.by_item[i] for i in shared], [answers.by_item[i] for i in shared], rng=seed
    )
    both = sorted(set(answers.in_order) & set(answers.swapped))
    position = (
        fit.position_bias(
            [answers.in_order[i] for i in both], [answers.swapped[i] for i in both], rng=seed
        )
        if both
        else None
    )
    return {
        "judge": summary.judge,
        "kind": summary.kind,
        "verdicts": summary.verdicts,
        "items": len(answers.by_item),
        "overlap": len(shared),
        "agreement_with_ties": _figure(agreement.with_ties),
        "agreement_without_ties": _figure(agreement.without_ties),
        "kappa": _figure(agreement.kappa),
        "position_consistency": _figure(position.consistency) if position else None,
        "first_position_preference": _figure(position.first_preference) if position else None,
        "sources": list(summary.sources),
    }


def judges_report(ledger: Ledger, family: str, *, seed: int = SEED) -> dict[str, Any]:
    """The judges of ``family`` against the rater, as `arena judges show --json` prints."""
    if catalog.get_family(ledger, family) is None:
        raise catalog.no_such_family(ledger, family)
    rater_verdicts = judge_store.rater_verdicts(ledger, family)
    orders = _orders(rater_verdicts)
    rater = _answers(rater_verdicts, orders)
    verdicts = judge_store.verdicts(ledger, family)
    summaries = judge_store.judges(ledger, family)
    answers = {
        s.judge: _answers((v for v in verdicts if v.judge == s.judge), orders) for s in summaries
    }
    items = sorted(set(rater.by_item).union(*(a.by_item for a in answers.values())))
    table = [
        [a.by_item.get(i, math.nan) for i in items]
        for a in (rater, *(answers[s.judge] for s in summaries))
    ]
    alpha = fit.krippendorff_alpha(table, rng=seed) if summaries and items else None
    return {
        "family": family,
        "seed": seed,
        "rater": {"verdicts": len(rater_verdicts), "items": len(rater.by_item)},
        "judges": [_judge_row(s, answers[s.judge], rater, seed) for s in summaries],
        "alpha": _figure(alpha) if alpha else None,
    }


def coded_answers(ledger: Ledger, family: str) -> dict[str, list[tuple[Item, int, bool]]]:
    """Each answer of the rater (key ``rater``, first) and of each judge, coded as
    `judges_report` codes it: (item, answer on the item's order, shown in that order)."""
    rater = judge_store.rater_verdicts(ledger, family)
    orders = _orders(rater)
    coded = {"rater": [_coded(v, orders) for v in rater]}
    for verdict in judge_store.verdicts(ledger, family):
        coded.setdefault(verdict.judge, []).append(_coded(verdict, orders))
    return coded
