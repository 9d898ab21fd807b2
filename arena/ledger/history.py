"""A family's presentations in order, each with the vote in force on it: what a rating
session reads once when it starts (``voting.history``, each presentation's vote looked up
by the index instead of grouping every vote of the ledger)."""

from __future__ import annotations

from arena.ledger.connection import Ledger
from arena.records import ShownRow

_HISTORY = """
SELECT p.presentation_id, p.case_id, p.left_output, p.right_output, p.repeat_of,
       v.vote_id, v.choice, v.session_id, v.voted_at
FROM presentations p
LEFT JOIN votes v ON v.seq = (
    SELECT MAX(w.seq) FROM votes w
    WHERE w.presentation_id = p.presentation_id
      AND w.vote_id NOT IN (SELECT vote_id FROM retractions)
)
WHERE p.family = ?
ORDER BY p.seq
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
)


def family_history(ledger: Ledger, family: str) -> list[ShownRow]:
    """Rows of (presentation_id, case_id, left_output, right_output, repeat_of, vote_id,
    choice, session_id, voted_at: the vote's) as ``voting.history`` gives them (as dicts)
    for ``family``."""
    return ledger.db.execute(_HISTORY, [family]).fetchall()
