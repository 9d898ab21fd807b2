"""Votes are committed once, undone by retractions, and recognised after a crash."""

import dataclasses

import pytest

from arena.errors import ArenaError, BadInput
from arena.ledger import Ledger, voting
from tests.conftest import REPO
from tests.votes_helpers import cast


def test_a_vote_is_on_disk_when_record_vote_returns(small_family):
    vote = cast(small_family)
    with Ledger.open(small_family.path, readonly=True) as other:
        assert voting.get_vote(other, vote.vote_id) == vote


def test_a_retried_vote_is_recognised_and_not_written_twice(small_family):
    vote = cast(small_family)
    assert voting.record_vote(small_family, vote) == "already_recorded"
    assert len(voting.votes_in_force(small_family, "small")) == 1


def test_a_retry_with_other_content_is_refused(small_family):
    vote = cast(small_family)
    with pytest.raises(ArenaError, match="already recorded with other content"):
        voting.record_vote(small_family, dataclasses.replace(vote, choice="right"))


def test_undo_writes_a_retraction_and_keeps_the_vote_row(small_family):
    session = voting.start_session(small_family, "small", seed=1)
    first = cast(small_family, session=session)
    second = cast(small_family, session=session, case_index=1, choice="tie")
    assert voting.undo_last(small_family, "small") == second
    assert voting.undo_last(small_family, "small") == first
    assert voting.undo_last(small_family, "small") is None
    assert voting.votes_in_force(small_family, "small") == []
    assert small_family.db["votes"].count == 2
    assert small_family.db["retractions"].count == 2


def test_a_vote_cannot_be_retracted_twice(small_family):
    vote = cast(small_family)
    voting.retract(small_family, vote.vote_id)
    with pytest.raises(BadInput, match="already retracted"):
        voting.retract(small_family, vote.vote_id)


def test_skips_are_recorded_but_are_not_votes(small_family):
    cast(small_family, choice="skip")
    assert voting.votes_in_force(small_family, "small") == []
    assert len(voting.votes_in_force(small_family, "small", include_skips=True)) == 1


def test_sessions_are_numbered_per_family(small_family):
    numbers = [voting.start_session(small_family, "small", seed=s).number for s in (1, 2, 3)]
    assert numbers == [1, 2, 3]


def test_a_vote_committed_by_a_killed_process_is_recognised_on_retry(small_family):
    """The child commits, then dies before it can acknowledge; the retry writes nothing."""
    import signal
    import subprocess
    import sys
    import textwrap

    from arena.records import VoteId

    path = small_family.path
    small_family.close()
    code = textwrap.dedent(f"""
        import os, sys
        from arena.ledger import Ledger
        from tests.votes_helpers import cast
        with Ledger.open({path!r}) as ledger:
            vote = cast(ledger, vote_id="feedfacefeedfacefeedfacefeedface")
            os.kill(os.getpid(), {int(signal.SIGKILL)})
    """)
    child = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True)
    assert child.returncode == -signal.SIGKILL
    with Ledger.open(path) as reopened:
        vote = voting.get_vote(reopened, VoteId("feedfacefeedfacefeedfacefeedface"))
        assert vote is not None
        assert voting.record_vote(reopened, vote) == "already_recorded"
        assert reopened.db["votes"].count == 1


def test_a_pair_of_two_cases_is_refused_and_a_forged_one_is_reported(small_family):
    from arena.ledger import catalog, chain
    from arena.ledger.integrity import check
    from tests.votes_helpers import show_and_vote

    outputs = catalog.outputs(small_family, "small")
    first, other = sorted({o.case_id for o in outputs})[:2]
    left = next(o for o in outputs if o.case_id == first)
    right = next(o for o in outputs if o.case_id == other)
    session = voting.start_session(small_family, "small", seed=1)
    with pytest.raises(BadInput, match=f"not two outputs of case '{first}'"):
        show_and_vote(small_family, session, left, right)
    assert small_family.db["presentations"].count == 0
    vote = cast(small_family, session=session)
    with pytest.raises(BadInput, match="not two outputs of case"):
        voting.record_vote(
            small_family, dataclasses.replace(vote, vote_id="v2", right_output=right.output_id)
        )
    # Written past the check (as an old ledger or a forger could): `arena check` names them.
    shown = voting.get_presentation(small_family, vote.presentation_id)
    with small_family.atomic():
        chain.append(
            small_family,
            "presentations",
            dataclasses.asdict(
                dataclasses.replace(shown, presentation_id="p", right_output=right.output_id)
            ),
        )
        forged = dataclasses.replace(
            vote, vote_id="v", presentation_id="p", right_output=right.output_id
        )
        chain.append(small_family, "votes", voting._vote_row(forged))
    assert check(small_family) == [
        "presentations: p: its outputs are not two of its case",
        "votes: v: its outputs are not two of its case",
        # Written past Arena, the vote has no repeat draw kept beside it either.
        "repeat_draws: does not match the votes it counts (1 rows differ); "
        "`arena check --recount` writes the tallies anew",
    ]
