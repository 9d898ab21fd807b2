"""Agreement between the raters of one board, measured as judges are measured.

On the items two raters both voted (an item, its order and each answer as ``items`` codes
them for judges: the order is the reference rater's, else the first given who voted it; an
item a rater answered twice answered once, differing answers a tie), for each pair of
raters: agreement with and without ties and Cohen's κ; over all raters, Krippendorff's α
(ordinal). Each with its 95% bootstrap interval over items, from the functions that compare
judges with the rater (``fit.pair_agreement``, ``fit.krippendorff_alpha``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from arena import fit
from arena.judges.items import answers_of, figure, item_orders
from arena.ledger.judge_store import JudgeVerdict


def between_raters(
    verdicts_by_rater: Mapping[str, Sequence[JudgeVerdict]],
    *,
    seed: int = 0,
    reference: str | None = None,
) -> dict[str, Any] | None:
    """The figures between the raters with votes (in the order given), or None with fewer
    than two.

    An item is coded in the order ``reference`` first voted it (else the first rater given
    who voted it): κ and α depend on it, and the report comparing everyone with
    ``reference`` must read the same κ for a pair in both places."""
    names = [name for name, verdicts in verdicts_by_rater.items() if verdicts]
    if len(names) < 2:
        return None
    coders = sorted(names, key=lambda n: n != reference)  # stable: the others keep their order
    orders = item_orders(itertools.chain.from_iterable(verdicts_by_rater[n] for n in coders))
    answers = {name: answers_of(verdicts_by_rater[name], orders).by_item for name in names}
    pairs = []
    for first, second in itertools.combinations(names, 2):
        shared = sorted(set(answers[first]) & set(answers[second]))
        agreement = fit.pair_agreement(
            [answers[first][i] for i in shared], [answers[second][i] for i in shared], rng=seed
        )
        pairs.append(
            {
                "raters": [first, second],
                "overlap": len(shared),
                "agreement_with_ties": figure(agreement.with_ties),
                "agreement_without_ties": figure(agreement.without_ties),
                "kappa": figure(agreement.kappa),
            }
        )
    items = sorted(set().union(*(answers[n] for n in names)))
    table = [[answers[n].get(i, math.nan) for i in items] for n in names]
    return {
        "seed": seed,
        "raters": names,
        "pairs": pairs,
        "alpha": figure(fit.krippendorff_alpha(table, rng=seed)),
    }
