"""What the rating page's status line says besides the counts: the time and the stop."""

from __future__ import annotations

from arena.rating.session import RatingSession


def stop_note(session: RatingSession) -> str:
    """The suggestion to stop (no claim about a system), or about how many votes until it
    (two significant figures: an estimate, not a count)."""
    if session.order_settled():
        return "  ·  more votes are unlikely to change the order"
    left = session.votes_to_settle()
    return (
        f"  ·  about {float(f'{left:.2g}'):,.0f} more votes until the order is unlikely to change"
        if left
        else ""
    )


def clock_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
