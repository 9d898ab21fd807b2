"""Settling: the pairs of a family decided without a vote, and those left for the rater.

Pure: records in, records out. For every case, every two outputs of
different systems form a pair, and the first rule that applies settles it.
The rules are stated once, over columns of every pair of a family at once
(``Pairs``): ``settle``'s records, the rating session's pending pairs
(``PendingPairs``) and `arena status`'s counts all come from there.

In ``tests`` and ``tests_then_votes`` families the tests come first, since a
hidden test says more about a patch than any gate:

1. ``tests_separate``: passing beats failing. ``errored`` counts as failed,
   and so does a missing test result.

Then, in every family (for tested families only on pairs the tests left
undecided: both passed or both failed):

2. ``gate_loses``: one output fails a gate and the other passes all; the passing one wins.
3. ``both_gated``: both fail some gate; tie.
4. ``identical``: same text after normalising line endings and trailing whitespace; tie.

And in tested families:

5. ``both_failed_tests``: tie.
6. ``identical_diffs``: both pass and their diffs are the same change once
   commit history and index lines are set aside; tie.
7. ``both_passed_tests`` (``tests`` only, where no rater votes): tie.

In tested families every system is judged on every task (case in force): a task a
system did not answer is a failed trial with no answer for a gate to read, so it loses
to any passing solution and ties with every failed one, whatever the gates say of
that one (the seed's run gives every system the same tasks, and two failing solutions
tie); the comparisons it is in are named ``no_output``.

What remains is pending: in ``votes`` families every pair the rules leave,
in ``tests_then_votes`` two passing solutions with different diffs, both
passing the gates. ``graded`` families are scored by graders, not pairs:
nothing is returned.

A gate verdict the rater overruled is set aside: the output counts as
passing that gate, and the comparisons it takes part in are marked
``overruled``.

Each settled comparison weighs 1/(k_a*k_b), k being the number of outputs
(samples) each system has on the case, so the settled comparisons of one
case and one system pair weigh at most 1 together.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from arena.records import CaseId, Family, GateResult, Output, OutputId, OutputPlace, SystemId
from arena.records import output_id as output_id_of
from arena.texts import normalise_text, text_key

RULES: tuple[str, ...] = (
    "tests_separate",
    "gate_loses",
    "both_gated",
    "identical",
    "both_failed_tests",
    "identical_diffs",
    "both_passed_tests",
)
# What the round summary counts settled comparisons by (an overruled one counts as such).
RULE_GROUPS: dict[str, str] = {
    "gate_loses": "gate",
    "both_gated": "gate",
    "identical": "identical",
    "identical_diffs": "identical",
    "tests_separate": "tests",
    "both_failed_tests": "tests",
    "both_passed_tests": "tests",
    "no_output": "tests",
}
TESTED_KINDS = frozenset({"tests", "tests_then_votes"})
# A round closed on unchanged rows restates the last one (arena.rounds.closing): raise this
# when a rule changes what settles, so the next close works the board out again.
# 2: a task not answered ties with every failed trial (it lost to gate-passing ones).
SETTLING_VERSION = 2

# A pair's rule as a number: its place in ``_NAMES``, or PENDING (left for the rater).
_NAMES = (*RULES, "no_output")
(
    TESTS_SEPARATE,
    GATE_LOSES,
    BOTH_GATED,
    IDENTICAL,
    BOTH_FAILED,
    SAME_DIFF,
    BOTH_PASSED,
    NO_OUTPUT,
) = range(len(_NAMES))
PENDING = -1

# Lines of a patch that record where it came from, not what it changes.
_PATCH_HISTORY = re.compile(r"^(?:index |similarity index |dissimilarity index )")


# Tuples, not dataclasses: a family settles tens of thousands of pairs and lists up to
# hundreds of thousands pending, and a named tuple is made several times faster.
class SettledComparison(NamedTuple):
    """A pair decided without a vote: the pair, then the rule that decided it, what the
    rule gives from a's view (``y``: 1 won, 0 lost, 0.5 tie) and the pair's weight."""

    case_id: CaseId
    output_a: OutputId
    output_b: OutputId
    system_a: SystemId
    system_b: SystemId
    rule: str
    y: float
    weight: float
    # A gate verdict on one of the outputs was set aside by the rater.
    overruled: bool = False


class PendingPair(NamedTuple):
    """A pair the rater has to judge, among which the scheduler chooses."""

    case_id: CaseId
    output_a: OutputId
    output_b: OutputId
    system_a: SystemId
    system_b: SystemId


@dataclass(frozen=True)
class Settlement:
    settled: tuple[SettledComparison, ...]
    pending: tuple[PendingPair, ...]


def normalise_diff(diff: str) -> str:
    """The change a diff makes, read as a reviewer reads a pull request.

    Anything before the first file header (a format-patch mail: commit id,
    author, date, message, diffstat), ``index`` lines and the timestamps on
    ``---``/``+++`` lines say where the change came from, not what it is.
    """
    lines = normalise_text(diff).split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(("diff --git ", "--- "))), 0)
    kept = []
    for line in lines[start:]:
        if _PATCH_HISTORY.match(line):
            continue
        if line.startswith(("--- ", "+++ ")):
            line = line.split("\t", 1)[0]
        kept.append(line)
    return "\n".join(kept)


def any_gate_failed(
    results: Iterable[GateResult], overruled: Collection[str] = frozenset()
) -> bool:
    """Whether a gate fails, leaving out the gates named in ``overruled``."""
    return any(not r.passed and r.gate not in overruled for r in results)


def stand_ins(
    family: str, outputs: Iterable[Output], tasks: Iterable[CaseId]
) -> tuple[Output, ...]:
    """An empty, untested stand-in (a failed trial) for each task (case in force) a system
    answering any task did not answer. Its sample is -1 (no answer's), so its id is no
    answer's either, not even one the rater removed."""
    answered: dict[CaseId, set[SystemId]] = defaultdict(set)
    for output in outputs:
        answered[output.case_id].add(output.system_id)
    systems = sorted(set().union(*answered.values()))
    return tuple(
        Output(output_id_of(family, case_id, system, -1), family, case_id, system, -1, "")
        for case_id in tasks
        for system in systems
        if system not in answered[case_id]
    )


def overrules_by_output(
    overruled: Collection[tuple[OutputId, str]],
) -> dict[OutputId, frozenset[str]]:
    """The overruled gates of each output."""
    found: dict[OutputId, set[str]] = defaultdict(set)
    for output_id, gate in overruled:
        found[output_id].add(gate)
    return {k: frozenset(v) for k, v in found.items()}


@dataclass(frozen=True, eq=False)
class Columns:
    """A family's outputs in force as columns, in settle's order: by case, system, sample
    and id. ``case`` and ``system`` hold places in ``cases`` and ``systems`` (sorted)."""

    ids: list[OutputId]
    cases: list[CaseId]
    systems: list[SystemId]
    case: np.ndarray
    system: np.ndarray
    # Equal numbers, equal text keys (``arena.texts.text_key``).
    text: np.ndarray
    # Failing a gate whose verdict is not set aside.
    failing: np.ndarray
    # Tested families only (else all False, or -1): passed its tests; a stand-in for a
    # task not answered; equal numbers ≥ 0, the same change (``normalise_diff``), for the
    # diffs that may reach that rule.
    passed: np.ndarray
    missing: np.ndarray
    diff: np.ndarray
    # A failing verdict on it was set aside by the rater: its comparisons are ``overruled``.
    relieved: np.ndarray

    @classmethod
    def of(
        cls,
        ids: Sequence[OutputId],
        case_ids: Sequence[CaseId],
        system_ids: Sequence[SystemId],
        keys: Sequence[str],
        failing: Collection[OutputId],
        *,
        samples: Sequence[int] | None = None,
        relieved: Collection[OutputId] = frozenset(),
        tested: Mapping[OutputId, Output] | None = None,
        missing: Collection[OutputId] = frozenset(),
    ) -> Columns:
        """Columns of outputs given as columns, in any order: their ids, cases, systems,
        text keys and samples (None: all 0); ``tested``: a tested family's outputs, by id,
        ``missing`` among them the stand-ins."""
        n = len(ids)
        cases, systems = sorted(set(case_ids)), sorted(set(system_ids))
        case = _places_in(cases, case_ids)
        system = _places_in(systems, system_ids)
        sample = np.zeros(n, dtype=np.int64) if samples is None else np.array(samples, np.int64)
        order = order_by(case, system, sample)
        # Ties (two outputs of a system with one sample number) are ordered by id.
        if n and np.any(np.diff((case * len(systems) + system)[order]) == 0):
            by_id = np.empty(n, dtype=np.int64)
            by_id[sorted(range(n), key=ids.__getitem__)] = np.arange(n)
            order = np.lexsort((by_id, sample, system, case))
        listed = order.tolist()
        ids = [ids[i] for i in listed]
        texts: dict[str, int] = {}
        text = np.fromiter((texts.setdefault(keys[i], len(texts)) for i in listed), np.int64, n)
        gated = _among(ids, failing)
        passed = np.zeros(n, dtype=bool)
        diff = np.full(n, -1, dtype=np.int64)
        if tested is not None:
            passed[:] = [tested[o].test_result == "passed" for o in ids]
            diffs: dict[str, int] = {}
            # Only a passing diff, failing no gate, can reach the rule that reads diffs.
            for at in np.flatnonzero(passed & ~gated).tolist():
                if tested[ids[at]].is_diff:
                    change = normalise_diff(tested[ids[at]].text)
                    diff[at] = diffs.setdefault(change, len(diffs))
        return cls(
            ids,
            cases,
            systems,
            case[order],
            system[order],
            text,
            gated,
            passed,
            _among(ids, missing),
            diff,
            _among(ids, relieved),
        )

    @classmethod
    def of_places(cls, places: Sequence[OutputPlace], failing: Collection[OutputId]) -> Columns:
        """Columns of a votes family's outputs, read without their texts."""
        ids, case_ids, system_ids, keys, _ = zip(*places, strict=True) if places else ([],) * 5
        return cls.of(ids, case_ids, system_ids, keys, failing)


def _among(ids: Sequence[OutputId], chosen: Collection[OutputId]) -> np.ndarray:
    """Whether each of ``ids`` is one of ``chosen``."""
    if not chosen:
        return np.zeros(len(ids), dtype=bool)
    return np.fromiter(map(chosen.__contains__, ids), bool, len(ids))


def _places_in(names: Sequence[str], values: Sequence[str]) -> np.ndarray:
    """The place in ``names`` of each of ``values``."""
    at = {name: n for n, name in enumerate(names)}
    return np.fromiter(map(at.__getitem__, values), np.int64, len(values))


def order_by(*columns: np.ndarray) -> np.ndarray:
    """The stable order by the first column, then the next…, as ``np.lexsort`` of them
    reversed; columns of small non-negative numbers are made one number and sorted once
    where it fits in 63 bits (a fifth of the time on 190,000 pairs)."""
    sizes = [int(column.max()) + 1 if len(column) else 1 for column in columns]
    if math.prod(sizes) >= 2**63:
        return np.lexsort(columns[::-1])
    combined = np.zeros(len(columns[0]), dtype=np.int64)
    for column, size in zip(columns, sizes, strict=True):
        combined = combined * size + column
    if sizes[0] <= 2**16:
        # Rows often come in order but for the first column (pairs listed case by case,
        # wanted by system pair): a stable sort of that one column (numpy's radix sort of
        # 16-bit numbers) is then the order, ties in the same order. Checked, else sorted.
        first = np.argsort(columns[0].astype(np.uint16), kind="stable")
        if not len(first) or bool(np.all(np.diff(combined[first]) >= 0)):
            return first
    return np.argsort(combined, kind="stable")


def _rule(kind: str, o: Columns, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The settling rule over pairs: each pair's rule (PENDING: none applies) and y."""
    rule = np.full(len(a), PENDING, dtype=np.int8)
    y = np.full(len(a), 0.5)
    open_ = np.ones(len(a), dtype=bool)

    def first(code: int, where: np.ndarray, a_wins: np.ndarray | None = None) -> None:
        hit = open_ & where
        rule[hit] = code
        if a_wins is not None:
            y[hit] = a_wins[hit]
        open_[hit] = False

    tested = kind in TESTED_KINDS
    a_passed, missing = o.passed[a], o.missing[a] | o.missing[b]
    if tested:
        first(TESTS_SEPARATE, a_passed != o.passed[b], a_passed)
        # Both failed; with no answer on one side no gate has anything to tell them apart by.
        first(BOTH_FAILED, missing)
    a_gated, b_gated = o.failing[a], o.failing[b]
    first(GATE_LOSES, a_gated != b_gated, b_gated)
    first(BOTH_GATED, a_gated)
    first(IDENTICAL, o.text[a] == o.text[b])
    if tested:
        first(BOTH_FAILED, ~a_passed)
        first(SAME_DIFF, (o.diff[a] >= 0) & (o.diff[a] == o.diff[b]))
        if kind == "tests":
            first(BOTH_PASSED, open_)
        rule[missing] = NO_OUTPUT
    return rule, y


@dataclass(frozen=True, eq=False)
class Pairs:
    """Every pair of a family, two outputs of different systems on a case, and the rule
    that settles it (PENDING: none), in settle's order: by case, system a, system b, then
    the samples of each. Pair ``k`` is outputs ``a[k]`` and ``b[k]`` of ``outputs``."""

    outputs: Columns
    a: np.ndarray
    b: np.ndarray
    rule: np.ndarray
    y: np.ndarray

    @classmethod
    def of(cls, kind: str, outputs: Columns) -> Pairs:
        # Output i pairs with every output after it on its case: (case, a, b) order.
        case, system = outputs.case, outputs.system
        n = len(case)
        sizes = np.bincount(case, minlength=len(outputs.cases))
        ends = np.cumsum(sizes)[case] if n else np.zeros(0, dtype=np.int64)
        after = ends - np.arange(n) - 1
        a = np.repeat(np.arange(n), after)
        b = np.arange(len(a)) - np.repeat(np.cumsum(after) - after - np.arange(n) - 1, after)
        a, b = a[system[a] != system[b]], b[system[a] != system[b]]
        group = case * len(outputs.systems) + system  # in order: its repeats are adjacent
        if np.any(group[1:] == group[:-1]):  # a system with two samples on a case
            order = order_by(case[a], system[a], system[b], a, b)
            a, b = a[order], b[order]
        return cls(outputs, a, b, *_rule(kind, outputs, a, b))

    def settled_count(self) -> int:
        return int(np.count_nonzero(self.rule != PENDING))

    def settlement(self, *, pending: bool = True) -> Settlement:
        """The pairs as records; with ``pending`` False the pending ones are not listed."""
        o = self.outputs
        at = np.flatnonzero(self.rule != PENDING)
        a, b = self.a[at], self.b[at]
        group = o.case * len(o.systems) + o.system
        samples = np.bincount(group)[group]
        settled = map(
            SettledComparison._make,
            zip(
                *self._named(a, b),
                [_NAMES[r] for r in self.rule[at].tolist()],
                self.y[at].tolist(),
                (1.0 / (samples[a] * samples[b])).tolist(),
                (o.relieved[a] | o.relieved[b]).tolist(),
                strict=True,
            ),
        )
        left = self.pending() if pending else None
        return Settlement(tuple(settled), tuple(left) if left is not None else ())

    def _named(self, a: np.ndarray, b: np.ndarray) -> tuple[list, ...]:
        """Case, outputs and systems of the pairs ``a``, ``b``, by name."""
        o = self.outputs
        ids, cases, systems = o.ids, o.cases, o.systems
        return (
            [cases[c] for c in o.case[a].tolist()],
            [ids[i] for i in a.tolist()],
            [ids[i] for i in b.tolist()],
            [systems[s] for s in o.system[a].tolist()],
            [systems[s] for s in o.system[b].tolist()],
        )

    def pending(self) -> PendingPairs:
        """The pairs left for the rater, as numbers."""
        o = self.outputs
        left = self.rule == PENDING
        a, b = self.a[left], self.b[left]
        systems = [o.systems[s] for s in o.system.tolist()]
        return PendingPairs(o.cases, o.ids, systems, o.case[a], a, b)


@dataclass(frozen=True, eq=False)
class PendingPairs:
    """Pending pairs as numbers: pair ``k`` is ``outputs[a[k]]`` and ``outputs[b[k]]`` on
    ``cases[case[k]]``; ``systems`` holds each output's system. 190,000 records take
    seconds to make, these a few sorts."""

    cases: list[CaseId]
    outputs: list[OutputId]
    systems: list[SystemId]
    case: np.ndarray
    a: np.ndarray
    b: np.ndarray

    def __len__(self) -> int:
        return len(self.case)

    def __iter__(self) -> Iterator[PendingPair]:
        cases, outputs, systems = self.cases, self.outputs, self.systems
        for c, a, b in zip(self.case.tolist(), self.a.tolist(), self.b.tolist(), strict=True):
            yield PendingPair(cases[c], outputs[a], outputs[b], systems[a], systems[b])

    @classmethod
    def of(cls, pairs: Iterable[PendingPair]) -> PendingPairs:
        """The same pairs, in the same order, as numbers."""
        cases: dict[CaseId, int] = {}
        outputs: dict[OutputId, int] = {}
        systems: list[SystemId] = []

        def number(output: OutputId, system: SystemId) -> int:
            if output not in outputs:
                outputs[output] = len(outputs)
                systems.append(system)
            return outputs[output]

        numbers = [
            (cases.setdefault(p.case_id, len(cases)), number(p.output_a, p.system_a))
            + (number(p.output_b, p.system_b),)
            for p in pairs
        ]
        table = np.array(numbers, dtype=np.int64).reshape(-1, 3)
        return cls(list(cases), list(outputs), systems, table[:, 0], table[:, 1], table[:, 2])


def settle(
    family: Family,
    outputs: Iterable[Output],
    gate_results: Mapping[OutputId, Sequence[GateResult]],
    *,
    retired_cases: Collection[CaseId] = frozenset(),
    removed_outputs: Collection[OutputId] = frozenset(),
    overruled: Collection[tuple[OutputId, str]] = frozenset(),
    pending: bool = True,
    unanswered: Sequence[Output] = (),
    text_keys: Mapping[OutputId, str] | None = None,
    failing: Collection[OutputId] | None = None,
) -> Settlement:
    """Settled comparisons and pending pairs of one family.

    Retired cases and removed outputs are left out entirely, and do not count
    among a system's samples; ``overruled`` (output, gate) verdicts are set
    aside. Within a pair, ``a`` is the system whose id sorts first, so the
    result does not depend on the order of ``outputs``. With ``pending`` False
    the pending pairs are not listed (a round needs only the settled ones). In a tested
    family, ``unanswered`` are the ``stand_ins`` for tasks systems did not answer.
    ``text_keys``: the outputs' stored text keys, if the caller has them (the rest are
    worked out). ``failing``: the outputs that fail a gate not overruled, if the caller
    has them (``any_gate_failed`` over ``gate_results``, else worked out).
    """
    kept = []
    for output in outputs:
        if output.family != family.name:
            raise ValueError(
                f"outputs: {output.output_id} belongs to family {output.family!r}, "
                f"not {family.name!r}"
            )
        if output.case_id not in retired_cases and output.output_id not in removed_outputs:
            kept.append(output)
    tested = family.kind in TESTED_KINDS
    if family.kind == "graded":
        kept = []
    set_aside = overrules_by_output(overruled)
    gated: set[OutputId] = set()
    # Outputs with a failing verdict set aside: their comparisons are marked overruled.
    relieved: set[OutputId] = set()
    for output in kept:
        output_id = output.output_id
        results = gate_results.get(output_id)
        if not results:
            raise ValueError(f"gate_results: no gate results for output {output_id}")
        aside = set_aside.get(output_id)
        if failing is None and any_gate_failed(results, aside or ()):
            gated.add(output_id)
        if aside and any(not r.passed and r.gate in aside for r in results):
            relieved.add(output_id)
    if failing is not None:
        gated = {o.output_id for o in kept if o.output_id in failing}
    if tested:  # a stand-in has no answer, no verdict: it is settled by the tests alone
        kept += unanswered
    keys = text_keys or {}
    columns = Columns.of(
        [o.output_id for o in kept],
        [o.case_id for o in kept],
        [o.system_id for o in kept],
        [keys.get(o.output_id) or text_key(o.text) for o in kept],
        gated,
        samples=[o.sample for o in kept],
        relieved=relieved,
        tested={o.output_id: o for o in kept} if tested else None,
        missing={o.output_id for o in unanswered},
    )
    return Pairs.of(family.kind, columns).settlement(pending=pending)
