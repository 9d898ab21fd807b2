"""A large family for ui_latency.py: 20 systems × 1,000 cases, with past votes written fast.

    python benchmarks/large_family.py --keep /tmp/lf      # build once, then time what reads it

The past votes are written as the rater's would be (a presentation, then its
vote, through ``arena.ledger.voting``, hash chains included) but in one
transaction, without the scheduler: system pairs take turns, sides alternate
within each system pair, about 2% are skips, and the votes the repeat rule picks
come back 31–41 presentations later (the default gap) with sides swapped. The history
looks like one the scheduler would have made, at a thousandth of the time.

Run as a script, it builds such a family (``--settled``: a share of answers copied
from another system or left empty, so the gates and the identical rule settle pairs;
a retired case and removed outputs) with ``--votes`` past votes, and prints the median
time of ``--repeats`` runs of what reads every pair: the rating session's pending pairs
and scheduler, the settlement (every pair listed, and the settled ones alone, as a round
closes) and the status count, then of ``arena status`` in a child process (no rows kept).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import family_state  # noqa: E402
from arena.clock import now_iso  # noqa: E402
from arena.intake.outputs import import_file  # noqa: E402
from arena.ledger import Ledger, voting  # noqa: E402
from arena.pairs.scheduling import DEFAULT_REPEAT_SHARE, is_repeat_chosen, repeat_gap  # noqa: E402
from arena.records import Presentation, PresentationId, Vote, VoteId  # noqa: E402
from tests.conftest import native_line  # noqa: E402

WORDS = (
    "the",
    "answer",
    "explains",
    "a",
    "system",
    "which",
    "data",
    "value",
    "reader",
    "because",
    "result",
    "clear",
    "table",
    "first",
    "second",
    "finally",
    "model",
)
CHOICES = ("left", "right", "tie", "both_bad")


def build(
    folder: Path,
    ledger: Ledger,
    family: str,
    systems: int = 20,
    cases: int = 1000,
    settled: float = 0.0,
) -> None:
    """Import ``family``: short English answers, all different, so every pair is pending;
    but for a ``settled`` share of them, half copied from system 0's answer to the case
    (the identical rule settles their pairs) and half empty (they fail a gate)."""
    rng = random.Random(11)
    lines = []
    for c in range(cases):
        first = ""
        for s in range(systems):
            words = " ".join(rng.choice(WORDS) for _ in range(40))
            text = f"System {s} answers case {c}: {words}."
            # Drawn only for a share, so that the other benchmarks get the texts they always had.
            if settled and s and rng.random() < settled:
                text = first if rng.random() < 0.5 else ""
            first = first or text
            lines.append(
                native_line(
                    f"case{c:04d}",
                    f"system{s:02d}",
                    text,
                    prompt=f"Explain topic {c} to a new reader.",
                )
            )
    path = folder / f"{family}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, path, family=family, fmt="native")


def add_past_votes(ledger: Ledger, family: str, count: int, seed: int = 5) -> None:
    """Write ``count`` more votes (repeats and skips among them) in one transaction."""
    if count <= 0:
        return
    rng = random.Random(seed)
    state = family_state.load(ledger, family)
    systems = {k: o.system_id for k, o in state.outputs.items()}
    voted = {
        frozenset((v.left_output, v.right_output))
        for v in voting.votes_in_force(ledger, family)
        if v.repeat_of is None
    }
    by_pair = defaultdict(list)
    for pair in state.settlement.pending:
        if frozenset((pair.output_a, pair.output_b)) not in voted:
            by_pair[tuple(sorted((systems[pair.output_a], systems[pair.output_b])))].append(pair)
    for pairs in by_pair.values():
        rng.shuffle(pairs)
    # System pairs take turns; within each, the first system sits left every other time.
    turns = [
        (pairs[i], i % 2 == 0)
        for i in range(max(map(len, by_pair.values())))
        for _, pairs in sorted(by_pair.items())
        if i < len(pairs)
    ]
    session = voting.start_session(ledger, family, seed=seed)
    written, waiting = 0, []  # waiting: (due at, presentation, vote) of picked repeats

    def show(case_id, left, right, choice, repeat_of=None, original=None):
        nonlocal written
        presentation = Presentation(
            PresentationId(voting.new_id()),
            session.session_id,
            family,
            case_id,
            left,
            right,
            now_iso(),
            repeat_of,
        )
        voting.record_presentation(ledger, presentation)
        vote = Vote(
            VoteId(voting.new_id()),
            presentation.presentation_id,
            session.session_id,
            family,
            case_id,
            left,
            right,
            choice,
            presentation.shown_at,
            now_iso(),
            4000,
            "rater",
            original,
            "",
            False,
        )
        voting.record_vote(ledger, vote)
        written += 1
        return presentation, vote

    with ledger.atomic():
        for pair, a_left in turns:
            if written >= count:
                break
            while waiting and waiting[0][0] <= written and written < count:
                _, first, original = waiting.pop(0)
                show(
                    first.case_id,
                    first.right_output,
                    first.left_output,
                    rng.choice(CHOICES),
                    first.presentation_id,
                    original.vote_id,
                )
            if written >= count:
                break
            left, right = (
                (pair.output_a, pair.output_b) if a_left else (pair.output_b, pair.output_a)
            )
            choice = "skip" if rng.random() < 0.02 else rng.choice(CHOICES)
            presentation, vote = show(pair.case_id, left, right, choice)
            if choice != "skip" and is_repeat_chosen(vote.vote_id, DEFAULT_REPEAT_SHARE):
                waiting.append((written + repeat_gap(vote.vote_id), presentation, vote))


def base_ledger(folder: Path, build_base: Callable[[Path], None], what: str) -> Path:
    """``folder``/base.sqlite, built by ``build_base`` unless an earlier run left it there."""
    base = folder / "base.sqlite"
    if not base.exists():
        started = time.perf_counter()
        build_base(base)
        print(f"  imported {what} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return base


def _build_bench(path: Path, args: argparse.Namespace) -> None:
    from arena.ledger import catalog, events

    with Ledger.open(path) as ledger:
        build(path.parent, ledger, "big", args.systems, args.cases, args.settled)
        add_past_votes(ledger, "big", args.votes)
        with ledger.atomic():
            events.add_event(ledger, "big", "retire_case", case_id="case0000", note="bench")
            for o in catalog.outputs(ledger, "big")[5:8]:
                events.add_event(ledger, "big", "remove_output", output_id=o.output_id)


def _timed(what: str, run: Callable[[], object], repeats: int) -> None:
    times = []
    for _ in range(repeats + 1):  # the first run warms up
        started = time.perf_counter()
        found = run()
        times.append(time.perf_counter() - started)
    print(f"{what:<44} {statistics.median(times[1:]) * 1000:8.1f} ms   {found}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True, help="build the ledger here once")
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--votes", type=int, default=10_000)
    parser.add_argument("--settled", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from arena.ledger.history import family_history
    from arena.rating import status_count

    try:
        from arena.pairs.scheduling import LiveScheduler
    except ImportError:  # a tree from before the scheduler's move (benchmarks/side_by_side.py)
        from arena.pairs.live_scheduler import LiveScheduler  # type: ignore[no-redef]

    args.keep.mkdir(parents=True, exist_ok=True)
    path = args.keep / f"big-{args.systems}x{args.cases}-{args.votes}-{args.settled}.sqlite"
    if not path.exists():
        _build_bench(path, args)
    with Ledger.open(path) as ledger:
        family = family_state.for_rating(ledger, "big").family

        def scheduler() -> str:
            rating = family_state.for_rating(ledger, "big")
            history = family_history(ledger, "big")
            live = LiveScheduler(rating.pending, rating.systems, history, seed=1)
            return f"{len(rating.pending)} pending, {live.progress()}"

        def settlement() -> str:
            found = family_state.load(ledger, "big").settlement
            return f"{len(found.settled)} settled, {len(found.pending)} pending"

        def settled() -> str:
            return f"{len(family_state.load(ledger, 'big').settled)} settled"

        def status() -> str:
            (row,) = status_count.counted_rows(ledger, [family])
            return f"{row['settled_pairs']} settled, {row['pending_pairs']} unvoted"

        _timed("pending pairs and scheduler (session open)", scheduler, args.repeats)
        _timed("settle, every pair listed", settlement, args.repeats)
        _timed("settle, settled only (round close)", settled, args.repeats)
        _timed("status count", status, args.repeats)
    status_json = Path(f"{path}.status.json")
    argv = [sys.executable, "-m", "arena", "--ledger", str(path), "status", "--json"]

    def child() -> str:
        status_json.unlink(missing_ok=True)
        subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
        return "no rows kept"

    _timed("arena status (child process)", child, args.repeats)


if __name__ == "__main__":
    main()
