"""A large family for ui_latency.py: 20 systems × 1,000 cases, with past votes written fast.

The past votes are written as the rater's would be (a presentation, then its
vote, through ``arena.ledger.voting``, hash chains included) but in one
transaction, without the scheduler: system pairs take turns, sides alternate
within each system pair, about 2% are skips, and the votes the repeat rule picks
come back 31–41 presentations later (the default gap) with sides swapped. The history
looks like one the scheduler would have made, at a thousandth of the time.
"""

from __future__ import annotations

import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from arena import family_state
from arena.clock import now_iso
from arena.intake.outputs import import_file
from arena.ledger import Ledger, voting
from arena.pairs.scheduling import DEFAULT_REPEAT_SHARE, is_repeat_chosen, repeat_gap
from arena.records import Presentation, PresentationId, Vote, VoteId
from tests.conftest import native_line

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


def build(folder: Path, ledger: Ledger, family: str, systems: int = 20, cases: int = 1000) -> None:
    """Import ``family``: short English answers, all different, so every pair is pending."""
    rng = random.Random(11)
    lines = []
    for c in range(cases):
        for s in range(systems):
            words = " ".join(rng.choice(WORDS) for _ in range(40))
            lines.append(
                native_line(
                    f"case{c:04d}",
                    f"system{s:02d}",
                    f"System {s} answers case {c}: {words}.",
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
