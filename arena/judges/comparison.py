"""`arena judges show`: each judge beside the rater on the items both answered.

Items and answers are coded as ``arena.judges.items`` says. κ and α depend on an item's
order, as they depend on which side is called left; the rater's is the one the rater's own
figures use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena import fit
from arena.judges.between_raters import between_raters
from arena.judges.items import Answers, Item, answers_of, coded_answer, figure, item_orders
from arena.judges.worth import judge_worth
from arena.ledger import Ledger, catalog, judge_runs, judge_store
from arena.ledger.judge_store import JudgeVerdict

SEED = 0
# A board as a round closes it (RoundSettings' defaults) with a round's intervals
# (arena.rounds.uncertainty: 200 resamples, the family board's stream 0).
BASE = 1000.0
BOARD_RESAMPLES = 200
# τ's interval is shown only where every system ranked on both boards has this many
# decisive verdicts on each: with fewer it was seen to cover less than 93% in simulation
# (benchmarks/judge_calibration.py; docs/judges.md).
TAU_MIN_DECISIVE = 150
# Each figure's random stream under the seed: the board's is a round's, the others apart.
BOARD_STREAM, LENGTH_STREAM, TAU_STREAM = 0, 2, 3


@dataclass(frozen=True)
class Family:
    """What the boards read of the family besides verdicts: its systems (ids, in board
    order), their labels, the reference (the boards' anchor) and the length of each case's
    output of each system (None where it has several, samples)."""

    systems: tuple[str, ...]
    labels: dict[str, str]
    reference: str | None
    lengths: dict[tuple[str, str], int | None]


def _family(ledger: Ledger, family: str) -> Family:
    found = catalog.get_family(ledger, family)
    if found is None:
        raise catalog.no_such_family(ledger, family)
    systems = catalog.systems(ledger, family)
    lengths: dict[tuple[str, str], int | None] = {}
    for output in catalog.outputs(ledger, family):
        key = (output.case_id, output.system_id)
        lengths[key] = None if key in lengths else len(output.text)
    return Family(
        tuple(s.system_id for s in systems),
        {s.system_id: s.label for s in systems},
        found.reference,
        lengths,
    )


_Y = {"left": 1.0, "tie": 0.5, "right": 0.0}


def _votes(verdicts: Sequence[JudgeVerdict], index: dict[str, int], cases: dict[str, int]) -> Any:
    """Each verdict as a comparison of the systems as shown (left first), clustered by case."""
    return fit.CaseComparisons.of(
        [index[v.left_system] for v in verdicts],
        [index[v.right_system] for v in verdicts],
        [_Y[v.winner] for v in verdicts],
        [cases[v.case_id] for v in verdicts],
    )


def _board(
    votes: Any, family: Family, anchor: int | None, seed: int
) -> tuple[list[dict[str, Any]], int | None]:
    """The board fitted as a round fits the rater's (penalty, base, threshold), points from
    ``anchor`` (else, where it has no votes, from the board's most compared system), with
    the round's case-bootstrap intervals; and the anchor it is on."""
    n = len(family.systems)
    points = fit.fit_points(
        votes.a,
        votes.b,
        votes.y,
        n_systems=n,
        penalty=fit.DEFAULT_PENALTY,
        anchor=anchor,
        base=BASE,
        threshold=fit.DEFAULT_THRESHOLD,
    )
    ci = fit.bootstrap_points(
        votes.a,
        votes.b,
        votes.y,
        cluster=votes.case,
        n_systems=n,
        rng=np.random.default_rng([seed, BOARD_STREAM]),
        n_resamples=BOARD_RESAMPLES,
        penalty=fit.DEFAULT_PENALTY,
        anchor=anchor,
        base=BASE,
    )
    rows = [
        {
            "system": system,
            "label": family.labels[system],
            "rank": int(points.ranks[i]) if points.ranked[i] else None,
            "points": figure(
                fit.Estimate(
                    float(points.points[i]),
                    float(ci.low[i]),
                    float(ci.high[i]),
                    int(points.decisive_votes[i]),
                )
            ),
        }
        for i, system in enumerate(family.systems)
    ]
    ordered = sorted(rows, key=lambda r: (r["rank"] is None, r["rank"] or 0, r["label"]))
    return ordered, points.anchor


def _length_bias(
    verdicts: Sequence[JudgeVerdict], votes: Any, family: Family, seed: int
) -> dict[str, Any]:
    """The rater's estimator on the verdicts (``votes``, as comparisons) whose two outputs
    are known (one each)."""
    lengths = family.lengths
    left = [lengths.get((v.case_id, v.left_system)) for v in verdicts]
    right = [lengths.get((v.case_id, v.right_system)) for v in verdicts]
    known = np.array([x is not None and y is not None for x, y in zip(left, right, strict=True)])
    if not known.any():
        return figure(fit.Estimate(math.nan, math.nan, math.nan, 0))
    return figure(
        fit.length_bias_interval(
            fit.CaseComparisons.of(
                votes.a[known], votes.b[known], votes.y[known], votes.case[known]
            ),
            np.array([x for x, k in zip(left, known, strict=True) if k], dtype=float),
            np.array([x for x, k in zip(right, known, strict=True) if k], dtype=float),
            n_systems=len(family.systems),
            penalty=fit.DEFAULT_PENALTY,
            rng=np.random.default_rng([seed, LENGTH_STREAM]),
        )
    )


def _judge_row(
    summary: judge_store.JudgeSummary,
    verdicts: Sequence[JudgeVerdict],
    answers: Answers,
    rater: Answers,
    boards: _Boards,
    seed: int,
    votes: Any,
    tau_found: Any,
) -> tuple[dict[str, Any], int | None]:
    """The judge's row of the report (``votes``, its verdicts as comparisons; ``tau_found``,
    τ between its board and the rater's), and the anchor its board is on."""
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
    board, anchor = _board(votes, boards.family, boards.anchor, seed)
    tau = figure(tau_found)
    if _fewest_decisive(boards.rater_board, board) < TAU_MIN_DECISIVE:
        tau["low"] = tau["high"] = None
    row = {
        "judge": summary.judge,
        "kind": summary.kind,
        "verdicts": summary.verdicts,
        "items": len(answers.by_item),
        "overlap": len(shared),
        "agreement_with_ties": figure(agreement.with_ties),
        "agreement_without_ties": figure(agreement.without_ties),
        "kappa": figure(agreement.kappa),
        "position_consistency": figure(position.consistency) if position else None,
        "first_position_preference": figure(position.first_preference) if position else None,
        "length_bias": _length_bias(verdicts, votes, boards.family, seed),
        "board": board,
        "board_tau": tau,
        "sources": list(summary.sources),
    }
    if summary.kind == "model":  # a person is a rater, not a predictor (docs/judges.md)
        row["worth"], row["worth_lam"] = judge_worth(
            boards.rater, votes, len(boards.family.systems), anchor=boards.anchor, seed=seed
        )
    return row, anchor


@dataclass(frozen=True)
class _Boards:
    family: Family
    index: dict[str, int]  # system id: its place on a board
    cases: dict[str, int]  # case id: its cluster, numbered in case-id order
    rater: Any  # the rater's votes, as fit.CaseComparisons
    anchor: int | None  # every board's where it has votes (``_anchor``)
    rater_board: list[dict[str, Any]]


def _fewest_decisive(*boards: list[dict[str, Any]]) -> int:
    """The fewest decisive verdicts of a system ranked on every board, on any of them."""
    ranked = [{row["system"]: row for row in board if row["rank"] is not None} for board in boards]
    shared = set.intersection(*(set(r) for r in ranked))
    return min((r[s]["points"]["count"] for r in ranked for s in shared), default=0)


def family_judges(ledger: Ledger, family: str) -> list[judge_store.JudgeSummary]:
    """The family's judges in the order first imported, each with its kind and how many
    verdicts it gave: those a round may pool (``RoundSettings.with_judges``)."""
    return judge_store.judges(ledger, family)


def judges_report(
    ledger: Ledger, family: str, *, seed: int = SEED, rater: str | None = None
) -> dict[str, Any]:
    """The judges of ``family`` against the rater, as `arena judges show --json` prints.

    Where several people voted, the reference is ``rater`` (the one at the keyboard; the
    first to vote when ``rater`` has not), the other raters are listed beside the judges as
    rows of kind ``rater`` (their votes are on the board; judges' are not), and
    ``between_raters`` holds the agreement between all raters."""
    described = _family(ledger, family)
    verdicts = judge_store.verdicts(ledger, family)
    judged = [
        (s, [v for v in verdicts if v.judge == s.judge]) for s in judge_store.judges(ledger, family)
    ]
    by_rater = judge_store.verdicts_by_rater(ledger, family)
    reference = reference_rater(by_rater, rater)
    if reference is None:
        # One rater (or none): its votes are every vote, as ``judge_store.rater_verdicts``
        # reads them again (only their judge's name differs, which no figure reads).
        rater_votes = [v for votes in by_rater.values() for v in votes]
        return _unparsed(ledger, family, compare(rater_votes, judged, described, family, seed=seed))
    others = [
        (judge_store.JudgeSummary(name, RATER_KIND, len(votes), ()), votes)
        for name, votes in by_rater.items()
        if name != reference
    ]
    report = compare(by_rater[reference], others + judged, described, family, seed=seed)
    report["rater"]["name"] = reference
    report["between_raters"] = between_raters(by_rater, seed=seed, reference=reference)
    return _unparsed(ledger, family, report)


def _unparsed(ledger: Ledger, family: str, report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with each run judge's ``unparsed`` (its replies that named no verdict)
    after its ``verdicts``; an imported judge has no such count."""
    counts = judge_runs.unparsed_counts(ledger, family)
    run = {j.judge for j in judge_runs.run_judges(ledger, family)}
    for n, row in enumerate(report["judges"]):
        if row["judge"] in run and row["kind"] == "model":
            items = list(row.items())
            at = [k for k, _ in items].index("verdicts") + 1
            items.insert(at, ("unparsed", counts.get(row["judge"], 0)))
            report["judges"][n] = dict(items)
    return report


def reference_rater(by_rater: dict[str, list[JudgeVerdict]], rater: str | None) -> str | None:
    """Whose votes the judges are compared with where several people voted: ``rater``, or
    the first to vote when ``rater`` has not; None with one rater (all votes are theirs)."""
    if len(by_rater) < 2:
        return None
    return rater if rater in by_rater else next(iter(by_rater))


def compare(
    rater_verdicts: Sequence[JudgeVerdict],
    judged: Sequence[tuple[judge_store.JudgeSummary, Sequence[JudgeVerdict]]],
    described: Family,
    family: str,
    *,
    seed: int = SEED,
) -> dict[str, Any]:
    """`judges_report` of the rater's verdicts and each judge's (its summary, its verdicts)."""
    orders = item_orders(rater_verdicts)
    rater = answers_of(rater_verdicts, orders)
    answers = {s.judge: answers_of(v, orders) for s, v in judged}
    items = sorted(set(rater.by_item).union(*(a.by_item for a in answers.values())))
    table = [
        [a.by_item.get(i, math.nan) for i in items]
        for a in (rater, *(answers[s.judge] for s, _ in judged))
    ]
    alpha = fit.krippendorff_alpha(table, rng=seed) if judged and items else None
    every = {v.case_id for v in rater_verdicts}.union(*({v.case_id for v in j} for _, j in judged))
    index = {s: i for i, s in enumerate(described.systems)}
    cases = {case: i for i, case in enumerate(sorted(every))}
    rater_votes = _votes(rater_verdicts, index, cases)
    shown = {RATER: rater_votes} if rater_verdicts else {}
    votes = [_votes(v, index, cases) for _, v in judged]
    shown |= {s.judge: c for (s, v), c in zip(judged, votes, strict=True) if v}
    chosen = _anchor(described, shown)
    anchor = None if chosen is None else index[chosen["system"]]
    rater_board: list[dict[str, Any]] = []
    on: dict[str, int | None] = {}  # each board shown: the anchor it is on
    if rater_verdicts:
        rater_board, on[RATER] = _board(rater_votes, described, anchor, seed)
    boards = _Boards(described, index, cases, rater_votes, anchor, rater_board)
    # Each judge's τ from the seed's own stream, as if alone; the rater's refits made once.
    taus = fit.board_taus(
        rater_votes,
        votes,
        n_systems=len(described.systems),
        penalty=fit.DEFAULT_PENALTY,
        rng=[seed, TAU_STREAM],
    )
    rows = []
    for (s, v), judge_votes, tau in zip(judged, votes, taus, strict=True):
        row, on[s.judge] = _judge_row(s, v, answers[s.judge], rater, boards, seed, judge_votes, tau)
        rows.append(row)
    if chosen is not None:
        chosen["elsewhere"] = [
            {"board": name, **_system(described, used)}
            for name, used in on.items()
            if used is not None and used != anchor
        ]
    return {
        "family": family,
        "seed": seed,
        "rater": {"verdicts": len(rater_verdicts), "items": len(rater.by_item)},
        "anchor": chosen,
        "rater_board": rater_board,
        "judges": rows,
        "alpha": figure(alpha) if alpha else None,
    }


RATER = "rater"  # the rater's board among the boards shown (no judge is called so)
# The kind of a row of another rater of the board, listed beside the judges.
RATER_KIND = "rater"


def _anchor(family: Family, shown: dict[str, Any]) -> dict[str, Any] | None:
    """The one anchor of the boards ``shown`` (name: its votes, for those with votes), and
    how it was chosen. First choice: the family's reference, else the system with the most
    of the rater's votes (without any, of all the boards' verdicts), as a round chooses.
    Where a board has no comparison of it, the system with the most of them among those
    every board compares; where none is compared on every board, the first choice (else
    the most voted), and a board without it is fitted on its own most compared system."""
    if not shown:
        return None
    n = len(family.systems)
    compared = {
        name: np.bincount(v.a, minlength=n) + np.bincount(v.b, minlength=n)
        for name, v in shown.items()
    }
    weight = compared[RATER] if RATER in compared else np.sum(list(compared.values()), axis=0)
    on_every = np.logical_and.reduce([c > 0 for c in compared.values()])
    ref = family.systems.index(family.reference) if family.reference in family.systems else None
    # Ties: the first in board order, as fit_points chooses.
    first = ref if ref is not None else int(np.argmax(weight))
    passed_over = None
    if on_every[first]:
        chosen, how = first, "reference" if first == ref else "most_compared"
    else:
        lacking = [name for name, c in compared.items() if c[first] == 0]
        passed_over = {**_system(family, first), "boards": lacking}
        if on_every.any():
            chosen, how = int(np.argmax(np.where(on_every, weight, -1))), "most_compared_shared"
        else:
            chosen = first if weight[first] > 0 else int(np.argmax(weight))
            how = "not_shared"
    return {
        **_system(family, chosen),
        "chosen": how,
        "by": RATER if RATER in shown else "verdicts",
        "passed_over": passed_over,
        "elsewhere": [],
    }


def _system(family: Family, i: int) -> dict[str, str]:
    system = family.systems[i]
    return {"system": system, "label": family.labels[system]}


def coded_answers(
    ledger: Ledger, family: str, rater: str | None = None
) -> dict[str, list[tuple[Item, int, bool]]]:
    """Each answer of the rater (key ``rater``, first; where several people voted, the
    reference `judges_report` compares with) and of each judge, coded as `judges_report`
    codes it: (item, answer on the item's order, shown in that order)."""
    by_rater = judge_store.verdicts_by_rater(ledger, family)
    reference = reference_rater(by_rater, rater)
    votes = by_rater[reference] if reference else judge_store.rater_verdicts(ledger, family)
    orders = item_orders(votes)
    coded = {"rater": [coded_answer(v, orders) for v in votes]}
    for verdict in judge_store.verdicts(ledger, family):
        coded.setdefault(verdict.judge, []).append(coded_answer(verdict, orders))
    return coded
