"""A family's presentations in order, each with the vote in force on it: what a rating
session reads once when it starts (``voting.history``, read as two passes in order, one
over the family's presentations and one over its votes, instead of looking up each
presentation's newest vote)."""

from __future__ import annotations

from arena.ledger.connection import Ledger
from arena.records import ShownRow

_PRESENTATIONS = """
SELECT presentation_id, case_id, left_output, right_output, repeat_of
FROM presentations WHERE family = ? ORDER BY seq
"""
# In order, so that a later vote on a presentation (a correction) replaces an earlier one.
_VOTES = """
SELECT presentation_id, vote_id, choice, session_id, voted_at, actor
FROM votes WHERE family = ? AND vote_id NOT IN (SELECT vote_id FROM retractions)
ORDER BY seq
"""
COLUMNS = (
    "presentation_id",
    "case_id",
    "left_output",
    "right_output",
    "repeat_of",
    "vote_id",
    "choice",
    "session_id",
    "voted_at",
    "actor",
)
_NO_VOTE = (None, None, None, None, None)


def family_history(ledger: Ledger, family: str) -> list[ShownRow]:
    """Rows of (presentation_id, case_id, left_output, right_output, repeat_of, vote_id,
    choice, session_id, voted_at, actor: the vote's) as ``voting.history`` gives them (as dicts)
    for ``family``. Votes are read by their own family: the rating session and
    `import-votes` write each vote with its presentation's family, case and outputs."""
    db = ledger.conn
    in_force = {row[0]: row[1:] for row in db.execute(_VOTES, [family])}
    return [
        shown + in_force.get(shown[0], _NO_VOTE) for shown in db.execute(_PRESENTATIONS, [family])
    ]
