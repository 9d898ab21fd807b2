"""Counterbalanced, coverage-first scheduling with hidden repeats, resumable after a crash."""

import json
import random
import statistics
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from arena import family_state
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, seals, voting
from arena.pairs.adaptive import PAIR_CHOICES
from arena.pairs.scheduling import LiveScheduler, RepeatPolicy, is_repeat_chosen
from arena.pairs.settling import PendingPair
from arena.rating import corrections
from arena.rating.session import RatingSession
from tests.conftest import native_line
from tests.pairs.fake_clock import FakeClock
from tests.pairs.reference_scheduler import Scheduler, Shown

SYSTEMS = ("alpha", "beta", "gamma", "delta", "epsilon")


@pytest.fixture
def family(ledger, tmp_path: Path):
    lines = [
        native_line(
            f"c{c:02d}",
            s,
            f"{s} answers case {c} with a clear and helpful explanation of the topic, number {c}.",
        )
        for c in range(8)
        for s in SYSTEMS
    ]
    path = tmp_path / "f.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family="f", fmt="native")
    return ledger


def _vote_all(rater: RatingSession, limit: int = 10_000) -> list:
    seen = []
    for _ in range(limit):
        view = rater.current()
        if view is None:
            break
        seen.append(view)
        rater.vote(("left", "right", "tie", "both_bad")[len(seen) % 4])
    return seen


def test_every_pending_pair_is_shown_and_sides_balance_within_each_system_pair(family):
    rater = RatingSession(family, "f", seed=11, repeat_share=0.0)
    seen = _vote_all(rater)
    assert len(seen) == 8 * 10
    assert rater.progress() == (80, 80)
    left_in_pair = Counter()
    overall = Counter()
    for view in seen:
        a, b = view.left.system_id, view.right.system_id
        left_in_pair[(frozenset((a, b)), a)] += 1
        overall[a] += 1
        overall[b] -= 1
    for (pair, system), count in left_in_pair.items():
        other = next(iter(pair - {system}))
        assert abs(count - left_in_pair[(pair, other)]) <= 1
    assert max(abs(v) for v in overall.values()) <= 1


@pytest.mark.parametrize("pair_choice", PAIR_CHOICES)
def test_a_repeat_that_would_tip_the_sides_waits_for_a_first_showing(pair_choice):
    # One system pair, half the votes repeated 4 pairs later: without the wait a repeat
    # of an older showing soon puts one system on the left twice more than the other.
    systems = {f"c{c:02d}-{s}": s for c in range(40) for s in ("A", "B")}
    candidates = [
        PendingPair(f"c{c:02d}", f"c{c:02d}-A", f"c{c:02d}-B", "A", "B") for c in range(40)
    ]
    for seed in range(10):
        scheduler = LiveScheduler(
            candidates,
            systems,
            [],
            seed=seed,
            repeats=RepeatPolicy(share=0.5, gap=4, minutes=0),
            pair_choice=pair_choice,
        )
        left, repeats = Counter(), 0
        # Past the 40 first showings: the repeats left then come only while they keep the
        # sides within one.
        for n in range(100):
            planned = scheduler.next()
            if planned is None:
                break
            pid = f"p{n}"
            scheduler.shown(
                pid, planned.case_id, planned.left_output, planned.right_output, planned.repeat_of
            )
            scheduler.voted(pid, f"v{seed}-{n}", "left", session_id="s", voted_at=None)
            left[systems[planned.left_output]] += 1
            repeats += planned.repeat_of is not None
            assert abs(left["A"] - left["B"]) <= 1, (seed, n)
        assert scheduler.next() is None and repeats >= 5


def test_coverage_comes_first_and_no_case_repeats_back_to_back(family):
    rater = RatingSession(family, "f", seed=3, repeat_share=0.0)
    seen = _vote_all(rater)
    first_ten = {frozenset((v.left.system_id, v.right.system_id)) for v in seen[:10]}
    assert len(first_ten) == 10, "the first ten pairs should cover all ten system pairs"
    cases = [v.case.case_id for v in seen]
    assert all(a != b for a, b in zip(cases, cases[1:], strict=False))


def test_repeats_come_back_later_with_sides_swapped(family):
    # A vote every 15 seconds: 30 pairs are 7.5 minutes, under the default 20.
    clock = FakeClock(tick=7.5)
    rater = RatingSession(family, "f", seed=5, repeat_share=0.25, wall_clock=clock)
    seen = _vote_all(rater)
    clock.advance(3600)
    later = RatingSession(family, "f", seed=6, repeat_share=0.25, wall_clock=clock)
    seen_later = _vote_all(later)
    assert seen_later and all(v.presentation.repeat_of is not None for v in seen_later)
    seen += seen_later
    originals = {
        v.presentation.presentation_id: (i, v)
        for i, v in enumerate(seen)
        if v.presentation.repeat_of is None
    }
    repeats = [(i, v) for i, v in enumerate(seen) if v.presentation.repeat_of is not None]
    assert 8 <= len(repeats) <= 35
    shown_at = {v.presentation.presentation_id: v.presentation.shown_at for v in seen}
    for index, view in repeats:
        first_index, first = originals[view.presentation.repeat_of]
        assert index > first_index
        assert (view.left.output_id, view.right.output_id) == (
            first.right.output_id,
            first.left.output_id,
        )
        # At least 30 other pairs and 20 minutes later, or in the later session.
        if view in seen_later:
            continue
        assert index - first_index > 30
        waited = datetime.fromisoformat(shown_at[view.presentation.presentation_id])
        assert waited - datetime.fromisoformat(first.presentation.shown_at) >= timedelta(minutes=20)
    votes = voting.votes_in_force(family, "f")
    assert sum(v.repeat_of is not None for v in votes) == len(repeats)
    # Every vote chosen for a repeat got one, but those whose repeat would put one system
    # of the pair on the left twice more than the other.
    shown_left = Counter(
        (frozenset((v.left.system_id, v.right.system_id)), v.left.system_id) for v in seen
    )
    system = {v.left.output_id: v.left.system_id for v in seen} | {
        v.right.output_id: v.right.system_id for v in seen
    }
    repeated = {v.repeat_of for v in votes if v.repeat_of is not None}
    chosen = [v for v in votes if v.repeat_of is None and is_repeat_chosen(v.vote_id, 0.25)]
    held = [v for v in chosen if v.vote_id not in repeated]
    assert len(chosen) - len(held) == len(repeats) and len(held) < len(repeats)
    for v in held:
        left, right = system[v.left_output], system[v.right_output]
        pair = frozenset((left, right))
        assert shown_left[pair, right] > shown_left[pair, left]


def test_a_family_may_space_its_repeats_otherwise(family):
    clock = FakeClock(tick=1)
    close = RepeatPolicy(share=0.5, gap=2, minutes=0)
    seen = _vote_all(RatingSession(family, "f", seed=5, repeats=close, wall_clock=clock))
    position = {v.presentation.presentation_id: i for i, v in enumerate(seen)}
    # Until the last unvoted pair: once none is left, the waiting ones come at once.
    last = max(i for i, v in enumerate(seen) if v.presentation.repeat_of is None)
    gaps = [
        i - position[v.presentation.repeat_of]
        for i, v in enumerate(seen[:last])
        if v.presentation.repeat_of is not None
    ]
    # Each comes at least gap + 1 pairs on; most soon after, as the family asks, though one
    # may wait longer for a first showing of its system pair that evens the sides
    # (docs/window.md): random vote ids made that 19-34 pairs in 4 of 80 runs.
    assert gaps and min(gaps) >= 3 and statistics.median(gaps) <= 10


def test_the_repeat_choice_follows_the_share():
    chosen = sum(is_repeat_chosen(f"{i:032x}", 0.10) for i in range(20_000))
    assert 1_800 <= chosen <= 2_200


def test_the_same_history_and_seed_give_the_same_next_pair():
    candidates = [PendingPair(f"c{i}", f"a{i}", f"b{i}", "A", "B") for i in range(20)]
    systems = {**{f"a{i}": "A" for i in range(20)}, **{f"b{i}": "B" for i in range(20)}}
    history = [Shown("p0", "c3", "a3", "b3", None, "v0", "left")]
    picks = {Scheduler(candidates, systems, history, seed=9).next() for _ in range(5)}
    assert len(picks) == 1
    (pick,) = picks
    assert pick.case_id != "c3" and pick.left_output.startswith("b")


def test_a_pair_shown_but_not_voted_is_shown_again_after_a_restart(family):
    path = family.path
    first = RatingSession(family, "f", seed=1)
    first.vote("left")
    shown = first.current()
    family.close()
    with Ledger.open(path) as reopened:
        again = RatingSession(reopened, "f", seed=2)
        assert again.current().presentation == shown.presentation
        assert again.session.number == 2


def test_undo_walks_back_and_shows_the_undone_pairs_again(family):
    rater = RatingSession(family, "f", seed=4, repeat_share=0.0)
    first = rater.current().presentation
    rater.vote("left")
    second = rater.current().presentation
    rater.vote("right")
    third = rater.current().presentation
    assert rater.undo().presentation_id == second.presentation_id
    assert rater.undo().presentation_id == first.presentation_id
    assert rater.current().presentation == first
    rater.vote("tie")
    assert rater.current().presentation == second
    rater.vote("tie")
    assert rater.current().presentation == third
    assert [v.choice for v in voting.votes_in_force(family, "f")] == ["tie", "tie"]


# The vote's own write, or the next pair's presentation in the same commit.
@pytest.mark.parametrize("write", ["record_vote", "record_presentation"])
def test_a_failed_write_does_not_advance_and_records_nothing(family, monkeypatch, write):
    rater = RatingSession(family, "f", seed=8)
    shown = rater.current()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(voting, write, broken)
    with pytest.raises(OSError):
        rater.vote("left")
    assert voting.votes_in_force(family, "f") == []
    assert rater.current() == shown
    monkeypatch.undo()
    rater.vote("right")
    votes = voting.votes_in_force(family, "f")
    assert [(v.presentation_id, v.choice) for v in votes] == [
        (shown.presentation.presentation_id, "right")
    ]
    assert rater.current().presentation.presentation_id != shown.presentation.presentation_id


def test_a_vote_and_the_presentation_after_it_are_one_commit(family):
    rater = RatingSession(family, "f", seed=8)
    rater.current()
    before = seals.head(family.conn)
    vote = rater.vote("left")
    after = seals.head(family.conn)
    assert before is not None and after is not None and after.seq == before.seq + 1
    (tables,) = family.conn.execute("SELECT tables FROM commits WHERE seq = ?", [after.seq])
    assert {"votes", "presentations"} <= set(json.loads(tables[0]))
    following = rater.current()
    assert following is not None
    assert following.presentation.presentation_id != vote.presentation_id
    stored = voting.get_presentation(family, following.presentation.presentation_id)
    assert stored == following.presentation
    assert seals.head(family.conn) == after  # showing it wrote nothing more


def test_an_output_naming_a_system_is_marked_as_a_leak(ledger, tmp_path):
    path = tmp_path / "leak.jsonl"
    path.write_text(
        "\n".join(
            [
                native_line("c1", "alpha", "As Beta, I would say the answer is clearly forty-two."),
                native_line("c1", "beta", "The answer is forty-two, for the reasons given below."),
            ]
        ),
        encoding="utf-8",
    )
    import_file(ledger, path, family="leaky", fmt="native")
    rater = RatingSession(ledger, "leaky", seed=1)
    view = rater.current()
    assert "names a system of this family (beta)" in view.identity_leak
    assert rater.vote("left").identity_leak


def _rule(rater: RatingSession, now: str) -> Scheduler:
    """The rule from scratch over what the ledger holds now."""
    state = family_state.load(rater.ledger, rater.family.name)
    return Scheduler(
        state.settlement.pending,
        {k: o.system_id for k, o in state.outputs.items()},
        [Shown(**row) for row in voting.history(rater.ledger, rater.family.name)],
        seed=rater.session.seed,
        repeats=rater.repeats,
        session=rater.session.session_id,
        now=now,
        pair_choice=rater.pair_choice,
        once_per_case=rater.family.kind == "tests_then_votes",
        rater=rater.actor,
    )


@pytest.mark.parametrize("pair_choice", PAIR_CHOICES)
def test_the_state_kept_in_memory_chooses_as_the_rule_reading_the_ledger(family, pair_choice):
    clock = FakeClock()
    spaced = RepeatPolicy(share=0.3, gap=5, minutes=3)
    rater = RatingSession(
        family, "f", seed=6, repeats=spaced, wall_clock=clock, pair_choice=pair_choice
    )
    moves = random.Random(6)
    for _ in range(70):
        clock.advance(40)
        rule = _rule(rater, clock())
        assert rater.scheduler.next() == rule.next()
        assert rater.progress() == rule.progress()
        roll = moves.random()
        if roll < 0.15:
            rater.undo()
        elif rater.current() is None:
            break
        elif roll < 0.25:
            rater.skip("unsure")
        else:
            rater.vote(moves.choice(("left", "right", "tie", "both_bad")))


def test_a_key_reads_no_history_and_no_family(family, monkeypatch):
    rater = RatingSession(family, "f", seed=7, repeat_share=0.5)

    def no_reading(*args, **kwargs):
        raise AssertionError("a key read the whole history or family again")

    monkeypatch.setattr(voting, "history", no_reading)
    monkeypatch.setattr(family_state, "load", no_reading)
    for _ in range(30):
        rater.current()
        rater.peek_next()
        rater.progress()
        rater.vote("left")
    rater.skip()
    rater.undo()
    rater.undo()
    assert rater.current() is not None


def test_a_session_reads_a_text_when_its_pair_comes_up(family, monkeypatch):
    def whole(*args, **kwargs):
        raise AssertionError("the session read every output whole")

    monkeypatch.setattr(catalog, "outputs", whole)
    rater = RatingSession(family, "f", seed=5, repeat_share=0.0)
    for _ in range(12):  # more outputs than the session keeps
        view = rater.current()
        for output in (view.left, view.right):
            assert output == catalog.get_output(family, output.output_id)
        rater.peek_next()
        rater.vote("left")


def test_a_pair_peeked_at_is_shown_without_searching_its_texts_again(family, monkeypatch):
    rater = RatingSession(family, "f", seed=6, repeat_share=0.0)
    rater.current()
    upcoming = rater.peek_next()
    search, searched = rater.find_leak._search, []
    monkeypatch.setattr(rater.find_leak, "_search", lambda t: searched.append(t) or search(t))
    rater.vote("left")
    view = rater.current()
    assert (view.left, view.right) in [(u.left, u.right) for u in upcoming]
    assert searched == []


def test_peek_next_is_the_pair_shown_after_an_ordinary_vote(family):
    rater = RatingSession(family, "f", seed=8, repeat_share=0.0)
    for _ in range(25):
        upcoming = rater.peek_next() if rater.current() else []
        rater.vote(("left", "right", "tie", "both_bad")[_ % 4])
        view = rater.current()
        assert (view.case, view.left, view.right) in [(u.case, u.left, u.right) for u in upcoming]


def test_refresh_reads_a_correction_made_elsewhere(family):
    rater = RatingSession(family, "f", seed=9, repeat_share=0.0)
    shown = rater.current().case.case_id
    retired = next(c for c in (f"c{i:02d}" for i in range(8)) if c != shown)
    corrections.retire_case(family, "f", retired, reason="the prompt is broken")
    rater.refresh()
    assert rater.progress() == (0, 70)
    seen = _vote_all(rater)
    assert retired not in {v.case.case_id for v in seen}
