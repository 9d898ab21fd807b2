"""Building presentations and votes on a small family for tests."""

from __future__ import annotations

from arena.ledger import Ledger, catalog, voting
from arena.records import Output, PairShowings, Presentation, PresentationId, Vote, VoteId


def cast(
    ledger: Ledger,
    family: str = "small",
    choice: str = "left",
    *,
    session=None,
    case_index: int = 0,
    vote_id: str | None = None,
) -> Vote:
    """Show the first two outputs of a case and record a vote on them."""
    outputs = catalog.outputs(ledger, family)
    case_id = sorted({o.case_id for o in outputs})[case_index]
    left, right = [o for o in outputs if o.case_id == case_id][:2]
    session = session or voting.start_session(ledger, family, seed=7)
    return show_and_vote(ledger, session, left, right, choice, vote_id=vote_id)


def show_and_vote(
    ledger: Ledger,
    session,
    left: Output,
    right: Output,
    choice: str = "left",
    *,
    repeat_of: Vote | None = None,
    vote_id: str | None = None,
) -> Vote:
    """Show ``left`` beside ``right`` (a repeat of the vote ``repeat_of``, when given) and
    record a vote on them directly, as no scheduler would choose them: the vote."""
    presentation = Presentation(
        PresentationId(voting.new_id()),
        session.session_id,
        left.family,
        left.case_id,
        left.output_id,
        right.output_id,
        "2026-11-30T10:00:00.000+00:00",
        repeat_of=None if repeat_of is None else repeat_of.presentation_id,
    )
    voting.record_presentation(ledger, presentation)
    vote = Vote(
        VoteId(vote_id or voting.new_id()),
        presentation.presentation_id,
        session.session_id,
        left.family,
        left.case_id,
        left.output_id,
        right.output_id,
        choice,
        presentation.shown_at,
        "2026-11-30T10:00:09.500+00:00",
        9500,
        repeat_of=None if repeat_of is None else repeat_of.vote_id,
    )
    voting.record_vote(ledger, vote)
    return vote


def named_showings(showings: PairShowings) -> set[tuple]:
    """Each pair with a vote or a skip: its outputs' ids (sorted), its case, its votes and
    its skips, however the summary numbered its outputs."""
    named, cases = showings.outputs, showings.cases
    columns = (showings.first, showings.second, showings.votes, showings.skips)
    return {
        (*sorted((named[a], named[b])), cases[a], votes, skips)
        for a, b, votes, skips in zip(*(c.tolist() for c in columns), strict=True)
        if votes or skips
    }
