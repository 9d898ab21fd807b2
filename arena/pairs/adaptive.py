"""Adaptive pair choice: the system pair whose next vote tells most about the board's order.

Once every system pair with pairs left has a vote (the coverage phase), the scheduler
asks ``OrderModel.best`` which of them to show next instead of the least voted one;
the case, the sides, the repeats and the rule against the same case twice in a row
stay the coverage-first rule's (``arena.pairs.scheduling``). The model counts the
votes in force (skips and repeats apart, a tie or "both bad" half to each side), as
the rating session tells the scheduler, and fits them again from scratch when asked:
the same votes give the same choice, so a restart resumes exactly.

The model counts a tie as half a win each way, as informative as a decisive vote; but a
tie says nothing about which of two systems is ahead. So a system pair's value is
discounted by its share of ties and "both bad", as low as its votes plausibly put it
(``even_floor``): the rater who cannot tell two systems apart is asked about them less,
not again and again, while a tie or two by chance changes little.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from arena import fit
from arena.ledger import Ledger, family_changes
from arena.pairs import votes_left
from arena.records import PAIR_CHOICES, SystemId

#: How the scheduler picks the next system pair once each has a vote: a family records
#: its choice with ``arena family set --pairs``.
ADAPTIVE, COVERAGE = PAIR_CHOICES
#: The choice of a family that records none. Adaptive saves votes for the same board
#: (docs/fitting.md, "Choosing pairs"); the families of a ledger made before it was
#: the default were recorded as coverage-first when the ledger was upgraded (0021).
DEFAULT_PAIR_CHOICE = ADAPTIVE


def choice_of(ledger: Ledger, family: str) -> str:
    """The pair choice in force for ``family`` (from its next rating session)."""
    return family_changes.pair_choice(ledger, family) or DEFAULT_PAIR_CHOICE


#: Below this expected share of system pairs the wrong way round, and below the share at
#: which the order's Kendall tau against the truth falls under 0.9 with a chance of 5%
#: (``fitting.information.stop_threshold``: fewer systems need less), the window suggests
#: the rater may stop (the order is unlikely to change with more votes).
STOP_DISCORDANCE = 0.025

#: How sure the share of ties and "both bad" between two systems must be (a one-sided 95%
#: lower bound, ``even_floor``): it discounts their value, and two systems look alike to
#: the rater when it is over half (``OrderModel.alike``): 4 of 4, 6 of 7, 8 of 10, 14 of 20.
ALIKE_Z = 1.645

SystemPair = tuple[SystemId, SystemId]


def even_floor(wins: np.ndarray, even: np.ndarray) -> np.ndarray:
    """Each two systems' share of ties and "both bad" at the least, at one-sided 95%
    (Wilson's lower bound; 0 where no vote is between them): a tie or two among a pair's
    first votes is no pattern."""
    compared = wins + wins.T
    n = np.maximum(compared, 1.0)
    share = even / n
    z2 = ALIKE_Z * ALIKE_Z
    low = (share + z2 / (2 * n) - ALIKE_Z * np.sqrt(share * (1 - share) / n + z2 / (4 * n * n))) / (
        1 + z2 / n
    )
    low[compared == 0] = 0.0
    np.fill_diagonal(low, 0.0)
    return np.maximum(low, 0.0)


class OrderModel:
    """The votes in force as a win matrix, and what the fit of it says to ask next."""

    def __init__(self, systems: Iterable[SystemId]) -> None:
        self.names = sorted(set(systems))
        self.at = {name: i for i, name in enumerate(self.names)}
        self.wins = np.zeros((len(self.names), len(self.names)))
        # Ties and "both bad" between each two systems (symmetric).
        self.even = np.zeros((len(self.names), len(self.names)))
        self.votes = 0
        # Fits by win matrix: a peek at each outcome of the vote on screen, then the real
        # one, ask again for the same few.
        self._fitted: dict[bytes, Any] = {}
        self._stop: float | None = None

    def count(self, left: SystemId, right: SystemId, choice: str | None, sign: int) -> None:
        """Count (+1) or take back (-1) an ordinary vote of ``left`` against ``right``."""
        self.count_all([left], [right], [choice], sign)

    def count_all(
        self,
        lefts: Sequence[SystemId],
        rights: Sequence[SystemId],
        choices: Sequence[str | None],
        times: Sequence[int] | int = 1,
    ) -> None:
        """``count`` each of many votes at once (a history read when a session starts),
        each ``times`` times (a tally's count; -1 uncounts): a win is one to the winner,
        a tie or "both bad" half to each, a skip nothing."""
        i = np.array([self.at[s] for s in lefts], dtype=np.intp)
        j = np.array([self.at[s] for s in rights], dtype=np.intp)
        chose = np.array(choices, dtype=object)
        n = np.broadcast_to(np.asarray(times, dtype=np.int64), i.shape)
        left, right = chose == "left", chose == "right"
        even = (chose == "tie") | (chose == "both_bad")
        # Halves and wholes add up exactly in any order: the same matrix as one by one.
        for won, lost, where, share in (
            (i, j, left, 1.0),
            (j, i, right, 1.0),
            (i, j, even, 0.5),
            (j, i, even, 0.5),
        ):
            np.add.at(self.wins, (won[where], lost[where]), share * n[where])
        np.add.at(self.even, (i[even], j[even]), n[even])
        np.add.at(self.even, (j[even], i[even]), n[even])
        self.votes += int(n[left | right | even].sum())

    def _posterior(self) -> Any:  # a fitting.information.Posterior, loaded on use
        key = self.wins.tobytes()
        found = self._fitted.pop(key, None)
        if found is None:
            found = fit.information.posterior(self.wins)
        self._fitted[key] = found
        while len(self._fitted) > 8:
            del self._fitted[next(iter(self._fitted))]
        return found

    def best(self, pairs: Sequence[SystemPair]) -> SystemPair:
        """The pair of ``pairs`` (sorted) whose next vote tells most about the order, its
        expected ties and "both bad" discounted; the first of them on a tie."""
        post = self._posterior()
        first = np.array([self.at[a] for a, _ in pairs], dtype=np.intp)
        second = np.array([self.at[b] for _, b in pairs], dtype=np.intp)
        gain = fit.information.order_gain(post, first, second)
        return pairs[int(np.argmax(gain * (1.0 - even_floor(self.wins, self.even)[first, second])))]

    def alike(self) -> SystemPair | None:
        """The two systems the rater most plainly cannot tell apart: most likely (one-sided
        95%, Wilson) to have more than half their votes ties or "both bad"; None when no two
        systems are."""
        low = even_floor(self.wins, self.even)
        a, b = sorted(np.unravel_index(int(np.argmax(low)), low.shape))
        return (self.names[a], self.names[b]) if low[a, b] > 0.5 else None

    def closest(self) -> SystemPair:
        """The two systems whose fitted strengths are nearest (at least two systems)."""
        mean = self._posterior().mean
        gap = np.abs(np.subtract.outer(mean, mean))
        np.fill_diagonal(gap, np.inf)
        a, b = sorted(np.unravel_index(int(np.argmin(gap)), gap.shape))
        return (self.names[a], self.names[b])

    def expected_discordance(self) -> float:
        """The expected share of system pairs the fitted order has the wrong way round."""
        return fit.information.expected_discordance(self._posterior())

    def every_pair_voted(self) -> bool:
        """Whether each two of the systems have a vote between them."""
        voted = (self.wins + self.wins.T) > 0
        return bool(voted.sum() == len(self.names) * (len(self.names) - 1))

    def stop_discordance(self) -> float:
        """The expected discordance under which the order is settled (``STOP_DISCORDANCE``
        at most)."""
        if self._stop is None:  # the systems do not change: worked out once
            n = len(self.names)
            found = fit.information.stop_threshold(n) if n > 1 else STOP_DISCORDANCE
            self._stop = min(STOP_DISCORDANCE, found)
        return self._stop

    def settled(self, covered: bool) -> bool:
        """The stop suggestion: ``covered`` (every system pair that can have a vote has
        one) and at most ``stop_discordance`` of the system pairs expected the wrong way
        round."""
        return covered and self.expected_discordance() <= self.stop_discordance()

    def votes_to_settle(self, covered: bool) -> int | None:
        """About how many more votes until ``settled`` (0: it is); None when that cannot
        be told: before ``covered``, or when no number of votes would do."""
        if not covered:
            return None
        left = fit.information.votes_to_settle(
            self._posterior(), self.votes, self.stop_discordance()
        )
        return None if left is None else math.ceil(left)

    def outlook(self, covered: bool, pairs_left: int) -> votes_left.VotesLeft:
        """The model's reading of the votes left (``arena.pairs.votes_left``): ``covered``
        as for ``settled``, ``pairs_left`` the pairs with no vote in force."""
        read = votes_left.VotesLeft
        if self.settled(covered):
            return read(votes_left.SETTLED, pairs_left)
        if pairs_left <= 0:
            return read(votes_left.DONE, 0)
        voted_pairs = int(np.count_nonzero(np.triu(self.wins + self.wins.T, k=1)))
        if not covered or self.votes < 2 * voted_pairs:
            return read(votes_left.TOO_EARLY, pairs_left)
        alike = self.alike()
        left = self.votes_to_settle(covered)
        if alike is not None or left is None:
            return read(votes_left.ALIKE, pairs_left, alike=alike or self.closest())
        if left > pairs_left:
            return read(votes_left.BEYOND, pairs_left)
        return read(votes_left.ABOUT, pairs_left, votes=left)
