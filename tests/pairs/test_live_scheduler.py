"""The session's scheduler, kept up to date vote by vote, chooses as the rule from scratch does."""

from __future__ import annotations

from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.pairs.adaptive import PAIR_CHOICES
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy
from arena.pairs.settling import PendingPair
from tests.pairs.fake_clock import FakeClock
from tests.pairs.reference_scheduler import Scheduler, Shown

CHOICES = ("left", "right", "tie", "both_bad", "skip")


@st.composite
def families(draw):
    """Outputs of a few systems on a few cases; some pairs settled (not candidates)."""
    n_systems = draw(st.integers(2, 5))
    n_cases = draw(st.integers(1, 6))
    systems = {}
    for c in range(n_cases):
        for s in range(n_systems):
            for sample in range(draw(st.integers(1, 2))):
                systems[f"o{c}-{s}-{sample}"] = f"s{s}"
    pairs = [
        PendingPair(a.split("-")[0][1:], a, b, systems[a], systems[b])
        for a, b in combinations(systems, 2)
        if a.split("-")[0] == b.split("-")[0] and systems[a] != systems[b]
    ]
    kept = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    candidates = draw(st.permutations([p for p, k in zip(pairs, kept, strict=True) if k]))
    return candidates, systems


# Mostly votes, as a rater's history is, with undos, crashes, imported votes and new
# sessions among them.
steps = st.lists(
    st.tuples(
        st.sampled_from(["vote"] * 6 + ["undo", "abandon", "foreign", "session"]),
        st.sampled_from(CHOICES),
        st.integers(0, 10_000),
    ),
    max_size=60,
)
# No repeats; close ones; the default spacing (30 pairs, 20 minutes); time only.
policies = st.sampled_from(
    [
        RepeatPolicy(share=0.0),
        RepeatPolicy(share=0.3, gap=2, minutes=0),
        RepeatPolicy(share=0.7, gap=0, minutes=0),
        RepeatPolicy(share=0.3),
        RepeatPolicy(share=0.7, gap=3, minutes=10),
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    family=families(),
    ops=steps,
    seed=st.integers(0, 2**31 - 1),
    policy=policies,
    pair_choice=st.sampled_from(PAIR_CHOICES),
    once_per_case=st.booleans(),
)
def test_kept_up_to_date_it_chooses_as_the_rule_from_scratch(
    family, ops, seed, policy, pair_choice, once_per_case
):
    candidates, systems = family
    # The rater's own votes may come back as repeats; a colleague's imported ones never.
    rule = {"pair_choice": pair_choice, "once_per_case": once_per_case, "rater": "rater"}
    history: list[Shown] = []
    clock = FakeClock()
    session = "s1"

    def scheduler(past) -> LiveScheduler:
        return LiveScheduler(
            candidates,
            systems,
            past,
            seed=seed,
            repeats=policy,
            session=session,
            clock=clock,
            **rule,
        )

    live = scheduler([])
    in_force: list[str] = []  # presentation ids, in the order of their votes

    def show(case_id, left, right, repeat_of) -> str:
        pid = f"p{len(history)}"
        history.append(Shown(pid, case_id, left, right, repeat_of, None, None))
        live.shown(pid, case_id, left, right, repeat_of)
        return pid

    def vote(pid: str, choice: str, *, foreign: bool = False) -> None:
        at = int(pid[1:])
        # An imported vote is a colleague's, has a session of its own and may have no time.
        actor, *cast = ("dana", "import", None) if foreign else ("rater", session, clock())
        history[at] = history[at]._replace(
            vote_id=f"v{len(in_force)}-{pid}",
            choice=choice,
            session_id=cast[0],
            voted_at=cast[1],
            actor=actor,
        )
        live.voted(
            pid, history[at].vote_id, choice, session_id=cast[0], voted_at=cast[1], actor=actor
        )
        in_force.append(pid)

    for step, (kind, choice, number) in enumerate(ops):
        clock.advance(60 * (number % 7))
        scratch = Scheduler(
            candidates,
            systems,
            history,
            seed=seed,
            repeats=policy,
            session=session,
            now=clock(),
            **rule,
        )
        planned = live.next()
        assert planned == scratch.next(), f"step {step}"
        assert live.progress() == scratch.progress()
        assert live.own_votes == sum(
            h.vote_id is not None and h.choice != "skip" and h.actor == "rater" for h in history
        )
        if kind == "undo" and in_force:
            pid = in_force.pop()
            at = int(pid[1:])
            history[at] = history[at]._replace(vote_id=None, choice=None, actor=None)
            live.retracted(pid)
        elif kind == "session":  # the window closed and opened again: a later session
            session = f"s{step + 2}"
            live = scheduler(history)
        elif kind == "foreign":  # a vote from elsewhere (an import) on any pair of a case
            outputs = sorted(systems)
            left = outputs[number % len(outputs)]
            others = [o for o in outputs if o.split("-")[0] == left.split("-")[0] and o != left]
            if others:
                right = others[number % len(others)]
                vote(show(left.split("-")[0][1:], left, right, None), "tie", foreign=True)
        elif kind in ("vote", "abandon") and planned is not None:
            pid = planned.resume or show(
                planned.case_id, planned.left_output, planned.right_output, planned.repeat_of
            )
            if kind == "vote":
                guesses = live.peek_after(pid)
                vote(pid, choice)
                if choice != "skip" and live.entry(pid).gap is None:
                    after = live.next()
                    assert after in guesses if guesses else after is None, f"step {step}: peek"
    restarted = scheduler(history)
    assert restarted.next() == live.next()
    assert restarted.progress() == live.progress()
    assert restarted.repeats == live.repeats
