"""A session starts from the ledger's kept counts and the end of the history, and chooses
exactly as a scheduler that read every presentation and vote."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from pathlib import Path

import pytest

from arena import family_state
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, summaries, voting
from arena.ledger.history import family_history, family_summary
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy, summarize
from arena.rating.session import RatingSession
from tests.conftest import native_line
from tests.pairs.fake_clock import FakeClock
from tests.votes_helpers import named_showings, show_and_vote

SYSTEMS = ("alpha", "beta", "gamma", "delta")
RATERS = ("ana", "ben")


@pytest.fixture
def family(ledger: Ledger, tmp_path: Path) -> Ledger:
    lines = [
        native_line(c, s, f"{s} answers case {c} at length, carefully and in its own words.")
        for c in ("c1", "c2", "c3", "c4", "c5", "c6")
        for s in SYSTEMS
    ]
    path = tmp_path / "f.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family="f", fmt="native")
    return ledger


def _whole(session: RatingSession) -> LiveScheduler:
    """The scheduler of ``session`` built from every presentation and vote instead."""
    name = session.family.name
    state = family_state.for_rating(session.ledger, name)
    return LiveScheduler(
        state.pending,
        state.systems,
        family_history(session.ledger, name),
        seed=session.session.seed,
        repeats=session.repeats,
        session=session.session.session_id,
        clock=session.wall_clock,
        pair_choice=session.pair_choice,
        halves={s.session_id: s.number % 2 for s in voting.sessions(session.ledger, name)},
        rater=session.actor,
    )


def _counts(summary) -> tuple:
    """What a summary counts, rows at 0 left out and in no particular order."""
    return (
        summary.presentations,
        Counter({k[:-1]: k[-1] for k in summary.sides if k[-1]}),
        Counter({k[:-1]: k[-1] for k in summary.first_showings if k[-1]}),
        Counter({k: n for k, n in summary.by_actor if n}),
        named_showings(summary.pairs),
    )


def _same_choices(kept: LiveScheduler, whole: LiveScheduler) -> None:
    assert kept.next() == whole.next()
    assert kept.progress() == whole.progress()
    assert kept.own_votes == whole.own_votes
    assert (kept.model.wins == whole.model.wins).all()
    assert +kept.in_pair == +whole.in_pair and +kept.overall == +whole.overall
    # The repeats waiting, by presentation, in the same order.
    assert [kept.history[at].presentation_id for at in kept.repeats] == [
        whole.history[at].presentation_id for at in whole.repeats
    ]


@pytest.mark.parametrize("seed", range(6))
def test_a_session_started_from_the_summary_chooses_as_one_reading_the_whole_history(
    family: Ledger, seed: int
) -> None:
    moves = random.Random(seed)
    clock = FakeClock()
    policy = RepeatPolicy(share=0.4, gap=3, minutes=1)
    choice = moves.choice(("adaptive", "coverage"))
    for sitting in range(5):
        rater = RATERS[moves.random() < 0.3]
        session = RatingSession(
            family,
            "f",
            repeats=policy,
            actor=rater,
            wall_clock=clock,
            pair_choice=choice,
            seed=seed * 10 + sitting,
        )
        summary, _ = family_summary(family, "f", share=policy.share, rater=rater)
        whole = _whole(session)
        halves = {s.session_id: s.number % 2 for s in voting.sessions(family, "f")}
        counted = summarize(family_history(family, "f"), whole.systems, halves)
        assert _counts(summary) == _counts(counted)
        _same_choices(session.scheduler, whole)
        for _ in range(moves.randrange(4, 30)):
            clock.advance(moves.choice((5, 30, 200)))
            roll = moves.random()
            if roll < 0.12:
                session.undo()
            elif session.current() is None:
                break
            elif roll < 0.2:
                session.skip()
            else:
                session.vote(moves.choice(("left", "right", "tie", "both_bad")))
        _same_choices(session.scheduler, _whole(session))
        if moves.random() < 0.5:
            session.current()  # left on screen, unvoted: shown again after a restart
    assert summaries.stale_tallies(family) == []


def test_undoing_back_past_the_end_it_read_reads_further(family: Ledger) -> None:
    clock = FakeClock()
    first = RatingSession(family, "f", seed=1, repeat_share=0.0, wall_clock=clock)
    for _ in range(8):
        first.vote("left")
    # A new sitting reads only the end of the history; undo walks back past it.
    second = RatingSession(family, "f", seed=2, repeat_share=0.0, wall_clock=clock)
    assert len(second.scheduler.history) < 8
    for _ in range(6):
        undone = second.undo()
        assert undone is not None
        # The pair undone is the one shown again, as when every presentation was read.
        assert second.current().presentation.presentation_id == undone.presentation_id
        _same_choices(second.scheduler, _whole(second))


def test_a_vote_on_a_repeat_whose_original_vote_was_retracted_counts_as_the_whole_history_does(
    family: Ledger,
) -> None:
    # Shown as a repeat, but its original vote was retracted before it was voted: the vote
    # records no original. The summary counts its presentation as the history reads it.
    outputs = [o for o in catalog.outputs(family, "f") if o.case_id == "c1"]
    session = voting.start_session(family, "f", seed=1, actor="ana")
    original = show_and_vote(family, session, outputs[0], outputs[1], "left")
    voting.retract(family, original.vote_id)
    again = dataclasses.replace(
        voting.get_presentation(family, original.presentation_id),
        presentation_id=voting.new_id(),
        left_output=original.right_output,
        right_output=original.left_output,
        repeat_of=original.presentation_id,
    )
    voting.record_presentation(family, again)
    voting.record_vote(
        family,
        dataclasses.replace(
            original,
            vote_id=voting.new_id(),
            presentation_id=again.presentation_id,
            left_output=again.left_output,
            right_output=again.right_output,
            repeat_of=None,
        ),
    )
    rater = RatingSession(family, "f", actor="ana", seed=3)
    summary, _ = family_summary(family, "f", share=1.0, rater="ana")
    halves = {s.session_id: s.number % 2 for s in voting.sessions(family, "f")}
    counted = summarize(family_history(family, "f"), rater.scheduler.systems, halves)
    assert _counts(summary) == _counts(counted)
    _same_choices(rater.scheduler, _whole(rater))
    assert summaries.stale_tallies(family) == []
