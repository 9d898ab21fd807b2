"""Do the judges page's 95% intervals hold what each figure estimates?

A simulated rater and judge answer the same items (one pair of systems on one case each).
The rater sees each item once; the judge sees it in both orders and has planted traits: its
own strengths (two pairs of neighbours swapped), a lean toward the system shown first and a
lean toward the longer answer. Both share each item's own quality difference, so they agree
more than their strengths alone would make them.

Each figure's *planted value* is what the figure estimates under this process: the ratio of
the expected counts for the shares (agreement with ties is P(judge's answer = rater's
answer), first-position preference is E[answers for the first shown] / E[decisive
answers], ...), κ and α from the expected table of answers, and for the length bias, the
boards and τ the estimator fitted to the expected answers of 200,000 items (the value it
tends to with ever more cases). A run draws ``--cases`` items, computes every figure as
`arena judges show` does (``arena.judges.comparison.compare``) and checks whether each
interval holds its planted value.

    .venv/bin/python benchmarks/judge_calibration.py --runs 500 [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import fit  # noqa: E402
from arena.judges.comparison import Family, compare  # noqa: E402
from arena.ledger.judge_store import JudgeSummary, JudgeVerdict  # noqa: E402

SYSTEMS = tuple(f"s{i}" for i in range(6))
RATER_STRENGTHS = np.linspace(-1.5, 1.5, 6)
JUDGE_STRENGTHS = RATER_STRENGTHS[[0, 2, 1, 4, 3, 5]]
LOG_LENGTHS = np.log(800.0) + np.array([0.3, -0.2, 0.1, 0.4, -0.3, 0.0])


@dataclass(frozen=True)
class Traits:
    """The process: ties of each, the judge's leans (logits), the items' own spread."""

    rater_tie: float = 0.12
    judge_tie: float = 0.08
    first_lean: float = 0.5  # toward the system shown first (left)
    length_lean: float = 3.0  # per unit of (len_left - len_right) / (len_left + len_right)
    item_spread: float = 2.0  # sd of an item's quality difference beyond the strengths
    length_spread: float = 0.4  # sd of an answer's log length around its system's


@dataclass(frozen=True)
class Items:
    first: np.ndarray  # the system the rater saw left (the item's first)
    second: np.ndarray
    len_first: np.ndarray
    len_second: np.ndarray
    rater: np.ndarray  # (m, 3): P(first better), P(tie), P(second better)
    in_order: np.ndarray  # the judge with the first shown left, coded the same way
    swapped: np.ndarray  # the judge with the second shown left, coded the same way


def _sigma(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _answers(tie: float, first_wins: np.ndarray) -> np.ndarray:
    return np.stack([(1 - tie) * first_wins, np.full_like(first_wins, tie),
                     (1 - tie) * (1 - first_wins)], axis=1)  # fmt: skip


def draw_items(rng: np.random.Generator, m: int, t: Traits) -> Items:
    """``m`` items and every answer's probabilities."""
    first = rng.integers(0, len(SYSTEMS), m)
    pairs = np.stack([first, (first + rng.integers(1, len(SYSTEMS), m)) % len(SYSTEMS)], axis=1)
    first, second = pairs[:, 0], pairs[:, 1]
    own = rng.normal(0.0, t.item_spread, m)
    lengths = np.rint(np.exp(LOG_LENGTHS[pairs] + rng.normal(0.0, t.length_spread, (m, 2))))
    d = (lengths[:, 0] - lengths[:, 1]) / lengths.sum(axis=1)
    rater = _sigma(RATER_STRENGTHS[first] - RATER_STRENGTHS[second] + own)
    judged = JUDGE_STRENGTHS[first] - JUDGE_STRENGTHS[second] + own
    in_order = _sigma(judged + t.first_lean + t.length_lean * d)
    swapped = 1 - _sigma(-judged + t.first_lean - t.length_lean * d)  # the first shown right
    return Items(
        first, second, lengths[:, 0], lengths[:, 1],
        _answers(t.rater_tie, rater), _answers(t.judge_tie, in_order),
        _answers(t.judge_tie, swapped),
    )  # fmt: skip


def _combined(items: Items) -> np.ndarray:
    """The judge's one answer on an item: alike in both orders, else a tie."""
    first = items.in_order[:, 0] * items.swapped[:, 0]
    second = items.in_order[:, 2] * items.swapped[:, 2]
    return np.stack([first, 1 - first - second, second], axis=1)


def _alpha(rater: np.ndarray, judge: np.ndarray) -> float:
    """Ordinal α of two coders as the items grow without end: 1 - 2 Σ o δ / Σ n_c n_k δ
    with o the expected coincidences per item and n their margins."""
    o = (rater[:, :, None] * judge[:, None, :] + judge[:, :, None] * rater[:, None, :]).mean(0)
    n = o.sum(axis=1)
    delta = np.zeros((3, 3))
    for c in range(3):
        for k in range(3):
            lo, hi = min(c, k), max(c, k)
            delta[c, k] = (n[lo : hi + 1].sum() - (n[c] + n[k]) / 2) ** 2
    return float(1 - 2 * (o * delta).sum() / (np.outer(n, n) * delta).sum())


def _expected(items: Items, judge: bool) -> dict[str, np.ndarray]:
    """Every answer as three comparisons (left won, tie, right won) weighted by its chance,
    the systems as shown."""
    if judge:
        shown = [(items.first, items.second, items.len_first, items.len_second,
                  items.in_order[:, [0, 1, 2]]),
                 (items.second, items.first, items.len_second, items.len_first,
                  items.swapped[:, [2, 1, 0]])]  # fmt: skip
    else:
        shown = [(items.first, items.second, items.len_first, items.len_second, items.rater)]
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("a", "b", "y", "w", "la", "lb")}
    for a, b, la, lb, p in shown:
        for column, y in enumerate((1.0, 0.5, 0.0)):
            for key, value in zip(
                parts, (a, b, np.full(a.size, y), p[:, column], la, lb), strict=True
            ):
                parts[key].append(value)
    return {k: np.concatenate(v) for k, v in parts.items()}


def planted(t: Traits, rng: np.random.Generator, m: int = 200_000) -> dict[str, object]:
    """Each figure's value under the process (see the module's notes)."""
    items = draw_items(rng, m, t)
    r, j = items.rater, _combined(items)
    p1, p2 = items.in_order, items.swapped
    same = (r * j).sum(axis=1)
    po = same.mean()
    pe = float((r.mean(axis=0) * j.mean(axis=0)).sum())
    boards = {}
    for name, judge in (("rater", False), ("judge", True)):
        e = _expected(items, judge)
        found = fit.fit_points(e["a"], e["b"], e["y"], e["w"], n_systems=len(SYSTEMS), anchor=0)
        boards[name] = found.points
    length = fit.length_bias(
        e["a"], e["b"], e["y"], e["la"], e["lb"], e["w"], n_systems=len(SYSTEMS)
    ).points_per_sd
    tau = _tau(boards["rater"], boards["judge"])
    return {
        "agreement_with_ties": float(po),
        "agreement_without_ties": float(
            (r[:, 0] * j[:, 0] + r[:, 2] * j[:, 2]).mean() / ((1 - r[:, 1]) * (1 - j[:, 1])).mean()
        ),
        "kappa": float((po - pe) / (1 - pe)),
        "position_consistency": float((p1 * p2).sum(axis=1).mean()),
        "first_position_preference": float(
            (p1[:, 0] + p2[:, 2]).mean() / ((1 - p1[:, 1]) + (1 - p2[:, 1])).mean()
        ),
        "alpha": _alpha(r, j),
        "length_bias": float(length),
        "board_tau": tau,
        "board": boards["judge"].tolist(),
        "rater_board": boards["rater"].tolist(),
    }


def _tau(x: np.ndarray, z: np.ndarray) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(x, z).statistic)


def _pick(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """An answer per row of probabilities (first better, tie, second better): 0, 1, 2."""
    return (u[:, None] >= np.cumsum(p, axis=1)[:, :2]).sum(axis=1)


def run(t: Traits, cases: int, seed: int) -> dict[str, object]:
    """One simulated family through `compare`: the report `arena judges show` prints."""
    rng = np.random.default_rng([seed, 1])
    items = draw_items(rng, cases, t)
    on_first = ("left", "tie", "right")  # an answer coded on the item, the first shown left
    on_second = ("right", "tie", "left")  # the same with the second shown left
    rater, judge, lengths = [], [], {}
    for k, (f, s) in enumerate(zip(items.first.tolist(), items.second.tolist(), strict=True)):
        case = f"c{k:05d}"
        lengths[case, SYSTEMS[f]] = int(items.len_first[k])
        lengths[case, SYSTEMS[s]] = int(items.len_second[k])
        answers = [_pick(p[k : k + 1], rng.random(1))[0] for p in
                   (items.rater, items.in_order, items.swapped)]  # fmt: skip
        rater.append(JudgeVerdict("rater", case, SYSTEMS[f], SYSTEMS[s], on_first[answers[0]], 1))
        judge.append(JudgeVerdict("sim", case, SYSTEMS[f], SYSTEMS[s], on_first[answers[1]], 1))
        judge.append(JudgeVerdict("sim", case, SYSTEMS[s], SYSTEMS[f], on_second[answers[2]], 2))
    family = Family(SYSTEMS, {s: s for s in SYSTEMS}, SYSTEMS[0], lengths)
    summary = JudgeSummary("sim", "model", len(judge), ())
    report = compare(rater, [(summary, judge)], family, "sim", seed=seed)
    votes = [
        fit.CaseComparisons.of(
            [SYSTEMS.index(v.left_system) for v in verdicts],
            [SYSTEMS.index(v.right_system) for v in verdicts],
            [{"left": 1.0, "tie": 0.5, "right": 0.0}[v.winner] for v in verdicts],
            [int(v.case_id[1:]) for v in verdicts],
        )
        for verdicts in (rater, judge)
    ]
    # τ's intervals whether the page shows them or not: BCa (the page's, same stream) and
    # the plain percentile interval.
    for method in ("bca", "percentile"):
        report[f"{method}_tau"] = fit.board_tau(
            *votes, n_systems=len(SYSTEMS), rng=np.random.default_rng([seed, 3]), method=method
        )
    return report


FIGURES = (
    "agreement_with_ties", "agreement_without_ties", "kappa", "position_consistency",
    "first_position_preference", "length_bias", "board_tau",
)  # fmt: skip


def _holds(figure: dict | None, value: float) -> bool | None:
    """Whether the interval holds ``value``; None where the page shows no interval."""
    if not figure or figure["low"] is None:
        return None
    return bool(figure["low"] <= value <= figure["high"])


def _share(held: list[bool | None]) -> float | None:
    shown = [x for x in held if x is not None]
    return float(np.mean(shown)) if shown else None


def _board_holds(board: list[dict], values: list[float]) -> list[bool | None]:
    """Each system's interval but the anchor's (``[base, base]`` by definition)."""
    return [
        _holds(row["points"], values[SYSTEMS.index(row["system"])])
        for row in board
        if row["system"] != SYSTEMS[0]
    ]


def calibrate(runs: int, cases: int, t: Traits = Traits(), first: int = 0) -> dict[str, object]:
    """Coverage of each figure's interval over ``runs`` simulations (seeds ``first`` on)."""
    truth = planted(t, np.random.default_rng(20261204))
    names = (*FIGURES, "alpha", "board", "rater_board", "bca_tau", "percentile_tau")
    held: dict[str, list[bool | None]] = {name: [] for name in names}
    for seed in range(first, first + runs):
        report = run(t, cases, seed)
        row = report["judges"][0]
        for name in FIGURES:
            held[name].append(_holds(row[name], truth[name]))
        held["alpha"].append(_holds(report["alpha"], truth["alpha"]))
        held["board"] += _board_holds(row["board"], truth["board"])
        held["rater_board"] += _board_holds(report["rater_board"], truth["rater_board"])
        for name in ("bca_tau", "percentile_tau"):
            tau = report[name]
            held[name].append(tau.low <= truth["board_tau"] <= tau.high)
    return {
        "runs": runs,
        "cases": cases,
        "traits": t.__dict__,
        "planted": truth,
        # Of the intervals shown; ``intervals`` counts them, ``figures`` every value.
        "coverage": {name: _share(h) for name, h in held.items()},
        "intervals": {name: sum(x is not None for x in h) for name, h in held.items()},
        "figures": {name: len(h) for name, h in held.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500, help="simulations (default 500)")
    parser.add_argument("--cases", type=int, default=600, help="items per simulation")
    parser.add_argument("--first", type=int, default=0, help="the first run's seed")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = calibrate(args.runs, args.cases, first=args.first)
    result["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.runs} runs of {args.cases} items ({result['seconds']} s)")
    planted_value = result["planted"]
    for name, share in result["coverage"].items():
        if share is None:
            print(f"{name:28} no interval shown")
            continue
        value = planted_value.get("board_tau" if name.endswith("_tau") else name)
        shown = f"{value:.4f}" if isinstance(value, float) else "each system"
        mark = "" if 0.93 <= share <= 0.97 else "  outside 93–97%"
        count, figures = result["intervals"][name], result["figures"][name]
        print(
            f"{name:28} planted {shown:>12}  covered {100 * share:5.1f}% of {count} intervals "
            f"({figures} figures){mark}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
