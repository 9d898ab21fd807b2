"""A family's history as its scheduler reads it.

``family_summary`` is what a rating session starts from: the counts the ledger keeps vote
by vote and only the presentations the scheduler must know one by one. ``family_history``
is the whole of it, each presentation in order with the vote in force on it (``voting.
history``, read as two passes in order, one over the presentations and one over the votes,
instead of looking up each presentation's newest vote): what the tests and the large-family
benchmark hold the summary to."""

from __future__ import annotations

import json
from collections.abc import Sequence
from operator import attrgetter

import numpy as np

from arena.ledger import catalog
from arena.ledger.connection import Ledger
from arena.ledger.in_force import not_retracted, standing_vote
from arena.ledger.migrations_0030 import SHIFT
from arena.records import HistorySummary, OutputPlace, PairShowings, ShownRow

_PRESENTATIONS = """
SELECT presentation_id, case_id, left_output, right_output, repeat_of
FROM presentations WHERE family = ? ORDER BY seq
"""
# In order, so that a later vote on a presentation (a correction) replaces an earlier one.
_VOTES = f"""
SELECT presentation_id, vote_id, choice, session_id, voted_at, actor
FROM votes WHERE family = ? AND {not_retracted()}
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


# The vote that stands on presentation ``p``.
_IN_FORCE = standing_vote("p.presentation_id", also="family = p.family")
# A presentation ``p``'s seq and then its row as ``family_history`` gives it, with the vote
# ``v`` in force on it.
_COLUMNS = (
    "SELECT p.seq, "
    + ", ".join([*(f"p.{c}" for c in COLUMNS[:5]), *(f"v.{c}" for c in COLUMNS[5:])])
    + " "
)
_SHOWN = _COLUMNS + f"FROM presentations p LEFT JOIN votes v ON v.vote_id = {_IN_FORCE} "
# Votes in force on an original showing whose draw falls under the share, by the rater (or
# anyone), with no vote in force on any repeat of their presentation: waiting for it.
# From the index of the draws of presentations not repeated, a few lookups for each.
_WAITING = (
    _COLUMNS + "FROM repeat_draws d INDEXED BY repeat_draws_waiting "
    "CROSS JOIN votes v CROSS JOIN presentations p "
    "WHERE d.family = ? AND d.draw < ? AND d.repeats = 0 AND v.vote_id = d.vote_id "
    "AND p.presentation_id = v.presentation_id AND p.seq < ? AND p.repeat_of IS NULL "
    f"AND (? IS NULL OR v.actor = ?) AND v.vote_id = {_IN_FORCE}"
)


def family_summary(
    ledger: Ledger,
    family: str,
    *,
    share: float,
    rater: str | None,
    since: int | None = None,
    places: Sequence[OutputPlace] | None = None,
) -> tuple[HistorySummary, int]:
    """What a rating session's scheduler starts from, read without reading the whole
    history: the kept counts (migrations 0028 to 0030) and the presentations it must know.

    Those are the presentations at the end (back to the one before the last with no
    vote in force, two at least, and every one from ``since``, the ``seq`` of the first
    read before), the votes waiting for their repeat (``share``: the family's repeat
    share; ``rater``: whose votes come back, None: anyone's) and the originals of the
    repeats at the end, with their repeats. Returns it with the ``seq`` of the first
    presentation at the end, to pass as ``since`` when reading again. ``places``: every
    output of the family, numbered (``catalog.output_places``), when the caller has read
    them."""
    db = ledger.conn
    (total,) = db.execute(
        "SELECT count(*) FROM presentations WHERE family = ?", [family]
    ).fetchone()
    end: list[tuple] = []
    for row in db.execute(_SHOWN + "WHERE p.family = ? ORDER BY p.seq DESC", [family]):
        end.append(row)
        if len(end) >= 2 and row[6] is not None and (since is None or row[0] <= since):
            break
    end.reverse()
    start = end[0][0] if end else 0
    older = db.execute(
        _WAITING + " ORDER BY p.seq", [family, share, start, rater, rater]
    ).fetchall()
    known = {row[1] for row in end} | {row[1] for row in older}
    originals = sorted({row[5] for row in end if row[5] is not None} - known)
    if originals:
        older += db.execute(
            _SHOWN + "WHERE p.family = ? AND p.seq < ? AND (p.presentation_id IN "
            "(SELECT value FROM json_each(?)) OR p.repeat_of IN (SELECT value FROM json_each(?)))",
            [family, start, json.dumps(originals), json.dumps(originals)],
        ).fetchall()
    older = sorted({row[1]: row for row in older}.values())
    first = total - len(end)
    rows = [(first - len(older) + at, row[1:]) for at, row in enumerate(older)]
    rows += [(first + at, row[1:]) for at, row in enumerate(end)]
    return (
        HistorySummary(
            presentations=total,
            rows=tuple(rows),
            sides=tuple(
                db.execute(
                    "SELECT left_system, right_system, sum(votes) FROM vote_tallies "
                    "WHERE family = ? GROUP BY 1, 2 HAVING sum(votes) > 0",
                    [family],
                )
            ),
            first_showings=tuple(
                db.execute(
                    "SELECT left_system, right_system, choice, half, votes FROM showing_tallies "
                    "WHERE family = ? AND votes > 0",
                    [family],
                )
            ),
            by_actor=tuple(
                db.execute(
                    "SELECT actor, sum(votes) FROM vote_tallies WHERE family = ? "
                    "AND choice != 'skip' GROUP BY actor HAVING sum(votes) > 0",
                    [family],
                )
            ),
            pairs=_pair_showings(ledger, family, places),
        ),
        start,
    )


def _pair_showings(
    ledger: Ledger, family: str, places: Sequence[OutputPlace] | None
) -> PairShowings:
    """The family's pairs with a vote or a skip in force (migration 0030), their outputs
    named by their places in the family's numbered outputs. The pairs are read as one
    text, which numpy parses (no Python object per pair); their counts likewise, but only
    where they are not the common one vote and no skip."""
    # Cast: a value edited into another type still reads as one number (the check finds
    # the edit), so that the pairs and their counts stay as long as each other.
    where = "FROM pair_showings WHERE family = ? AND (votes OR skips)"
    (listed,) = ledger.conn.execute(
        f"SELECT group_concat(CAST(pair AS INTEGER)) {where}", [family]
    ).fetchone()
    others = ledger.conn.execute(
        "SELECT group_concat(CAST(pair AS INTEGER)), group_concat(CAST(votes AS INTEGER)), "
        f"group_concat(CAST(skips AS INTEGER)) {where} AND (votes != 1 OR skips != 0)",
        [family],
    ).fetchone()
    pair = np.sort(_numbers(listed))
    votes, skips = np.ones(len(pair), dtype=np.int64), np.zeros(len(pair), dtype=np.int64)
    if len(pair):
        odd, odd_votes, odd_skips = (_numbers(c) for c in others)
        at = np.searchsorted(pair, odd).clip(0, len(pair) - 1)
        found = pair[at] == odd
        votes[at[found]], skips[at[found]] = odd_votes[found], odd_skips[found]
    if not len(pair):
        places = ()
    elif places is None:
        places = catalog.output_places(ledger, family)
    numbered = sorted(places, key=attrgetter("number"))
    numbers = np.array([o.number for o in numbered], dtype=np.int64)
    first, second = (_place_of(numbers, n) for n in (pair // SHIFT, pair % SHIFT))
    # A vote on another family's outputs (none is written so) is left out.
    mine = (first >= 0) & (second >= 0)
    return PairShowings(
        outputs=tuple(o.output_id for o in numbered),
        cases=tuple(o.case_id for o in numbered),
        first=first[mine],
        second=second[mine],
        votes=votes[mine],
        skips=skips[mine],
    )


def _numbers(joined: str | None) -> np.ndarray:
    """The integers of a ``group_concat`` text."""
    return np.fromstring(joined or "", sep=",", dtype=np.int64)


def _place_of(numbers: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The place of each of ``wanted`` among ``numbers`` (ascending, distinct), -1 where it
    is not there. A family's outputs are mostly imported together, so their numbers span
    little more than their count: a table indexed by number finds them faster than a
    search does."""
    if not len(numbers):
        return np.full(len(wanted), -1, dtype=np.int64)
    low, high = int(numbers[0]), int(numbers[-1])
    if high - low < 4 * len(numbers) + 1024:
        table = np.full(high - low + 1, -1, dtype=np.int64)
        table[numbers - low] = np.arange(len(numbers))
        inside = (wanted >= low) & (wanted <= high)
        found = np.full(len(wanted), -1, dtype=np.int64)
        found[inside] = table[wanted[inside] - low]
        return found
    at = np.searchsorted(numbers, wanted).clip(0, len(numbers) - 1)
    return np.where(numbers[at] == wanted, at, -1)
