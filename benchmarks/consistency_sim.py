"""Whether rater agreement and split-half tau read the same under adaptive choice as under
coverage-first.

    python benchmarks/consistency_sim.py                        # the three regimes, 200 rounds
    python benchmarks/consistency_sim.py --regime wide --rounds 50

Votes chosen by earlier votes change what the round's statistics see. Each round draws a
family of the regime (``benchmarks/regimes.py``) and a simulated rater who answers a fifth
of the time at random, remembers nothing, and votes ``--votes`` pairs through the real
scheduler (``scheduler_sim.Scheduled``) with repeats (10% of the votes, 30 pairs later at
least), sessions of ``--session`` votes; then, as a round close does, rater agreement over
the repeats (``fitting.rater_agreement``) and split-half tau over odd and even sessions
(``fitting.split_half_tau``). The same rounds (same seeds, same families, same rater) run
once coverage-first and once adaptive.

Printed per regime and design: the mean rater agreement minus the planted one (the
chance each repeat agrees, ``fitting.simulate.agreement_probability``), and the mean
split-half tau, both in points (hundredths), the split-half tau minus the tau of two
boards of half the votes each voted on their own, and the same for the split within
sessions (odd against even votes of each session, ``arena.rounds.split_halves``); then
adaptive minus coverage-first for each (target: within 3 points, the split between
sessions; within sessions both halves share each session's steering, and it is shown
without a target).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import scipy.stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from regimes import REGIMES  # noqa: E402
from scheduler_sim import Scheduled  # noqa: E402

from arena.pairs.scheduling import RepeatPolicy  # noqa: E402
from arena.rounds.split_halves import vote_halves  # noqa: E402
from fitting import fit_points, rater_agreement, split_half_tau  # noqa: E402
from fitting import simulate as sim  # noqa: E402

TRAITS = sim.RaterTraits(inconsistency=0.2)
CHOICES = ("left", "right", "tie", "both_bad")
SCORE = {"left": 1.0, "right": 0.0, "tie": 0.5, "both_bad": 0.5}


def board(
    regime: str,
    pairs: str,
    n: int,
    votes: int,
    session_votes: int,
    seed: list[int],
    family_seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """``votes`` votes on a family drawn from ``family_seed`` (the same systems and cases
    for every board of a round), rater and scheduler seeded by ``seed``: the first votes'
    (a, b, y, session) and rater agreement minus the planted one."""
    rng = np.random.default_rng([family_seed, n, 11])
    kind = REGIMES[regime]
    systems = kind.systems(n, rng)
    cases = 3 * votes // (n * (n - 1) // 2)
    family = kind.family(systems, cases, rng)
    rater = sim.SimulatedRater(family, TRAITS, rng=np.random.default_rng([*seed, 12]))
    chooser = Scheduled(
        n,
        cases,
        seed[-1],
        pairs,
        repeats=RepeatPolicy(share=0.1, gap=30, minutes=0),
        session_votes=session_votes,
    )
    shown: dict[str, tuple[int, int, int, str, int]] = {}  # presentation: case, l, r, choice, at
    first, again, planted = [], [], []
    a, b, y, session = [], [], [], []
    for at in range(votes):
        case, left, right = chooser.next()
        choice = rater.choose(case, left, right)
        repeat_of = chooser.repeat_of
        chooser.voted(choice)
        shown[f"p{at}"] = (case, left, right, choice, at)
        if repeat_of is None:
            a.append(left)
            b.append(right)
            y.append(SCORE[choice])
            session.append(1 + at // session_votes)
            continue
        o_case, o_left, o_right, o_choice, o_at = shown[repeat_of]
        first.append(o_choice)
        again.append(choice)
        one = (np.array([x]) for x in (o_case, o_left, o_right))
        planted.append(sim.agreement_probability(family, TRAITS, *one, at - o_at)[0])
    agreement = rater_agreement(first, again).share - float(np.mean(planted))
    return np.array(a), np.array(b), np.array(y), np.array(session), agreement


def one_round(args: tuple[str, str, int, int, int, int]) -> tuple[float, ...]:
    regime, pairs, n, votes, session_votes, run = args
    a, b, y, session, agreement = board(regime, pairs, n, votes, session_votes, [run, 1], run)
    tau = split_half_tau(a, b, y, session=session, n_systems=n).tau
    within = split_half_tau(a, b, y, session=vote_halves(session), n_systems=n).tau
    # Two boards of half the votes each on their own, by the same design, same family:
    # what the split halves would agree to if neither had steered the other's votes.
    apart = []
    for replica in (2, 3):
        a, b, y, _, _ = board(regime, pairs, n, votes // 2, session_votes, [run, replica], run)
        apart.append(fit_points(a, b, y, n_systems=n).points)
    independent = scipy.stats.kendalltau(*apart)[0]
    return agreement, float(tau), float(tau - independent), float(within - independent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--regime", choices=list(REGIMES), action="append")
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--votes", type=int, default=900)
    parser.add_argument("--session", type=int, default=150, help="votes per session")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    print(
        f"{args.systems} systems, {args.votes} votes (10% repeats), sessions of "
        f"{args.session}, {args.rounds} rounds; rater: a fifth of answers at random"
    )
    print(
        "| regime | design | agreement - planted (points) | split-half tau | "
        "tau - tau of two boards of half the votes each on their own | "
        "within sessions: tau - the same |"
    )
    print("|---|---|---|---|---|---|")
    failed = False
    for regime in args.regime or list(REGIMES):
        found = {}
        for pairs in ("coverage", "adaptive"):
            jobs = [
                (regime, pairs, args.systems, args.votes, args.session, run)
                for run in range(args.rounds)
            ]
            with ProcessPoolExecutor(args.workers) as pool:
                results = np.array(list(pool.map(one_round, jobs)))
            found[pairs] = 100 * results.mean(axis=0)
            agreement, tau, excess, within = found[pairs]
            print(
                f"| {regime} | {pairs} | {agreement:+.1f} | {tau:.1f} | {excess:+.1f} | "
                f"{within:+.1f} |"
            )
        gap = found["adaptive"] - found["coverage"]
        failed |= bool(abs(gap[0]) > 3 or abs(gap[2]) > 3)
        print(
            f"| {regime} | adaptive - coverage | {gap[0]:+.1f} | {gap[1]:+.1f} | {gap[2]:+.1f} | "
            f"{gap[3]:+.1f} |",
            flush=True,
        )
    print("outside 3 points somewhere" if failed else "every difference within 3 points")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
