"""How many votes each way of choosing pairs needs before the board's order is right.

    python benchmarks/scheduler_sim.py                       # 20 systems, 200 runs
    python benchmarks/scheduler_sim.py --regime wide --json  # another regime, as JSON
    python benchmarks/scheduler_sim.py --systems 8,20,50 --runs 50
    python benchmarks/scheduler_sim.py --workers 2           # runs spread over processes
    python benchmarks/scheduler_sim.py --key-cost            # ms per key, 50 systems

Each run draws a family with ``fitting.simulate`` (by default true strengths N(0, 1)
logits, each output's quality its system's plus N(0, 0.5); ``--regime``, see
``benchmarks/regimes.py``; case difficulty, 5% ties and 3% "both bad"; one output per
system on each of ``--cases`` cases, no gates) and a simulated
rater, then votes one pair at a time, in sessions of 150 votes, chosen by:

- ``coverage``: the real scheduler (``arena.pairs.scheduling``), coverage-first;
- ``adaptive``: the real scheduler, adaptive (``arena.pairs.adaptive``): coverage
  until every system pair has a vote, then the system pair whose vote tells most
  about the order by the votes of the session's half (odd or even sessions), its ties
  and "both bad" discounted, with every promise of the coverage rule kept (no third
  pair of one system pair in a row among them);
- ``uniform``: an open pair drawn uniformly at random, sides at random;
- ``reference``: our implementation of the published method, active sampling by
  expected information gain (Mikhailiuk et al., ICPR 2020): a Thurstone model with a
  Gaussian posterior over strengths kept by assumed-density filtering (full
  covariance), each vote on the system pair of largest expected KL divergence
  between posterior and prior, on a random open case, sides at random; no coverage
  phase and none of the scheduler's promises;
- ``oracle`` (only with ``--methods``): the adaptive rule with the model's covariance
  but the true strengths as its means (rescaled to the model's means by least squares),
  one vote on every system pair first, then a random open case: what the rule could
  save if it knew the order, which no scheduler does.

Every ``check`` votes the board is fitted as a round fits it (penalized Bradley–Terry,
ties and "both bad" half to each side, the default penalty) and compared with the
true order. Printed per method: the votes until Kendall tau >= 0.9 (mean, median, and
the ratio of the mean to coverage-first's), and the votes after which the fitted top
system is the true one in 95% of runs (the 95th percentile over runs of the votes from
which it stays right), and the same for the family's own top system: the top of the
board a vote on every system pair of every case would give (``family_board``), which
on a few hundred cases need not be the true one. A run that has not got there by the
cap counts the cap.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.special
import scipy.stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from regimes import REGIMES, add_argument  # noqa: E402

from arena.pairs.scheduling import LiveScheduler, RepeatPolicy  # noqa: E402
from arena.pairs.settling import PendingPair, PendingPairs  # noqa: E402
from fitting import DEFAULT_PENALTY, information  # noqa: E402
from fitting import simulate as sim  # noqa: E402
from fitting.bradley_terry import PairwiseObjective, newton  # noqa: E402

METHODS = ("coverage", "adaptive", "uniform", "reference")
# Not run by default: the adaptive rule told the true strengths, a bound on what it can gain.
BOUNDS = ("oracle",)
TARGET_TAU = 0.9
# The top system must have stayed right over this many checks before a run ends.
TOP_CHECKS = 5
# Votes in a sitting: the simulated rater's sessions (odd and even halves).
SESSION_VOTES = 150


@dataclass(frozen=True)
class Outcome:
    tau_votes: int  # votes until Kendall tau >= 0.9 first
    top_votes: int  # votes from which the fitted top system stayed the true one
    # votes from which it stayed the family's own top (``family_board``), and whether
    # that is the true one
    family_top_votes: int
    family_top_true: bool
    seconds: float


def count(wins: np.ndarray, left: int, right: int, choice: str) -> None:
    """Add one answer to ``wins`` as a round counts it: a tie or "both bad" half each."""
    if choice == "left":
        wins[left, right] += 1
    elif choice == "right":
        wins[right, left] += 1
    else:
        wins[left, right] += 0.5
        wins[right, left] += 0.5


def board(wins: np.ndarray) -> np.ndarray:
    """The round's fit of these wins: penalized Bradley–Terry, the default penalty."""
    return newton(
        PairwiseObjective(wins, DEFAULT_PENALTY), gauge=None, tol=1e-9, max_iter=50
    ).params


def family_board(family: sim.SimulatedFamily, traits: sim.RaterTraits) -> np.ndarray:
    """The board a vote on every system pair of every case would give, each vote its
    expected outcome (sides averaged, as the scheduler balances them): what the family's
    cases can show of the order, however the votes are chosen. Each output's quality
    varies around its system's, so on a few hundred cases the two best systems can stand
    the other way round from their true strengths."""
    n = family.systems.n_systems
    first, second = np.triu_indices(n, k=1)
    case = np.repeat(np.arange(family.n_cases), first.size)
    a, b = np.tile(first, family.n_cases), np.tile(second, family.n_cases)
    y = sim.balanced_expected_y(family, traits, case, a, b)
    wins = np.zeros((n, n))
    np.add.at(wins, (a, b), y)
    np.add.at(wins, (b, a), 1.0 - y)
    return board(wins)


class Scheduled:
    """The real scheduler, fed each vote as the rating session feeds it. ``pending``: the
    pairs for the rater as rows (case, output, output), output ``o`` of system ``o //
    samples`` (default: every pair of ``n`` systems, one output each, on every case).
    The votes come in numbered sessions of ``session_votes``, as a rater's sittings do:
    adaptive choice steers each by the votes of its half (odd or even sessions) alone."""

    def __init__(
        self,
        n: int,
        cases: int,
        seed: int,
        pair_choice: str,
        *,
        pending: np.ndarray | None = None,
        samples: int = 1,
        repeats: RepeatPolicy | None = None,
        session_votes: int = SESSION_VOTES,
    ) -> None:
        if pending is None:
            first, second = np.triu_indices(n, k=1)
            pending = np.array(
                [(c, a, b) for c in range(cases) for a, b in zip(first, second, strict=True)]
            )
        outputs = range(n * samples)
        systems = {f"{c}:{o:03d}": f"s{o // samples:03d}" for c in range(cases) for o in outputs}
        self.halves: dict[str, int] = {}  # each session's half, filled as they start
        candidates = [
            PendingPair(
                str(c),
                f"{c}:{a:03d}",
                f"{c}:{b:03d}",
                systems[f"{c}:{a:03d}"],
                systems[f"{c}:{b:03d}"],
            )
            for c, a, b in pending
        ]
        self.scheduler = LiveScheduler(
            PendingPairs.of(candidates),
            systems,
            [],
            seed=seed,
            repeats=repeats or RepeatPolicy(share=0.0),
            pair_choice=pair_choice,
            halves=self.halves,
        )
        self.shown = 0
        self.session_votes = session_votes
        self.repeat_of: str | None = None  # of the pair shown last

    def next(self) -> tuple[int, int, int]:
        if self.shown % self.session_votes == 0:
            self.start_session(1 + self.shown // self.session_votes)
        planned = self.scheduler.next()
        assert planned is not None, "the family ran out of pairs: raise --cases"
        pid = f"p{self.shown}"
        self.shown += 1
        self.repeat_of = planned.repeat_of
        self.scheduler.shown(
            pid, planned.case_id, planned.left_output, planned.right_output, planned.repeat_of
        )
        self._pid = pid
        left, right = (int(o.split(":")[1]) for o in (planned.left_output, planned.right_output))
        return int(planned.case_id), left, right

    def start_session(self, number: int) -> None:
        """Votes from here on are session ``number``'s (a new rating session reads the
        family's history into the same state, in a new session)."""
        session = f"s{number}"
        self.halves[session] = number % 2
        self.scheduler.session = session

    def voted(self, choice: str) -> None:
        self.scheduler.voted(self._pid, f"v{self._pid}", choice, session_id=self.scheduler.session)


class Uniform:
    """An open (case, system pair) drawn uniformly, sides at random."""

    def __init__(self, n: int, cases: int, seed: int) -> None:
        self.rng = np.random.default_rng([seed, 1])
        first, second = np.triu_indices(n, k=1)
        self.open = [
            (c, int(a), int(b)) for c in range(cases) for a, b in zip(first, second, strict=True)
        ]

    def next(self) -> tuple[int, int, int]:
        at = int(self.rng.integers(len(self.open)))
        self.open[at], self.open[-1] = self.open[-1], self.open[at]
        case, a, b = self.open.pop()
        return (case, a, b) if self.rng.random() < 0.5 else (case, b, a)

    def voted(self, choice: str) -> None:
        pass


class InformationGainReference:
    """Active sampling by expected information gain (Mikhailiuk et al., ICPR 2020), as we
    read it: Thurstone Case V (``P(i beats j) = Phi((s_i - s_j) / beta)``), a Gaussian
    posterior with full covariance updated by assumed-density filtering after each
    decisive vote, and the next system pair the one whose outcome has the largest
    expected KL divergence from the posterior before it."""

    BETA = 1.7  # logistic sigma(x) ~ Phi(x / 1.7): the same scale as the board's logits
    PRIOR_SD = 1.5  # as the adaptive scheduler's model

    def __init__(self, n: int, cases: int, seed: int) -> None:
        self.rng = np.random.default_rng([seed, 2])
        self.mean = np.zeros(n)
        self.cov = np.eye(n) * self.PRIOR_SD**2
        self.first, self.second = np.triu_indices(n, k=1)
        self.cases_left = {
            (int(a), int(b)): list(range(cases))
            for a, b in zip(*np.triu_indices(n, 1), strict=True)
        }

    def _terms(self, sign: np.ndarray | float, first: np.ndarray, second: np.ndarray):
        cov = self.cov
        t = cov[first, first] + cov[second, second] - 2 * cov[first, second]
        s2 = t + self.BETA**2
        z = sign * (self.mean[first] - self.mean[second]) / np.sqrt(s2)
        v = np.exp(scipy.stats.norm.logpdf(z) - scipy.special.log_ndtr(z))
        return t, s2, z, v, v * (v + z)

    def next(self) -> tuple[int, int, int]:
        f, s = self.first, self.second
        gain = np.zeros(len(f))
        for sign in (1.0, -1.0):  # first wins, second wins
            t, s2, z, v, w = self._terms(sign, f, s)
            shrink, shift = w / s2, v / np.sqrt(s2)
            kl = 0.5 * (-shrink * t + shift**2 * t - np.log1p(-shrink * t))
            gain += scipy.special.ndtr(z) * kl
        order = np.argsort(-gain, kind="stable")
        for k in order:  # the best pair with a case left
            pair = (int(f[k]), int(s[k]))
            if self.cases_left[pair]:
                cases = self.cases_left[pair]
                case = cases.pop(int(self.rng.integers(len(cases))))
                a, b = pair if self.rng.random() < 0.5 else pair[::-1]
                self._shown = (a, b)
                return case, a, b
        raise AssertionError("the family ran out of pairs: raise --cases")

    def voted(self, choice: str) -> None:
        if choice not in ("left", "right"):
            return  # a tie or "both bad": no decisive outcome for the Thurstone model
        winner, loser = self._shown if choice == "left" else self._shown[::-1]
        d = np.zeros(len(self.mean))
        d[winner], d[loser] = 1.0, -1.0
        _, s2, _, v, w = self._terms(1.0, np.array([winner]), np.array([loser]))
        along = self.cov @ d
        self.mean = self.mean + along * (v[0] / math.sqrt(s2[0]))
        self.cov = self.cov - np.outer(along, along) * (w[0] / s2[0])


class Oracle:
    """The adaptive rule (``fitting.information.order_gain``) told the true strengths."""

    def __init__(self, n: int, cases: int, seed: int, truth: np.ndarray) -> None:
        self.rng = np.random.default_rng([seed, 3])
        self.truth = truth - truth.mean()
        self.wins = np.zeros((n, n))
        self.first, self.second = np.triu_indices(n, k=1)
        self.votes = np.zeros(len(self.first))
        self.cases_left = {k: list(range(cases)) for k in range(len(self.first))}

    def next(self) -> tuple[int, int, int]:
        open_ = np.array([bool(self.cases_left[k]) for k in range(len(self.first))])
        if self.votes.min() == 0:
            fewest = np.flatnonzero(open_ & (self.votes == self.votes[open_].min()))
            k = int(fewest[self.rng.integers(len(fewest))])
        else:
            post = information.posterior(self.wins)
            scale = float(post.mean @ self.truth) / float(self.truth @ self.truth)
            told = information.Posterior(scale * self.truth, post.cov)
            gain = information.order_gain(told, self.first, self.second)
            k = int(np.argmax(np.where(open_, gain, -np.inf)))
        cases = self.cases_left[k]
        case = cases.pop(int(self.rng.integers(len(cases))))
        self.votes[k] += 1
        a, b = int(self.first[k]), int(self.second[k])
        self._shown = (a, b) if self.rng.random() < 0.5 else (b, a)
        return case, *self._shown

    def voted(self, choice: str) -> None:
        count(self.wins, *self._shown, choice)


def one_run(
    n: int, method: str, run: int, cases: int, cap: int, tau_only: bool, regime: str = "default"
) -> Outcome:
    started = time.perf_counter()
    rng = np.random.default_rng([run, n])
    kind = REGIMES[regime]
    systems = kind.systems(n, rng)
    family = kind.family(systems, cases, rng)
    traits = sim.RaterTraits()
    rater = sim.SimulatedRater(family, traits, rng=np.random.default_rng([run, n, 7]))
    chooser: Scheduled | Uniform | InformationGainReference | Oracle
    if method in ("coverage", "adaptive"):
        chooser = Scheduled(n, cases, run, method)
    elif method == "oracle":
        chooser = Oracle(n, cases, run, systems.strengths)
    elif method == "uniform":
        chooser = Uniform(n, cases, run)
    else:
        chooser = InformationGainReference(n, cases, run)
    truth = systems.strengths
    true_top = int(np.argmax(truth))
    family_top = int(np.argmax(family_board(family, traits)))
    check = max(5, n // 2)
    wins = np.zeros((n, n))
    tau_votes = None
    # Per top (the true one, the family's): the votes from which it has been the fitted
    # top, and for how many checks. Each is kept (``held``) once it has held for
    # TOP_CHECKS with tau reached, when a run that measured it alone would end: neither
    # measure depends on when the other ends the run.
    top_from: dict[int, int | None] = {true_top: None, family_top: None}
    top_run = dict.fromkeys(top_from, 0)
    held: set[int] = set()
    for votes in range(1, cap + 1):
        case, left, right = chooser.next()
        choice = rater.choose(case, left, right)
        chooser.voted(choice)
        count(wins, left, right, choice)
        if votes % check:
            continue
        fitted = board(wins)
        if tau_votes is None and scipy.stats.kendalltau(fitted, truth)[0] >= TARGET_TAU:
            tau_votes = votes
        fitted_top = int(np.argmax(fitted))
        for top in set(top_from) - held:
            if fitted_top == top:
                top_from[top] = top_from[top] or votes
                top_run[top] += 1
            else:
                top_from[top], top_run[top] = None, 0
            if tau_votes is not None and top_run[top] >= TOP_CHECKS:
                held.add(top)
        if tau_votes is not None and (tau_only or held == set(top_from)):
            break
    return Outcome(
        tau_votes or cap,
        top_from[true_top] or cap,
        top_from[family_top] or cap,
        family_top == true_top,
        time.perf_counter() - started,
    )


def key_cost(n: int = 50, cases: int = 2, keys: int = 1600) -> None:
    """Milliseconds per key (choose, show, vote) of the real scheduler on ``n`` systems and
    ``cases`` cases, during the coverage phase and after it, each way of choosing."""
    pending = cases * n * (n - 1) // 2
    phase = n * (n - 1) // 2
    print(f"\nper key, {n} systems x {pending} pending pairs (coverage phase: {phase} votes)")
    for method in ("coverage", "adaptive"):
        chooser = Scheduled(n, cases, 0, method)
        rng = np.random.default_rng(0)
        times = []
        for _ in range(min(keys, pending - 1)):
            started = time.perf_counter()
            chooser.next()
            chooser.voted("left" if rng.random() < 0.5 else "right")
            times.append(1000 * (time.perf_counter() - started))
        before, after = np.array(times[:phase]), np.array(times[phase:])
        print(
            f"{method:<10} coverage phase p50 {np.median(before):.2f} ms, p95 "
            f"{np.percentile(before, 95):.2f}; after it p50 {np.median(after):.2f} ms, "
            f"p95 {np.percentile(after, 95):.2f} (target 5 ms)"
        )


def _job(args: tuple[int, str, int, int, int, bool, str]) -> Outcome:
    return one_run(*args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", default="20", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument(
        "--first-run", type=int, default=0, help="seed of the first run (another set of runs)"
    )
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--cases", type=int, default=0, help="default: enough for the cap")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--tau-only", action="store_true", help="stop each run at tau >= 0.9 (no top figure)"
    )
    parser.add_argument(
        "--key-cost", action="store_true", help="only the time per key at 50 systems"
    )
    parser.add_argument(
        "--cap",
        type=int,
        default=0,
        help="votes per system pair before a run gives up (default 40, 12 above 20 systems)",
    )
    add_argument(parser)
    parser.add_argument(
        "--json", action="store_true", help="print the figures and the design bound as JSON"
    )
    parser.add_argument("--bound-draws", type=int, default=20, help="draws for the design bound")
    args = parser.parse_args(argv)
    if args.key_cost:
        key_cost()
        return 0
    methods = args.methods.split(",")
    unknown = set(methods) - set(METHODS + BOUNDS)
    if unknown:
        parser.error(f"--methods: unknown {', '.join(sorted(unknown))}")
    report = []
    for n in (int(x) for x in args.systems.split(",")):
        pairs = n * (n - 1) // 2
        cap = (args.cap or (40 if n <= 20 else 12)) * pairs
        cases = args.cases or max(60, 3 * cap // pairs)
        if not args.json:
            print(
                f"\n{n} systems ({pairs} system pairs), {args.regime}, {cases} cases, "
                f"{args.runs} runs, cap {cap}"
            )
            print(
                f"{'method':<10} {'tau>=0.9 mean':>14} {'median':>8} {'vs coverage':>12} "
                f"{'top right 95%':>14} {'family top 95%':>15} {'s/run':>7}"
            )
        baseline = None
        found = {}
        for method in methods:
            jobs = [
                (n, method, run, cases, cap, args.tau_only, args.regime)
                for run in range(args.first_run, args.first_run + args.runs)
            ]
            with ProcessPoolExecutor(args.workers) as pool:
                outcomes = list(pool.map(_job, jobs))
            tau = np.array([o.tau_votes for o in outcomes])
            top = np.array([o.top_votes for o in outcomes])
            family_top = np.array([o.family_top_votes for o in outcomes])
            if method == "coverage" or baseline is None:
                baseline = baseline or float(tau.mean())
            found[method] = {
                "tau_votes_mean": float(tau.mean()),
                "tau_votes_median": float(np.median(tau)),
                "vs_coverage": float(tau.mean() / baseline),
                "top_right_95": None if args.tau_only else float(np.percentile(top, 95)),
                # The cap stands for "not by the cap": the share of runs right by then, and
                # the votes from which the top was right in half and in 90% of the runs.
                "top_right_by_cap": None if args.tau_only else float(np.mean(top < cap)),
                "top_right_50_90": None
                if args.tau_only
                else [float(np.percentile(top, q)) for q in (50, 90)],
                # The same against the family's own top (``family_board``), which no
                # number of votes on its cases can show otherwise.
                "family_top_right_95": None
                if args.tau_only
                else float(np.percentile(family_top, 95)),
                "family_top_right_by_cap": None
                if args.tau_only
                else float(np.mean(family_top < cap)),
                "family_top_not_true": sum(not o.family_top_true for o in outcomes),
                "at_cap": int((tau == cap).sum()),
            }
            if not args.json:
                top_text, family_text = (
                    "-" if args.tau_only else f"{np.percentile(votes, 95):.0f}"
                    for votes in (top, family_top)
                )
                print(
                    f"{method:<10} {tau.mean():>14.0f} {np.median(tau):>8.0f} "
                    f"{tau.mean() / baseline:>11.2f}x {top_text:>14} {family_text:>15} "
                    f"{np.mean([o.seconds for o in outcomes]):>7.2f}",
                    flush=True,
                )
        if args.json:
            from design_bound import design_bound

            bound = design_bound(n, REGIMES[args.regime], args.bound_draws)
            report.append(
                {
                    "regime": args.regime,
                    "systems": n,
                    "runs": args.runs,
                    "first_run": args.first_run,
                    "cap": cap,
                    "reference": methods[0],
                    "methods": found,
                    "design_bound": {
                        "mean": float(bound.ratios.mean()),
                        "min": float(bound.ratios.min()),
                        "max": float(bound.ratios.max()),
                        "draws": args.bound_draws,
                        "kappa": bound.kappa,
                    },
                }
            )
    if args.json:
        print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
