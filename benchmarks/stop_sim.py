"""Whether the window's "the order is unlikely to change" can be trusted, regime by regime.

    python benchmarks/stop_sim.py --regime default --runs 200
    python benchmarks/stop_sim.py --regime near-ties --systems 8 --runs 200 --json

Each run draws a family of ``--regime`` (``benchmarks/regimes.py``) and votes one pair at
a time through the real scheduler (``scheduler_sim.Scheduled``, ``--pairs`` adaptive by
default), asking it after every vote whether the order has settled
(``LiveScheduler.order_settled``, what the window shows). When the suggestion first
appears, after ``V`` votes, the board is fitted as a round fits it; the run goes on to
``2V`` votes and fits it again. The suggestion was wrong if the two orders differ by
Kendall tau < 0.9. Printed per regime: how often it was wrong (target at most 5%), how
often it appeared before every system pair had a vote (target never), the median votes
at which it appeared beside the median votes the fitted order needed to reach tau >= 0.9
against the true order, and how far off the estimate of the votes left
(``LiveScheduler.votes_to_settle``, the status bar's "about N more votes"), made when
every system pair first has a vote, was: the median and the 10th-90th percentiles of
the votes it took over the votes estimated. Only a run in which the suggestion appeared by
half the cap can be checked (``appeared``); those in which it appeared later
(``appeared_late``) or not at all cannot be wrong and are counted apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import scipy.stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from regimes import REGIMES, add_argument  # noqa: E402
from scheduler_sim import TARGET_TAU, Scheduled, board, count  # noqa: E402

from fitting import simulate as sim  # noqa: E402


def one_run(n: int, run: int, cases: int, cap: int, regime: str, pairs: str) -> dict:
    rng = np.random.default_rng([run, n])
    kind = REGIMES[regime]
    systems = kind.systems(n, rng)
    family = kind.family(systems, cases, rng)
    rater = sim.SimulatedRater(family, sim.RaterTraits(), rng=np.random.default_rng([run, n, 7]))
    chooser = Scheduled(n, cases, run, pairs)
    scheduler = chooser.scheduler
    truth = systems.strengths
    check = max(5, n // 2)
    wins = np.zeros((n, n))
    stop_at = tau_votes = covered_at = guessed = None
    order_then = None
    early = wrong = False
    for votes in range(1, cap + 1):
        case, left, right = chooser.next()
        choice = rater.choose(case, left, right)
        chooser.voted(choice)
        count(wins, left, right, choice)
        if stop_at is None:
            if guessed is None:
                estimate = scheduler.votes_to_settle()
                if estimate is not None:
                    covered_at, guessed = votes, votes + estimate
            if scheduler.order_settled():
                stop_at, order_then = votes, board(wins)
                off_diagonal = ~np.eye(n, dtype=bool)
                early = not bool(np.all((wins + wins.T)[off_diagonal] > 0))
        if tau_votes is None and votes % check == 0:
            if scipy.stats.kendalltau(board(wins), truth)[0] >= TARGET_TAU:
                tau_votes = votes
        if stop_at is not None and votes == 2 * stop_at:
            wrong = bool(scipy.stats.kendalltau(order_then, board(wins))[0] < TARGET_TAU)
        if stop_at is not None and votes >= 2 * stop_at and tau_votes is not None:
            break
    return {
        "stop_at": stop_at,
        "wrong": wrong,
        "early": early,
        "tau_votes": tau_votes,
        "covered_at": covered_at,
        "guessed": guessed,
        # Whether the run reached twice the votes the suggestion appeared at.
        "checked": stop_at is not None and 2 * stop_at <= cap,
    }


def _job(args: tuple[int, int, int, int, str, str]) -> dict:
    return one_run(*args)


def summary(runs: list[dict], cap: int) -> dict:
    appeared = [r for r in runs if r["checked"]]
    stops = np.array([r["stop_at"] for r in appeared], dtype=float)
    needed = np.array([r["tau_votes"] or cap for r in runs], dtype=float)
    guessed = [r for r in appeared if r["guessed"] is not None and r["guessed"] > r["covered_at"]]
    ratio = np.array(
        [(r["stop_at"] - r["covered_at"]) / (r["guessed"] - r["covered_at"]) for r in guessed]
    )
    return {
        "runs": len(runs),
        "appeared": len(appeared),
        # Appeared after half the cap: too late to vote twice its votes, so not checked.
        "appeared_late": sum(r["stop_at"] is not None and not r["checked"] for r in runs),
        "wrong": sum(r["wrong"] for r in appeared),
        "wrong_share": sum(r["wrong"] for r in appeared) / max(len(appeared), 1),
        "before_coverage": sum(r["early"] for r in appeared),
        "stop_votes_median": float(np.median(stops)) if stops.size else None,
        "tau_votes_median": float(np.median(needed)),
        "tau_at_cap": int(sum(r["tau_votes"] is None for r in runs)),
        "estimate_ratio_median": float(np.median(ratio)) if ratio.size else None,
        "estimate_ratio_p10_p90": [float(np.percentile(ratio, q)) for q in (10, 90)]
        if ratio.size
        else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--pairs", choices=("adaptive", "coverage"), default="adaptive")
    parser.add_argument("--cap", type=int, default=100, help="votes per system pair, at most")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    add_argument(parser)
    args = parser.parse_args(argv)
    n = args.systems
    cap = args.cap * n * (n - 1) // 2
    cases = 3 * args.cap
    jobs = [(n, run, cases, cap, args.regime, args.pairs) for run in range(args.runs)]
    with ProcessPoolExecutor(args.workers) as pool:
        runs = list(pool.map(_job, jobs))
    found = {"regime": args.regime, "systems": n, "pairs": args.pairs, "cap": cap}
    found.update(summary(runs, cap))
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    print(
        f"{args.regime}, {n} systems, {args.pairs}, {found['runs']} runs (cap {cap} votes): "
        f"the suggestion appeared in {found['appeared']} by half the cap (and in "
        f"{found['appeared_late']} after it, not checked), wrong in {found['wrong']} "
        f"({100 * found['wrong_share']:.1f}%, target <= 5%), before every system pair had a "
        f"vote in {found['before_coverage']}; median votes when it appeared "
        f"{found['stop_votes_median']}, to tau >= 0.9 against the truth "
        f"{found['tau_votes_median']:.0f}; votes it took / votes estimated at coverage: "
        f"median {found['estimate_ratio_median']}, 10-90% {found['estimate_ratio_p10_p90']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
