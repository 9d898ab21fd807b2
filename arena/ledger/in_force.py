"""Which votes are in force, as SQL every query of the votes shares: a vote is in force
until a retraction names it, and of the votes on one presentation the newest in force
stands (a later vote corrects an earlier one). Migrations keep their own copies: their SQL
is fixed as they first ran it."""

from __future__ import annotations


def not_retracted(vote: str = "") -> str:
    """The condition that the row of ``votes`` named ``vote`` (a table alias; none: the
    table itself) is in force."""
    column = f"{vote}.vote_id" if vote else "vote_id"
    return f"{column} NOT IN (SELECT vote_id FROM retractions)"


def standing_vote(presentation: str, *, also: str = "") -> str:
    """The id of the vote that stands on the presentation whose id is the SQL expression
    ``presentation`` (NULL: none), among its votes that meet the condition ``also``."""
    extra = f"AND {also} " if also else ""
    return (
        f"(SELECT vote_id FROM votes WHERE presentation_id = {presentation} {extra}"
        f"AND {not_retracted()} ORDER BY seq DESC LIMIT 1)"
    )
