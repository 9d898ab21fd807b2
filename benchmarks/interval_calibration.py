"""Coverage of voted boards' 95% intervals in simulation, regime by regime.

    python benchmarks/interval_calibration.py                  # every regime, 1,000 rounds each
    python benchmarks/interval_calibration.py --rounds 200     # quicker
    python benchmarks/interval_calibration.py --only 8x252 --variant settled   # some regimes
    python benchmarks/interval_calibration.py --pairs adaptive --only 8x1000 --variant plain \
        --regime near-ties                                     # the real scheduler, adaptive

Each regime fixes the systems (true strengths N(0, 1) logits, gate failure rates,
typical lengths) and the rater (ties, both bad, 10% of choices at random, case
difficulty, samples whose quality varies around their system's, and in the "biased"
variant a lean to the left side and to the longer output). Each simulated round draws
new cases, settles what the rules settle, lets a coverage-first scheduler pick the
votes (``fitting.simulate.simulate_votes``), and computes the intervals exactly as a
round close does (``arena.rounds.uncertainty``: the case bootstrap, 200 resamples,
Student-t with the Rao–Wu rescaling), after the same check of the round's regime
against the calibrated region: a round outside it shows no interval and is counted
apart ("shown").

The truth each interval should cover is what this rater's fit estimates: the points
the round's fit gives when every compared pair's outcome is its expected value over
the population of cases (its votes per system pair as drawn, its settled comparisons
as expected per case, the same penalty, anchor and total weight), worked out from
``population_cases`` fresh cases per regime. It is not the planted strengths: ties,
random choices, hard cases and gate verdicts shrink every fit toward the middle, and
an interval can only speak for what the votes measure.

``--pairs coverage|adaptive`` has the real scheduler (``arena.pairs.scheduling``) pick
the votes one at a time instead, each answered before the next is chosen: under adaptive
choice the votes depend on the answers before them, which the intervals must survive.
``--regime`` draws the systems and outputs of ``benchmarks/regimes.py`` (default: as above).

Prints one line per regime: coverage (over every ranked system but the anchor, in the
rounds shown), its standard error (from the per-round coverages), the median interval
width, the share of rounds shown, and the median settled share. Exits 1 if a regime
inside the region covers less than 93% or more than 97%.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# The repository, and this folder for its neighbours (a test imports this module).
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from regimes import REGIMES, add_argument  # noqa: E402
from scheduler_sim import Scheduled  # noqa: E402

from arena.rounds import uncertainty  # noqa: E402
from fitting import bootstrap_points, fit_points  # noqa: E402
from fitting import simulate as sim  # noqa: E402

RATER = {"tie": 0.05, "both_bad": 0.03, "inconsistency": 0.1, "memory": 0.3}
VARIANTS = {
    "plain": {"settle_share": 0.0, "samples": 1, "side_bias": 0.0, "length_preference": 0.0},
    "settled": {"settle_share": 0.2, "samples": 2, "side_bias": 0.0, "length_preference": 0.0},
    "biased": {"settle_share": 0.0, "samples": 1, "side_bias": 0.4, "length_preference": 1.5},
}
# (systems, votes): the region's lower edge (60 votes on every system: as many votes on
# each system pair as that takes) and above it;
# and, run plain only, a regime below the edge, to show why the edge is there.
INSIDE = [
    (3, 90),
    (3, 500),
    (3, 5000),
    (8, 252),
    (8, 1000),
    (8, 5000),
    (20, 760),
    (20, 2000),
    (20, 10000),
    (50, 2450),
    (50, 5000),
]
BELOW = [(3, 20), (3, 60), (8, 100), (8, 168), (20, 200), (20, 420), (50, 500), (50, 1300)]


@dataclass(frozen=True)
class Regime:
    systems: int
    votes: int
    variant: str

    @property
    def name(self) -> str:
        return f"{self.systems}x{self.votes} {self.variant}"


def regimes() -> list[Regime]:
    found = [Regime(n, v, variant) for n, v in INSIDE for variant in VARIANTS]
    return found + [Regime(n, v, "plain") for n, v in BELOW]


def _population(family: sim.SimulatedFamily, rater: sim.RaterTraits) -> tuple[np.ndarray, ...]:
    """Per ordered system pair: expected score of a vote (sides averaged, as the
    scheduler balances them) and expected settled wins per case."""
    n, s = family.systems.n_systems, family.samples
    settled, pending = sim.settled_pairs(family)
    c, oa, ob = pending.T
    balanced = sim.balanced_expected_y(family, rater, c, oa, ob)
    code = (oa // s) * n + ob // s
    count = np.bincount(code, minlength=n * n)
    score = np.bincount(code, weights=balanced, minlength=n * n)
    expected = (score / np.maximum(count, 1)).reshape(n, n)
    expected = np.triu(expected, 1) + np.tril(1.0 - expected.T, -1)
    wins = np.bincount(
        settled.a * n + settled.b, weights=settled.w * settled.y, minlength=n * n
    ) + np.bincount(settled.b * n + settled.a, weights=settled.w * (1 - settled.y), minlength=n * n)
    return expected, wins.reshape(n, n) / family.n_cases


def _truth(expected: np.ndarray, settled: np.ndarray, pairs: np.ndarray, cases: int) -> np.ndarray:
    """The fit to expected outcomes (weights: the round's votes per pair, its cases)."""
    n = expected.shape[0]
    wins = pairs * expected + cases * settled
    a, b = np.nonzero(wins > 0)
    fitted = fit_points(a, b, np.ones(a.size), wins[a, b], n_systems=n, anchor=0)
    return fitted.points


def scheduled_votes(
    family: sim.SimulatedFamily,
    rater: sim.RaterTraits,
    n_votes: int,
    *,
    rng: np.random.Generator,
    pending: np.ndarray,
    pair_choice: str,
) -> sim.SimulatedVotes:
    """``n_votes`` votes on the pending pairs chosen by the real scheduler (``pair_choice``),
    answered one at a time; the fields a calibration reads (no repeats)."""
    n, s = family.systems.n_systems, family.samples
    seed = int(rng.integers(2**31))
    chooser = Scheduled(n, family.n_cases, seed, pair_choice, pending=pending, samples=s)
    answers = sim.SimulatedRater(family, rater, rng=rng)
    for _ in range(min(n_votes, pending.shape[0])):
        case, left, right = chooser.next()
        chooser.voted(answers.choose(case, left, right))
    shown = np.array(answers.answers, dtype=np.intp).reshape(-1, 4)
    case, left, right, choice = shown.T
    empty = np.zeros(0, dtype=np.intp)
    return sim.SimulatedVotes(
        case=case,
        left=left,
        right=right,
        a=left // s,
        b=right // s,
        choice=choice.astype(np.int8),
        y=np.array([1.0, 0.0, 0.5, 0.5])[choice],
        len_a=family.length[case, left],
        len_b=family.length[case, right],
        session=np.ones(case.size, dtype=np.int64),
        repeat_of=empty,
        repeat_choice=empty.astype(np.int8),
    )


def run_regime(args: tuple[Regime, int, int, str, str]) -> dict:
    regime, rounds, seed, pair_choice, strengths = args
    variant = VARIANTS[regime.variant]
    n, samples, settle = regime.systems, variant["samples"], variant["settle_share"]
    rng = np.random.default_rng([seed, n, regime.votes, list(VARIANTS).index(regime.variant)])
    kind = REGIMES[strengths]
    systems = kind.systems(n, rng, settle_share=settle)
    rater = sim.RaterTraits(
        **RATER, side_bias=variant["side_bias"], length_preference=variant["length_preference"]
    )
    per_case = (n * samples) * (n * samples - 1) // 2 - n * samples * (samples - 1) // 2
    population_cases = max(400, 1_000_000 // per_case)
    expected, settled = _population(
        kind.family(systems, population_cases, rng, samples=samples, identical_share=0.01),
        rater,
    )
    cases = max(40, math.ceil(1.5 * regime.votes / (per_case * (1 - settle))))
    started = time.perf_counter()
    hits, counts, widths, shares, shown = [], [], [], [], 0
    for _ in range(rounds):
        family = kind.family(systems, cases, rng, samples=samples, identical_share=0.01)
        done, pending = sim.settled_pairs(family)
        if pair_choice == "simulated":
            votes = sim.simulate_votes(family, rater, regime.votes, rng=rng, pending=pending)
        else:
            votes = scheduled_votes(
                family, rater, regime.votes, rng=rng, pending=pending, pair_choice=pair_choice
            )
        a = np.concatenate([votes.a, done.a])
        b = np.concatenate([votes.b, done.b])
        y = np.concatenate([votes.y, done.y])
        w = np.concatenate([np.ones(votes.y.size), done.w])
        case = np.concatenate([votes.case, done.case])
        on = np.bincount(votes.a, minlength=n) + np.bincount(votes.b, minlength=n)
        share = float(done.w.sum() / w.sum())
        shares.append(share)
        check = uncertainty.Regime(
            systems=n,
            votes=int(votes.y.size),
            votes_per_system=int(on.min()),
            cases=int(np.unique(case).size),
            settled_share=share,
            penalty=uncertainty.CALIBRATED.penalty,
            unit_weights=True,
        )
        if uncertainty.outside(check) is not None:
            continue
        shown += 1
        found = bootstrap_points(
            a,
            b,
            y,
            w,
            cluster=case,
            n_systems=n,
            rng=rng,
            anchor=0,
            n_resamples=uncertainty.RESAMPLES,
            confidence_level=uncertainty.CONFIDENCE,
        )
        pairs = np.zeros((n, n))
        np.add.at(pairs, (np.minimum(votes.a, votes.b), np.maximum(votes.a, votes.b)), 1.0)
        truth = _truth(expected, settled, pairs + pairs.T, cases)
        rows = np.isfinite(found.low)
        rows[0] = False  # the anchor: [base, base] by definition
        inside = (truth[rows] >= found.low[rows]) & (truth[rows] <= found.high[rows])
        hits.append(int(inside.sum()))
        counts.append(int(rows.sum()))
        widths.append(float(np.median(found.high[rows] - found.low[rows])))
    per_round = np.array(hits) / np.maximum(np.array(counts), 1)
    coverage = float(np.sum(hits) / max(np.sum(counts), 1)) if counts else math.nan
    return {
        "regime": regime.name,
        "strengths": strengths,
        "pairs": pair_choice,
        "systems": n,
        "votes": regime.votes,
        "variant": regime.variant,
        "cases": cases,
        "inside": (n, regime.votes) in INSIDE,
        "rounds": rounds,
        "shown": shown,
        "coverage": coverage,
        "se": float(np.std(per_round) / math.sqrt(len(per_round))) if counts else math.nan,
        "width": float(np.median(widths)) if widths else math.nan,
        "settled_share": float(np.median(shares)),
        "seconds": time.perf_counter() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", help="comma-separated systems x votes, e.g. 8x168,20x420")
    parser.add_argument("--variant", choices=list(VARIANTS), help="only this variant")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--pairs",
        choices=("simulated", "coverage", "adaptive"),
        default="simulated",
        help="who picks the votes: the vectorised coverage-first stand-in "
        "(fitting.simulate.simulate_votes) or the real scheduler, either way",
    )
    add_argument(parser)
    args = parser.parse_args(argv)
    todo = regimes()
    if args.only:
        wanted = set(args.only.split(","))
        todo = [r for r in todo if f"{r.systems}x{r.votes}" in wanted]
    if args.variant:
        todo = [r for r in todo if r.variant == args.variant]
    jobs = [(r, args.rounds, args.seed, args.pairs, args.regime) for r in todo]
    # The slowest (50 systems) first, so two workers finish together.
    jobs.sort(key=lambda job: -job[0].systems * job[0].votes)
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(run_regime, jobs, chunksize=1)
    results.sort(key=lambda r: (not r["inside"], r["systems"], r["votes"], r["variant"]))
    print(f"pairs: {args.pairs}, strengths: {args.regime}, {args.rounds} rounds per regime")
    print(
        "| regime | cases | settled share | rounds shown | coverage | ± se | "
        "median width (points) | s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    failed = []
    for r in results:
        where = "" if r["inside"] else " (below the region)"
        print(
            f"| {r['regime']}{where} | {r['cases']} | {r['settled_share']:.2f} | "
            f"{r['shown']}/{r['rounds']} | {100 * r['coverage']:.1f}% | "
            f"{100 * r['se']:.1f} | {r['width']:.0f} | {r['seconds']:.0f} |"
        )
        if r["inside"] and r["shown"] and not 0.93 <= r["coverage"] <= 0.97:
            failed.append(r["regime"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if failed:
        print("outside 93–97%: " + ", ".join(failed))
        return 1
    print("every regime inside the region covers 93–97%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
