"""A board while voting: the fit of a family's votes so far, stored nowhere.

``preview`` fits the family as a round closing now would (``closing.voted_boards``, the
same comparisons, weights, anchor and columns), with the default round settings, but

- reads the gate verdicts as they stand (a close re-runs the gates first),
- skips the case bootstrap: each board records its regime's check, and its intervals
  come with the round (``Preview.intervals`` is False),
- leaves out the round summary, and writes nothing: it is never a round, never exported.

It only reads, in one read transaction, so a worker thread may run it on a connection of
its own while the window goes on writing votes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena import family_state
from arena.clock import now_iso
from arena.errors import BadInput
from arena.family_state import FamilyState
from arena.ledger import Ledger, catalog, chain
from arena.ledger.transaction import transaction
from arena.records import VOTED_KINDS
from arena.rounds.closing import voted_boards
from arena.rounds.model import Board, Round, RoundSettings

# How everything showing a preview names it, wherever it could be taken for a round.
NOT_A_ROUND = "preview, not a round"
# The chains whose rows change what a board fits: votes, their retractions, corrections.
FITTED_CHAINS = ("votes", "retractions", "events")


@dataclass(frozen=True)
class Preview:
    """The board of ``family``'s votes so far under ``settings``: not a round."""

    family: str
    kind: str
    settings: RoundSettings
    board: Board
    categories: dict[str, Board]
    votes: int  # the rater's votes in the fit
    # Where the family's chains stood when it was fitted (``chain.heads``), and the
    # outputs, gate verdicts and cases (``catalog.marks``).
    heads: dict[str, dict[str, Any]]
    marks: dict[str, int]
    fitted_at: str
    seconds: float  # how long the fit took
    intervals: bool = False  # no bootstrap: a round's intervals come at its close


def preview(ledger: Ledger, family: str, settings: RoundSettings | None = None) -> Preview:
    """The fit of ``family``'s votes so far, as a round closed now with ``settings`` (the
    defaults) would fit them, but for the gates (as last read) and the intervals (none)."""
    return Previewer(family, settings)(ledger)


class Previewer:
    """Previews of one family, one after another: the family as it stands (its outputs,
    gate verdicts and corrections, ``family_state``) is read again only when those moved,
    since votes alone leave it as it was."""

    def __init__(self, family: str, settings: RoundSettings | None = None) -> None:
        self.family = family
        self.settings = settings or RoundSettings()
        self._state: tuple[Any, FamilyState] | None = None  # (what it was read at, state)

    def __call__(self, ledger: Ledger) -> Preview:
        started = time.perf_counter()
        with transaction(ledger.conn):  # one snapshot, while the window goes on writing
            found = catalog.get_family(ledger, self.family)
            if found is None:
                raise BadInput(f"no family {self.family!r} in this ledger", field="--family")
            if found.kind not in VOTED_KINDS:
                raise BadInput(
                    f"{self.family} is a {found.kind} family: only voted families have a preview",
                    field="--preview",
                )
            heads, marks = chain.heads(ledger, self.family), catalog.marks(ledger)
            stood = (marks, heads["events"], found)
            if self._state is None or self._state[0] != stood:
                self._state = (stood, family_state.load(ledger, self.family))
            boards = voted_boards(ledger, self._state[1], self.settings, bootstrap=False)
        votes = int(np.count_nonzero(boards.comparisons.votes & (boards.weights > 0)))
        return Preview(
            family=self.family,
            kind=found.kind,
            settings=self.settings,
            board=boards.board,
            categories=boards.categories,
            votes=votes,
            heads=heads,
            marks=marks,
            fitted_at=now_iso(),
            seconds=time.perf_counter() - started,
        )


# A worker process's previewers, by ledger file and family (``refit``): each keeps the
# family's state between refits. Only ever filled in the process that refits.
_previewers: dict[tuple[str, str], Previewer] = {}


def refit(path: str, family: str, latest: Preview | None) -> Preview | None:
    """The preview of ``family`` in the ledger file at ``path``, read on a read-only
    connection of its own; None when nothing ``latest`` fitted has moved since (its votes,
    corrections, outputs and gate verdicts). A worker process's entry
    (arena.ui.board.preview_refresh)."""
    previewer = _previewers.setdefault((path, family), Previewer(family))
    with Ledger.open(path, readonly=True) as ledger:
        if (
            latest is not None
            and not newer(fitted_heads(ledger, family), latest)
            and catalog.marks(ledger) == latest.marks
        ):
            return None
        return previewer(ledger)


def fitted_heads(ledger: Ledger, family: str) -> dict[str, dict[str, Any]]:
    """Where ``family``'s fitted chains stand now (a few indexed reads)."""
    return {table: chain.head(ledger, table, family) for table in FITTED_CHAINS}


def newer(heads: dict[str, dict[str, Any]], fitted: Round | Preview | None) -> bool:
    """Whether the chains at ``heads`` (``fitted_heads``) hold votes, retractions or
    corrections that ``fitted`` (a round, a preview; None: nothing yet) did not fit."""
    if fitted is None:
        return any(head["seq"] for head in heads.values())
    stood = fitted.chain_heads if isinstance(fitted, Round) else fitted.heads
    return any(stood.get(table) != head for table, head in heads.items())
