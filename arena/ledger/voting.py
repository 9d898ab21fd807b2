"""Sessions, presentations, votes and retractions: what the rater adds.

Ids are made by the caller before writing (``new_id``), so a write retried
after a crash finds its own row and reports it as already recorded instead
of writing it twice.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterable, Iterator
from typing import Literal

from arena.clock import now_iso
from arena.errors import ArenaError, BadInput
from arena.ledger import chain, repeat_draws
from arena.ledger.connection import Ledger
from arena.ledger.in_force import not_retracted, standing_vote
from arena.records import Presentation, PresentationId, Session, SessionId, Vote, VoteId

Written = Literal["recorded", "already_recorded"]


def new_id() -> str:
    return uuid.uuid4().hex


def start_session(ledger: Ledger, family: str, *, seed: int, actor: str = "rater") -> Session:
    """Open the next numbered session of ``family``."""
    with ledger.atomic():
        (last,) = ledger.conn.execute(
            "SELECT COALESCE(MAX(number), 0) FROM sessions WHERE family = ?", [family]
        ).fetchone()
        session = Session(SessionId(new_id()), family, last + 1, seed, actor, now_iso())
        ledger.insert("sessions", dataclasses.asdict(session))
    return session


def add_session(ledger: Ledger, session: Session) -> None:
    """Record ``session`` as given (its id and number chosen by the caller)."""
    with ledger.atomic():
        ledger.insert("sessions", dataclasses.asdict(session))


def sessions(ledger: Ledger, family: str) -> list[Session]:
    rows = ledger.rows("SELECT * FROM sessions WHERE family = ? ORDER BY number", [family])
    return [Session(**r) for r in rows]


def _existing(ledger: Ledger, table: str, key: str, value: str) -> dict | None:
    rows = ledger.rows(f"SELECT * FROM {table} WHERE {key} = ?", [value])
    return rows[0] if rows else None


def _same(stored: dict, row: dict) -> bool:
    return all(stored[k] == v for k, v in row.items())


def _write_once(ledger: Ledger, table: str, key: str, row: dict) -> Written:
    with ledger.atomic():
        stored = _existing(ledger, table, key, row[key])
        if stored is not None:
            if not _same(stored, row):
                raise ArenaError(f"{table} {row[key]} is already recorded with other content")
            return "already_recorded"
        chain.append(ledger, table, row)
    return "recorded"


def record_presentation(ledger: Ledger, presentation: Presentation) -> Written:
    _refuse_other_cases(ledger, presentation)
    return _write_once(ledger, "presentations", "presentation_id", dataclasses.asdict(presentation))


def places(ledger: Ledger, outputs: Iterable[str]) -> dict[str, tuple[str, str]]:
    """The family and case of each of ``outputs`` that is recorded."""
    rows = ledger.conn.execute(
        "SELECT output_id, family, case_id FROM output_keys "
        "WHERE output_id IN (SELECT value FROM json_each(?))",
        [json.dumps(sorted(set(outputs)))],
    )
    return {output: (family, case) for output, family, case in rows}


def refuse_other_cases(found: dict[str, tuple[str, str]], shown: Presentation | Vote) -> None:
    """Refuse a presentation or vote whose outputs are not two outputs of its case of its
    family (SPEC: a pair is two outputs on the same case; ``integrity`` reports a stored
    row that is not). ``found``: ``places`` of its outputs."""
    place = (shown.family, shown.case_id)
    if found.get(shown.left_output) != place or found.get(shown.right_output) != place:
        raise BadInput(
            f"the pair is not two outputs of case {shown.case_id!r} of {shown.family!r}",
            field="right_output",
        )


def _refuse_other_cases(ledger: Ledger, shown: Presentation | Vote) -> None:
    refuse_other_cases(places(ledger, (shown.left_output, shown.right_output)), shown)


def _vote_row(vote: Vote) -> dict:
    row = dataclasses.asdict(vote)
    row["identity_leak"] = int(vote.identity_leak)
    return row


class AlreadyVoted(ArenaError):
    """The presentation already has another vote in force (a retry after a failure that
    came after the commit): ``standing`` is that vote, and nothing new was written."""

    def __init__(self, standing: Vote) -> None:
        self.standing = standing
        super().__init__(f"this pair was already voted {standing.choice!r}; that vote stands")


def record_vote(ledger: Ledger, vote: Vote) -> Written:
    """Commit ``vote`` (durably, before returning) or find it already recorded.

    Raises ``AlreadyVoted`` when another vote on the same presentation is in force.
    """
    if vote.left_output == vote.right_output:
        raise BadInput("a vote needs two different outputs", field="right_output")
    _refuse_other_cases(ledger, vote)
    with ledger.atomic():
        if _existing(ledger, "votes", "vote_id", vote.vote_id) is None:
            standing = vote_on(ledger, vote.presentation_id)
            if standing is not None:
                raise AlreadyVoted(standing)
        written = _write_once(ledger, "votes", "vote_id", _vote_row(vote))
        if written == "recorded":
            repeat_draws.add(
                ledger.conn,
                [(vote.vote_id, vote.family, vote.presentation_id, vote.repeat_of, vote.choice)],
            )
        return written


def _vote(row: dict) -> Vote:
    values = {f.name: row[f.name] for f in dataclasses.fields(Vote)}
    values["identity_leak"] = bool(values["identity_leak"])
    return Vote(**values)


def get_vote(ledger: Ledger, vote_id: VoteId) -> Vote | None:
    row = _existing(ledger, "votes", "vote_id", vote_id)
    return _vote(row) if row else None


def retract(
    ledger: Ledger,
    vote_id: VoteId,
    *,
    session_id: SessionId | None = None,
    retraction_id: str | None = None,
) -> Written:
    """Supersede a vote with a retraction row; the vote row itself stays."""
    with ledger.atomic():
        rid = retraction_id or new_id()
        stored = _existing(ledger, "retractions", "retraction_id", rid)
        if stored is not None:
            return "already_recorded"
        vote = _existing(ledger, "votes", "vote_id", vote_id)
        if vote is None:
            raise BadInput(f"no vote {vote_id} to retract", field="vote_id")
        if _existing(ledger, "retractions", "vote_id", vote_id) is not None:
            raise BadInput(f"vote {vote_id} is already retracted", field="vote_id")
        chain.append(
            ledger,
            "retractions",
            {
                "retraction_id": rid,
                "family": vote["family"],
                "vote_id": vote_id,
                "session_id": session_id,
                "retracted_at": now_iso(),
            },
        )
    return "recorded"


def undo_last(
    ledger: Ledger, family: str, *, actor: str = "rater", session_id: SessionId | None = None
) -> Vote | None:
    """Retract ``actor``'s newest vote (or skip) in ``family`` still in force.

    Returns the retracted vote, or None when nothing is left to undo; undo is
    unlimited and reaches back across sessions.
    """
    rows = ledger.rows(
        f"SELECT * FROM votes WHERE family = ? AND actor = ? AND {not_retracted()} "
        "ORDER BY seq DESC LIMIT 1",
        [family, actor],
    )
    if not rows:
        return None
    vote = _vote(rows[0])
    retract(ledger, vote.vote_id, session_id=session_id)
    return vote


def votes_in_force(ledger: Ledger, family: str, *, include_skips: bool = False) -> list[Vote]:
    """Votes not retracted, oldest first; repeats included, skips only on request."""
    skip = "" if include_skips else "AND choice != 'skip'"
    rows = ledger.rows(
        f"SELECT * FROM votes WHERE family = ? {skip} AND {not_retracted()} ORDER BY seq",
        [family],
    )
    return [_vote(r) for r in rows]


def vote_batches(ledger: Ledger, family: str, size: int = 50_000) -> Iterator[list[tuple]]:
    """The votes in force without skips, oldest first, in batches of rows of (vote_id,
    left_output, right_output, choice, actor, repeat_of, session_id): what a round reads
    of a million votes, without making a million records. A vote's case is its outputs'
    (``record_vote`` refuses any other, ``arena check`` reports one) and its session's
    number is in ``sessions``: reading either here costs a look-up per vote."""
    cursor = ledger.conn.execute(
        "SELECT vote_id, left_output, right_output, choice, actor, repeat_of, session_id "
        f"FROM votes WHERE family = ? AND choice != 'skip' AND {not_retracted()} ORDER BY seq",
        [family],
    )
    while batch := cursor.fetchmany(size):
        yield batch


def history(ledger: Ledger, family: str) -> list[dict]:
    """Every presentation of ``family`` in order, with the vote in force on it (if any)."""
    return ledger.rows(
        f"""
        SELECT p.presentation_id, p.case_id, p.left_output, p.right_output, p.repeat_of,
               v.vote_id, v.choice, v.session_id, v.voted_at, v.actor
        FROM presentations p
        LEFT JOIN votes v ON v.vote_id = {standing_vote("p.presentation_id")}
        WHERE p.family = ?
        ORDER BY p.seq
        """,
        [family],
    )


def vote_on(ledger: Ledger, presentation_id: PresentationId) -> Vote | None:
    """The vote in force on a presentation, if any."""
    rows = ledger.rows(
        f"SELECT * FROM votes WHERE vote_id = {standing_vote('?')}", [presentation_id]
    )
    return _vote(rows[0]) if rows else None


def get_presentation(ledger: Ledger, presentation_id: PresentationId) -> Presentation | None:
    row = _existing(ledger, "presentations", "presentation_id", presentation_id)
    if row is None:
        return None
    return Presentation(**{f.name: row[f.name] for f in dataclasses.fields(Presentation)})


def vote_times(ledger: Ledger, family: str) -> dict[str, str]:
    """When each of ``family``'s votes was cast, by vote id (retracted ones included)."""
    return dict(
        ledger.conn.execute("SELECT vote_id, voted_at FROM votes WHERE family = ?", [family])
    )


def raters(ledger: Ledger, family: str | None = None) -> list[str]:
    """Everyone who voted or sat a session (in ``family``, or in any), in the order they
    first appear; the settler, which votes on nothing, is no rater."""
    where, params = ("WHERE family = ?", [family]) if family is not None else ("", [])
    rows = ledger.conn.execute(
        f"SELECT actor, MIN(at) FROM (SELECT actor, started_at AS at FROM sessions {where} "
        f"UNION ALL SELECT actor, voted_at FROM votes {where}) WHERE actor != 'settler' "
        "GROUP BY actor ORDER BY MIN(at), actor",
        params + params,
    ).fetchall()
    return [actor for actor, _ in rows]


def votes_by_actor(ledger: Ledger, family: str) -> dict[str, int]:
    """How many votes in force each actor has in ``family`` (as ``votes_in_force`` counts
    them: skips apart, repeats included), in the order the actors first voted."""
    rows = ledger.conn.execute(
        f"SELECT actor, count(*) FROM votes WHERE family = ? AND choice != 'skip' AND "
        f"{not_retracted()} GROUP BY actor ORDER BY MIN(seq)",
        [family],
    ).fetchall()
    return {actor: n for actor, n in rows}
