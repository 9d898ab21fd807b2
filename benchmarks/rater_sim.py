"""How long the simulated rater takes, apart from the ledger it writes to.

    python benchmarks/rater_sim.py                    # 10,000 votes
    python benchmarks/rater_sim.py --votes 2000       # quicker

A family of 20 systems × 300 cases × 2 samples (about 30% of pairs settled by the gates) is
drawn with ``fitting.simulate``. Prints, for ``--votes`` votes:

- the vectorised stand-in scheduler and rater (``simulate_votes``), all votes at once;
- the rater answering one presentation at a time (``SimulatedRater.choose``), as the real
  session drives it;
- the real thing (``arena.rounds.simulation``): import, then ``RatingSession.current()`` /
  ``vote()`` for every vote, a new session every 500, and the round close; the time the
  rater spent answering (the simulation's overhead) apart from the session's calls
  (scheduler and ledger writes).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ledger import Ledger  # noqa: E402
from arena.rounds import simulation  # noqa: E402
from arena.rounds.closing import close_round  # noqa: E402
from arena.rounds.model import RoundSettings  # noqa: E402
from fitting import simulate as sim  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--votes", type=int, default=10_000)
    parser.add_argument("--no-ledger", action="store_true", help="skip the real session")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    systems = sim.draw_systems(20, rng=rng, settle_share=0.3)
    family = sim.draw_family(systems, 300, rng=rng, samples=2, identical_share=0.01)
    traits = sim.RaterTraits(inconsistency=0.1, memory=0.3, length_preference=1.0)

    started = time.perf_counter()
    votes = sim.simulate_votes(family, traits, args.votes, rng=rng)
    print(f"simulate_votes: {votes.y.size:,} votes in {time.perf_counter() - started:.3f} s")

    rater = sim.SimulatedRater(family, traits, rng=np.random.default_rng(2))
    pairs = list(zip(votes.case.tolist(), votes.left.tolist(), votes.right.tolist(), strict=True))
    started = time.perf_counter()
    for case, left, right in pairs:
        rater.choose(case, left, right)
    print(f"SimulatedRater.choose: {len(pairs):,} answers in {time.perf_counter() - started:.3f} s")
    if args.no_ledger:
        return 0

    with tempfile.TemporaryDirectory() as folder, Ledger.open(Path(folder) / "l.sqlite") as ledger:
        started = time.perf_counter()
        where = simulation.build_family(ledger, "sim", family, folder=Path(folder))
        imported = time.perf_counter() - started
        rater = sim.SimulatedRater(family, traits, rng=np.random.default_rng(3))
        run = simulation.rate(ledger, "sim", rater, where, args.votes, session_votes=500)
        started = time.perf_counter()
        closed = close_round(ledger, "sim", RoundSettings())
        closing = time.perf_counter() - started
    shown = bool(closed.board.uncertainty and closed.board.uncertainty["available"])
    print(
        f"real session: import {imported:.1f} s; {run.votes:,} votes in {run.sessions} sessions "
        f"({run.repeats} repeats): rater {run.rater_seconds:.3f} s, session calls "
        f"{run.session_seconds:.1f} s ({1000 * run.session_seconds / run.votes:.1f} ms a vote); "
        f"round close {closing:.2f} s, intervals {'shown' if shown else 'not shown'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
