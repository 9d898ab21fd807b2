"""A simulated family and rater: planted truths to check the fit and its diagnostics against.

Pure numpy and seeded. :func:`draw_systems` draws true strengths, gate failure rates and
typical lengths; :func:`draw_family` the cases (difficulty, each output's quality and
length, several samples, gate failures, identical outputs); :class:`RaterTraits` says how
a pair shown left and right is judged (Bradley–Terry on the outputs' qualities, ties and
"both bad", side and length leans, random choices, memory of recent pairs).
:class:`SimulatedRater` answers one presentation at a time, whoever picks the pairs (the
real scheduler, in ``arena.rounds.simulation``); :func:`simulate_votes` is a vectorised
coverage-first stand-in, fast enough for thousands of rounds, voting the pairs
:func:`settled_pairs` leaves pending.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: The four choices, in the order :func:`choice_probabilities` returns them.
CHOICES = ("left", "right", "tie", "both_bad")


@dataclass(frozen=True)
class SystemTraits:
    """What a system is, whatever the case: strength, gate failure rate, typical length."""

    strengths: NDArray[np.float64]  # true log-strengths
    fail_rate: NDArray[np.float64]  # chance an output fails a gate
    log_length: NDArray[np.float64]  # mean log of an output's length in characters

    @property
    def n_systems(self) -> int:
        return int(self.strengths.shape[0])


def draw_systems(
    n_systems: int,
    *,
    rng: np.random.Generator,
    spread: float = 1.0,
    settle_share: float = 0.0,
    length_spread: float = 0.3,
) -> SystemTraits:
    """Systems with N(0, ``spread``) strengths, centred.

    ``settle_share`` is about the share of pairs a gate settles: each output
    fails with ``1 - sqrt(1 - settle_share)`` on average, the systems around it.
    """
    if not 2 <= n_systems <= 4000:
        raise ValueError("`n_systems` must be between 2 and 4000.")
    if not 0.0 <= settle_share < 1.0:
        raise ValueError("`settle_share` must be in [0, 1).")
    strengths = rng.normal(0.0, spread, n_systems)
    strengths -= strengths.mean()
    mean_fail = 1.0 - math.sqrt(1.0 - settle_share)
    fail = np.clip(mean_fail * rng.uniform(0.25, 1.75, n_systems), 0.0, 0.95)
    log_length = math.log(1200.0) + rng.normal(0.0, length_spread, n_systems)
    return SystemTraits(strengths, fail, log_length)


@dataclass(frozen=True)
class SimulatedFamily:
    """Cases answered by every system, ``samples`` outputs each.

    Output arrays have shape ``(n_cases, n_systems * samples)``; output ``o`` of
    a case belongs to system ``o // samples``.
    """

    systems: SystemTraits
    samples: int
    difficulty: NDArray[np.float64]  # per case, >= 0: harder = less told apart, more both bad
    quality: NDArray[np.float64]
    length: NDArray[np.int64]
    failing: NDArray[np.bool_]
    copy_of: NDArray[np.int64]  # the output of the same case whose text it repeats, or -1

    @property
    def n_cases(self) -> int:
        return int(self.difficulty.shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.quality.shape[1])


def draw_family(
    systems: SystemTraits,
    n_cases: int,
    *,
    rng: np.random.Generator,
    samples: int = 1,
    quality_sd: float = 0.5,
    difficulty_sd: float = 0.5,
    length_sd: float = 0.4,
    identical_share: float = 0.0,
) -> SimulatedFamily:
    """Cases for ``systems``: each output's quality is its system's strength plus
    N(0, ``quality_sd``); a case's difficulty is |N(0, ``difficulty_sd``)|; lengths
    are log-normal around the system's; ``identical_share`` of the outputs repeat
    the text of another system's output on the same case."""
    if n_cases < 1 or samples < 1:
        raise ValueError("`n_cases` and `samples` must be at least 1.")
    n = systems.n_systems
    shape = (n_cases, n * samples)
    owner = np.repeat(np.arange(n), samples)
    quality = systems.strengths[owner] + rng.normal(0.0, quality_sd, shape)
    length = np.exp(systems.log_length[owner] + rng.normal(0.0, length_sd, shape))
    length = np.maximum(length.astype(np.int64), 20)
    failing = rng.random(shape) < systems.fail_rate[owner]
    copy_of = np.full(shape, -1, dtype=np.int64)
    copying = rng.random(shape) < identical_share
    for case, out in np.argwhere(copying).tolist():
        # The source is an output of another system that copies no one.
        other = int(rng.integers(n * samples))
        if other // samples != out // samples and not copying[case, other]:
            copy_of[case, out] = other
            quality[case, out] = quality[case, other]
            length[case, out] = length[case, other]
            failing[case, out] = failing[case, other]
    difficulty = np.abs(rng.normal(0.0, difficulty_sd, n_cases))
    return SimulatedFamily(systems, samples, difficulty, quality, length, failing, copy_of)


# The comparisons a family's rules settle before any vote, as the ledger's rules settle
# them (SPEC "settled pair"), and the pairs left.


@dataclass(frozen=True)
class SettledPairs:
    """Comparisons the rules settle: a failing output loses to a passing one, two
    failing tie, identical outputs tie; each weighs 1/(k_a*k_b)."""

    case: NDArray[np.intp]
    a: NDArray[np.intp]  # systems
    b: NDArray[np.intp]
    y: NDArray[np.float64]
    w: NDArray[np.float64]


def _output_pairs(family: SimulatedFamily) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    first, second = np.triu_indices(family.n_outputs, k=1)
    across = first // family.samples != second // family.samples
    return first[across], second[across]


def settled_pairs(family: SimulatedFamily) -> tuple[SettledPairs, NDArray[np.intp]]:
    """The settled comparisons, and the pending pairs as rows ``(case, output_a, output_b)``."""
    first, second = _output_pairs(family)
    cases = np.repeat(np.arange(family.n_cases), first.size)
    oa, ob = np.tile(first, family.n_cases), np.tile(second, family.n_cases)
    fa, fb = family.failing[cases, oa], family.failing[cases, ob]
    same = (family.copy_of[cases, oa] == ob) | (family.copy_of[cases, ob] == oa)
    same |= (family.copy_of[cases, oa] >= 0) & (
        family.copy_of[cases, oa] == family.copy_of[cases, ob]
    )
    settled = fa | fb | same
    y = np.where(fa & fb, 0.5, np.where(fa, 0.0, np.where(fb, 1.0, 0.5)))
    k = float(family.samples)
    found = SettledPairs(
        cases[settled],
        oa[settled] // family.samples,
        ob[settled] // family.samples,
        y[settled],
        np.full(int(settled.sum()), 1.0 / (k * k)),
    )
    pending = np.stack([cases[~settled], oa[~settled], ob[~settled]], axis=1)
    return found, pending


@dataclass(frozen=True)
class RaterTraits:
    """How the simulated rater judges: ``length_preference`` in logits per unit of ``d =
    (len_left - len_right) / (len_left + len_right)``, ``side_bias`` in logits toward the
    left, ``inconsistency`` the chance of a choice made at random (any of the four),
    ``memory`` the chance of the same answer again on a pair seen within ``memory_span``."""

    tie: float = 0.05
    both_bad: float = 0.03
    side_bias: float = 0.0
    length_preference: float = 0.0
    inconsistency: float = 0.0
    memory: float = 0.0
    memory_span: int = 20


def choice_probabilities(
    family: SimulatedFamily,
    rater: RaterTraits,
    case: NDArray[np.intp],
    left: NDArray[np.intp],
    right: NDArray[np.intp],
) -> NDArray[np.float64]:
    """P(left), P(right), P(tie), P(both bad) of each presentation (rows), without memory."""
    case, left, right = (np.asarray(x, dtype=np.intp) for x in (case, left, right))
    hard = family.difficulty[case]
    q = family.quality
    len_l, len_r = family.length[case, left], family.length[case, right]
    d = (len_l - len_r) / (len_l + len_r)
    margin = np.exp(-hard) * (q[case, left] - q[case, right])
    margin = margin + rater.side_bias + rater.length_preference * d
    both_bad = np.minimum(0.5, rater.both_bad * np.exp(hard))
    tie = np.full_like(both_bad, rater.tie)
    decisive = 1.0 - both_bad - tie
    p_left = decisive * 0.5 * (1.0 + np.tanh(0.5 * margin))
    probs = np.stack([p_left, decisive - p_left, tie, both_bad], axis=1)
    e = rater.inconsistency
    return (1.0 - e) * probs + e / 4.0


def expected_y(probs: NDArray[np.float64]) -> NDArray[np.float64]:
    """The expected outcome of the left side (1 won, 0.5 tie or both bad)."""
    return probs[:, 0] + 0.5 * (probs[:, 2] + probs[:, 3])


def balanced_expected_y(
    family: SimulatedFamily,
    rater: RaterTraits,
    case: NDArray[np.intp],
    first: NDArray[np.intp],
    second: NDArray[np.intp],
) -> NDArray[np.float64]:
    """The expected outcome of ``first`` against ``second``, each side half the time (the
    scheduler balances them)."""
    forward = expected_y(choice_probabilities(family, rater, case, first, second))
    backward = expected_y(choice_probabilities(family, rater, case, second, first))
    return (forward + 1.0 - backward) / 2.0


def _draw(probs: NDArray[np.float64], u: NDArray[np.float64]) -> NDArray[np.int8]:
    return np.minimum((u[:, None] >= np.cumsum(probs, axis=1)).sum(axis=1), 3).astype(np.int8)


_MIRROR = np.array([1, 0, 2, 3], dtype=np.int8)


class SimulatedRater:
    """Answers one presentation at a time, as the rater at the window would.

    ``choose(case, left, right)`` takes output indices of ``family`` and returns
    ``"left"``, ``"right"``, ``"tie"`` or ``"both_bad"``. A pair (either side)
    answered within the last ``memory_span`` presentations is answered the same
    way again with chance ``memory`` (mapped to the sides now shown).
    """

    def __init__(
        self, family: SimulatedFamily, traits: RaterTraits, *, rng: np.random.Generator
    ) -> None:
        self.family = family
        self.traits = traits
        self._rng = rng
        self._uniform: list[float] = []
        self._seen: OrderedDict[tuple[int, int, int], tuple[int, int, int]] = OrderedDict()
        self.presentations = 0
        # Every answer given: (case, left, right, index into CHOICES).
        self.answers: list[tuple[int, int, int, int]] = []

    def _u(self) -> float:  # uniforms drawn 4,096 at a time: a draw each costs more
        if not self._uniform:
            self._uniform = self._rng.random(4096).tolist()
        return self._uniform.pop()

    def probabilities(self, case: int, left: int, right: int) -> list[float]:
        """P(left), P(right), P(tie), P(both bad) of one presentation, without memory."""
        f, t = self.family, self.traits
        hard = float(f.difficulty[case])
        len_l, len_r = int(f.length[case, left]), int(f.length[case, right])
        margin = math.exp(-hard) * float(f.quality[case, left] - f.quality[case, right])
        margin += t.side_bias + t.length_preference * (len_l - len_r) / (len_l + len_r)
        both_bad = min(0.5, t.both_bad * math.exp(hard))
        decisive = 1.0 - both_bad - t.tie
        p_left = decisive * 0.5 * (1.0 + math.tanh(0.5 * margin))
        e = t.inconsistency
        return [(1 - e) * p + e / 4 for p in (p_left, decisive - p_left, t.tie, both_bad)]

    def choose(self, case: int, left: int, right: int) -> str:
        self.presentations += 1
        key = (case, min(left, right), max(left, right))
        t = self.traits
        seen = self._seen.pop(key, None)
        if (
            seen is not None
            and self.presentations - seen[0] <= t.memory_span
            and self._u() < t.memory
        ):
            choice = seen[1]
            if choice < 2 and left != seen[2]:  # remembered with the sides the other way
                choice = 1 - choice
        else:
            u, total, choice = self._u(), 0.0, 3
            for index, p in enumerate(self.probabilities(case, left, right)):
                total += p
                if u < total:
                    choice = index
                    break
        self._seen[key] = (self.presentations, choice, left)
        self.answers.append((case, left, right, choice))
        while len(self._seen) > 4 * t.memory_span + 16:
            self._seen.popitem(last=False)
        return CHOICES[choice]


@dataclass(frozen=True)
class SimulatedVotes:
    """Votes in the order shown: left and right outputs and systems, outcome of the left."""

    case: NDArray[np.intp]
    left: NDArray[np.intp]  # outputs
    right: NDArray[np.intp]
    a: NDArray[np.intp]  # systems: left, right
    b: NDArray[np.intp]
    choice: NDArray[np.int8]  # index into CHOICES
    y: NDArray[np.float64]
    len_a: NDArray[np.int64]
    len_b: NDArray[np.int64]
    session: NDArray[np.int64]
    # Repeats: the vote repeated (index into the arrays above) and the repeat's choice,
    # as shown (sides swapped).
    repeat_of: NDArray[np.intp]
    repeat_choice: NDArray[np.int8]


def simulate_votes(
    family: SimulatedFamily,
    rater: RaterTraits,
    n_votes: int,
    *,
    rng: np.random.Generator,
    pending: NDArray[np.intp] | None = None,
    repeat_share: float = 0.1,
    session_votes: int = 200,
) -> SimulatedVotes:
    """Up to ``n_votes`` votes on the pending pairs, coverage first, sides balanced.

    A vectorised stand-in for the rater's scheduler: system pairs take turns (each
    has votes within one of the others' while it has pairs left), the pairs of a
    system pair go round the cases (every case once before any twice, each system
    pair starting where the one before it stops), and within a system pair the first system
    sits left every other time. ``repeat_share`` of the votes are shown again 3–10
    presentations later with sides swapped (memory applies).
    """
    if pending is None:
        pending = settled_pairs(family)[1]
    n = family.systems.n_systems
    s = family.samples
    sys_a, sys_b = pending[:, 1] // s, pending[:, 2] // s
    pair = np.minimum(sys_a, sys_b) * n + np.maximum(sys_a, sys_b)
    # Within a system pair, cases in one shared random cycle from a point of its own:
    # the votes spread over the cases as the scheduler's "fewest-voted cases first" does.
    cycle = rng.permutation(family.n_cases)[pending[:, 0]]
    pairs = np.unique(pair)
    each = -(-min(n_votes, pending.shape[0]) // pairs.size)  # votes per system pair
    start_at = np.zeros(n * n, dtype=np.int64)
    start_at[pairs] = rng.permutation(pairs.size) * each
    # Several samples: a case's other pairs wait for the next time round.
    group = pair * family.n_cases + pending[:, 0]
    grouped = np.lexsort((rng.random(group.size), group))
    first = np.searchsorted(group[grouped], group[grouped], side="left")
    again = np.empty(group.size, dtype=np.int64)
    again[grouped] = np.arange(group.size) - first
    spread = again * family.n_cases + (cycle + start_at[pair]) % family.n_cases
    shuffled = np.lexsort((spread, pair))
    order = shuffled
    # Position of each pending pair within its system pair: its turn.
    start = np.searchsorted(pair[order], pair[order], side="left")
    turn = np.empty(order.size, dtype=np.int64)
    turn[order] = np.arange(order.size) - start
    offset = rng.random(n * n)
    key = turn + offset[pair]
    chosen = np.argsort(key, kind="stable")[: min(n_votes, pending.shape[0])]
    case, oa, ob = pending[chosen, 0], pending[chosen, 1], pending[chosen, 2]
    flip = (turn[chosen] + (offset[pair[chosen]] < 0.5)) % 2 == 1
    left, right = np.where(flip, ob, oa), np.where(flip, oa, ob)
    probs = choice_probabilities(family, rater, case, left, right)
    choice = _draw(probs, rng.random(case.size))
    count = case.size
    repeated = np.flatnonzero(rng.random(count) < repeat_share)
    gap = rng.integers(3, 11, repeated.size)
    fresh = _draw(
        choice_probabilities(family, rater, case[repeated], right[repeated], left[repeated]),
        rng.random(repeated.size),
    )
    remembers = (gap <= rater.memory_span) & (rng.random(repeated.size) < rater.memory)
    again = np.where(remembers, _MIRROR[choice[repeated]], fresh)
    y = np.array([1.0, 0.0, 0.5, 0.5])[choice]
    return SimulatedVotes(
        case=case,
        left=left,
        right=right,
        a=left // s,
        b=right // s,
        choice=choice,
        y=y,
        len_a=family.length[case, left],
        len_b=family.length[case, right],
        session=1 + np.arange(count) // max(1, session_votes),
        repeat_of=repeated,
        repeat_choice=again.astype(np.int8),
    )


def agreement_probability(
    family: SimulatedFamily,
    rater: RaterTraits,
    case: NDArray[np.intp],
    left: NDArray[np.intp],
    right: NDArray[np.intp],
    gap: NDArray[np.int64] | int,
) -> NDArray[np.float64]:
    """The chance that a repeat (sides swapped, ``gap`` presentations later) agrees with
    the first vote, mapped back: the planted consistency rater agreement estimates."""
    first = choice_probabilities(family, rater, case, left, right)
    again = choice_probabilities(family, rater, case, right, left)[:, _MIRROR]
    fresh = np.sum(first * again, axis=1)
    remembers = np.where(np.asarray(gap) <= rater.memory_span, rater.memory, 0.0)
    return remembers + (1.0 - remembers) * fresh
