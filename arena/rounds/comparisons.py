"""The comparisons of a family: human votes and settled pairs, each fitted or left out.

Every vote in force is listed once with its status: ``fitted``, ``repeat``
(used only for rater agreement) or ``left_out`` with the reason: the case
was retired, an output was removed, an output now fails a gate, or the pair
now settles without a vote. Settled pairs are listed with the rule that
settled them and their 1/(k_a·k_b) weight. A round pooled with judges adds their
verdicts last (``pooled``), each given a status by the same rules as a vote.

They are built here into ``comparison_table.Comparisons`` (column by column).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from arena.errors import BadInput
from arena.family_state import FamilyState
from arena.ledger import Ledger, voting
from arena.ledger.judge_store import JudgeVerdict
from arena.records import OutputId, SessionId
from arena.rounds.comparison_table import (
    FIELDS,
    IDS,
    LEFT_OUT_REASONS,
    NUMBERS,
    SETTLER,
    Y_OF_CHOICE,
    Coded,
    Column,
    Comparison,
    Comparisons,
    Status,
    codes,
    known_codes,
)


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


# Coded columns that share their values.
_VOCABULARY = {
    "output_a": "output",
    "output_b": "output",
    "system_a": "system",
    "system_b": "system",
}


class _Builder:
    """A family's comparisons, gathered part by part as codes of shared vocabularies."""

    def __init__(self, state: FamilyState) -> None:
        self.state = state
        # Stand-ins for unanswered tasks come last: comparisons name them.
        outputs = [*state.outputs.values(), *state.stand_ins]
        self.vocabularies: dict[str, dict[Any, int]] = {
            _VOCABULARY.get(name, name): {}
            for name in FIELDS
            if name not in NUMBERS and name not in IDS
        }
        # Every output and case has a code, in import order; votes may name no other.
        self.outputs = self.vocabularies["output"]
        self.outputs.update((o.output_id, i) for i, o in enumerate(outputs))
        self.cases = self.vocabularies["case_id"]
        self.cases.update((case_id, i) for i, case_id in enumerate(state.cases))
        self.output_cases = known_codes([o.case_id for o in outputs], self.cases)
        self.systems = codes((o.system_id for o in outputs), self.vocabularies["system"])
        self.categories = codes(
            (c.category for c in state.cases.values()), self.vocabularies["category"]
        )
        self.lengths = np.array([len(o.text) for o in outputs], dtype=np.int64)
        self.diffs = np.array([o.is_diff for o in outputs], dtype=np.bool_)
        self.parts: list[dict[str, Any]] = []

    def code(self, name: str, items: Iterable[Any]) -> np.ndarray:
        return codes(items, self.vocabularies[_VOCABULARY.get(name, name)])

    @staticmethod
    def flags(vocabulary: Mapping[Any, int], chosen: Iterable[Any]) -> np.ndarray:
        """For each code of ``vocabulary``, whether its value is among ``chosen``."""
        flags = np.zeros(len(vocabulary), dtype=np.bool_)
        flags[[vocabulary[v] for v in chosen if v in vocabulary]] = True
        return flags

    def same(self, name: str, value: Any, size: int) -> np.ndarray:
        return np.full(size, self.code(name, [value])[0], dtype=np.int32)

    def add(self, a: np.ndarray, b: np.ndarray, cases: np.ndarray, columns: dict[str, Any]) -> None:
        """Comparisons of outputs ``a`` with ``b`` on ``cases`` (codes), and the rest."""
        self.parts.append(
            {
                "output_a": a,
                "output_b": b,
                "case_id": cases,
                "system_a": self.systems[a],
                "system_b": self.systems[b],
                "category": self.categories[cases],
                "len_a": self.lengths[a],
                "len_b": self.lengths[b],
                "is_diff": self.diffs[a] | self.diffs[b],
                **columns,
            }
        )

    def table(self) -> Comparisons:
        columns: dict[str, Column] = {}
        for name in FIELDS:
            found = [part[name] for part in self.parts]
            if name in IDS:
                columns[name] = list(chain.from_iterable(found))
                continue
            joined = np.concatenate(found)
            columns[name] = (
                joined.astype(NUMBERS[name], copy=False)
                if name in NUMBERS
                else Coded(
                    joined.astype(np.int32, copy=False),
                    list(self.vocabularies[_VOCABULARY.get(name, name)]),
                )
            )
        return Comparisons(columns)


def _add_settled(family: _Builder) -> np.ndarray:
    """The settled pairs, with their rule and weight; returns their ``_pair_keys``."""
    settled = family.state.settled
    n = len(settled)
    a = family.code("output_a", (s.output_a for s in settled))
    b = family.code("output_b", (s.output_b for s in settled))
    family.add(
        a,
        b,
        family.code("case_id", (s.case_id for s in settled)),
        {
            "source": family.same("source", "settled", n),
            "y": np.array([s.y for s in settled], dtype=np.float64),
            "weight": np.array([s.weight for s in settled], dtype=np.float64),
            "actor": family.same("actor", SETTLER, n),
            "status": family.same("status", "fitted", n),
            "reason": family.same("reason", None, n),
            "vote_id": [None] * n,
            "choice": family.same("choice", None, n),
            "repeat_of": [None] * n,
            "session": family.same("session", None, n),
            "rule": family.code("rule", (s.rule for s in settled)),
            "overruled": np.array([s.overruled for s in settled], dtype=np.bool_),
        },
    )
    return _pair_keys(a, b, len(family.outputs))


def settled_comparisons(state: FamilyState) -> list[Comparison]:
    """The family's settled pairs as comparisons, with their rule and weight."""
    family = _Builder(state)
    _add_settled(family)
    return list(family.table())


def _pair_keys(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """One number per unordered pair of output codes (``n`` outputs)."""
    a, b = a.astype(np.int64), b.astype(np.int64)
    return np.minimum(a, b) * n + np.maximum(a, b)


_VOTE_COLUMNS = ("vote_id", "output_a", "output_b", "choice", "actor", "repeat_of", "session")


def _add_votes(
    family: _Builder,
    batches: Iterable[Sequence[tuple]],
    settled_pairs: np.ndarray,
    session_numbers: Mapping[SessionId, int],
    raters: Sequence[str] = (),
) -> int:
    """The votes in force (rows of ``voting.vote_batches``), each with its status;
    ``session_numbers``: each session's number by id; ``raters``: those whose votes are
    fitted (none named: everyone's). Returns how many are fitted."""
    parts: dict[str, list] = {name: [] for name in _VOTE_COLUMNS}
    sessions: dict[SessionId | None, int] = {}
    for batch in batches:
        for name, items in zip(_VOTE_COLUMNS, zip(*batch, strict=True), strict=True):
            if name in IDS:
                parts[name].extend(items)
            elif name in ("output_a", "output_b"):
                # Known ones only: a vote on an unknown output is a broken ledger.
                parts[name].append(known_codes(items, family.outputs))
            elif name == "session":
                parts[name].append(codes(items, sessions))
            else:
                parts[name].append(family.code(name, items))
    columns: dict[str, Any] = {
        name: found
        if name in IDS
        else np.concatenate(found)
        if found
        else np.zeros(0, dtype=np.int32)
        for name, found in parts.items()
    }
    a, b = columns.pop("output_a"), columns.pop("output_b")
    cases = family.output_cases[a]
    # Session ids coded as they came, then each code as its session's number's code.
    numbered = family.code(
        "session", (None if s is None else session_numbers.get(s) for s in sessions)
    )
    columns["session"] = numbered[columns["session"]]
    n = len(a)
    others = (
        ~family.flags(family.vocabularies["actor"], raters)[columns["actor"]]
        if raters
        else np.zeros(n, dtype=np.bool_)
    )
    status, reason = _vote_status(family, a, b, cases, columns["repeat_of"], settled_pairs, others)
    family.add(
        a,
        b,
        cases,
        {
            **columns,
            "source": family.same("source", "vote", n),
            "y": Coded(columns["choice"], list(family.vocabularies["choice"])).map(
                lambda choice: Y_OF_CHOICE.get(choice, np.nan), np.float64
            ),
            "weight": np.ones(n),
            "status": status,
            "reason": reason,
            "rule": family.same("rule", None, n),
            "overruled": np.zeros(n, dtype=np.bool_),
        },
    )
    return int(np.count_nonzero(status == family.code("status", ["fitted"])[0]))


JUDGE_ACTOR = "judge:"


def _add_judges(
    family: _Builder, verdicts: Sequence[JudgeVerdict], settled_pairs: np.ndarray, rater: int
) -> None:
    """Judges' verdicts, each on the outputs of its case's two systems, with the status a
    vote on them would have; a judge's weight is ``min(1, rater / fitted)``: its fitted
    verdicts weigh at most what the ``rater``'s fitted votes do. A verdict whose system
    has no output, or several (samples), on its case is not a comparison (``unmatched``)."""
    single = _single_outputs(family)
    kept = [
        (v, single[v.case_id, v.left_system], single[v.case_id, v.right_system])
        for v in verdicts
        if single.get((v.case_id, v.left_system)) is not None
        and single.get((v.case_id, v.right_system)) is not None
    ]
    n = len(kept)
    a = np.array([k[1] for k in kept], dtype=np.int32)
    b = np.array([k[2] for k in kept], dtype=np.int32)
    cases = family.output_cases[a]
    status, reason = _vote_status(
        family, a, b, cases, [None] * n, settled_pairs, np.zeros(n, dtype=np.bool_)
    )
    actors = [JUDGE_ACTOR + v.judge for v, _, _ in kept]
    fitted = status == family.code("status", ["fitted"])[0]
    counts = Counter(actor for actor, ok in zip(actors, fitted.tolist(), strict=True) if ok)
    if counts and rater == 0:
        raise BadInput(
            "the rater has no votes in the fit: a judge's weight is capped at the rater's, "
            "so there is nothing to pool with",
            field="--with-judges",
        )
    scale = {actor: min(1.0, rater / count) for actor, count in counts.items()}
    winners = [v.winner for v, _, _ in kept]
    family.add(
        a,
        b,
        cases,
        {
            "source": family.same("source", "judge", n),
            "y": np.array([Y_OF_CHOICE[w] for w in winners], dtype=np.float64),
            "weight": np.array([scale.get(actor, 1.0) for actor in actors], dtype=np.float64),
            "actor": family.code("actor", actors),
            "status": status,
            "reason": reason,
            "vote_id": [None] * n,
            "choice": family.code("choice", winners),
            "repeat_of": [None] * n,
            "session": family.same("session", None, n),
            "rule": family.same("rule", None, n),
            "overruled": np.zeros(n, dtype=np.bool_),
        },
    )


def _single_outputs(family: _Builder) -> dict[tuple[str, str], int | None]:
    """The code of each (case, system)'s one output, or None where it has several."""
    single: dict[tuple[str, str], int | None] = {}
    for output in family.state.outputs.values():
        key = (output.case_id, output.system_id)
        single[key] = None if key in single else family.outputs[output.output_id]
    return single


def _vote_status(
    family: _Builder,
    a: np.ndarray,
    b: np.ndarray,
    cases: np.ndarray,
    repeat_of: list[str | None],
    settled_pairs: np.ndarray,
    others: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``vote_status`` of every vote at once, as codes; ``others``: the votes of raters
    the round does not name."""
    decided = family.state.decisions
    retired = family.flags(family.cases, decided.retired_cases)
    removed = family.flags(family.outputs, decided.removed_outputs)
    failing = family.flags(family.outputs, family.state.failing)
    hits = {
        "retired_case": retired[cases],
        "removed_output": removed[a] | removed[b],
        "failing_gate": failing[a] | failing[b],
        "settled_pair": np.isin(_pair_keys(a, b, len(family.outputs)), settled_pairs),
        "other_rater": others,
    }
    fitted, repeat, left_out = family.code("status", ("fitted", "repeat", "left_out"))
    repeats = np.fromiter((r is not None for r in repeat_of), dtype=np.bool_, count=len(repeat_of))
    status = np.where(repeats, repeat, fitted)
    reason = family.same("reason", None, len(a))
    # The first rule that holds gives the reason: apply them last to first.
    for name in reversed(LEFT_OUT_REASONS):
        status[hits[name]] = left_out
        reason[hits[name]] = family.code("reason", [name])[0]
    return status.astype(np.int32), reason


def family_comparisons(
    ledger: Ledger,
    state: FamilyState,
    pooled: Sequence[JudgeVerdict] = (),
    raters: Sequence[str] = (),
) -> Comparisons:
    """Every comparison of the family as its ledger stands now (gates as last stored):
    the settled pairs, then the votes in force, oldest first (those of raters other than
    ``raters``, when named, left out), then the ``pooled`` judges' verdicts in the order
    given."""
    family = _Builder(state)
    settled_pairs = _add_settled(family)
    name = state.family.name
    batches = voting.vote_batches(ledger, name)
    numbers = {s.session_id: s.number for s in voting.sessions(ledger, name)}
    rater = _add_votes(family, batches, settled_pairs, numbers, raters)
    if pooled:
        _add_judges(family, pooled, settled_pairs, rater)
    return family.table()


def judge_comparisons(
    state: FamilyState, verdicts: Sequence[JudgeVerdict], rater: int
) -> list[Comparison]:
    """The comparisons pooling ``verdicts`` adds to a round whose rater has ``rater``
    fitted votes: what ``family_comparisons`` appends, rebuilt apart (a bundle's check)."""
    family = _Builder(state)
    _add_judges(family, verdicts, _add_settled(family), rater)
    return [c for c in family.table() if c.source == "judge"]


def settled_output_pairs(state: FamilyState) -> set[frozenset[str]]:
    return {_pair(s.output_a, s.output_b) for s in state.settled}


def vote_status(
    state: FamilyState,
    case_id: str,
    left: OutputId,
    right: OutputId,
    repeat_of: str | None,
    settled_pairs: set[frozenset[str]],
    *,
    other_rater: bool = False,
) -> tuple[Status, str | None]:
    """Whether a vote enters the fit, and if not, why (``other_rater``: the vote is by a
    rater the round does not name)."""
    if case_id in state.decisions.retired_cases:
        return "left_out", "retired_case"
    if {left, right} & state.decisions.removed_outputs:
        return "left_out", "removed_output"
    if state.fails_gate(left) or state.fails_gate(right):
        return "left_out", "failing_gate"
    if _pair(left, right) in settled_pairs:
        return "left_out", "settled_pair"
    if other_rater:
        return "left_out", "other_rater"
    return ("repeat", None) if repeat_of is not None else ("fitted", None)
