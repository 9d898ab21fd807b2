"""A closed round as typed records: the board, its category refits, the summary, the settings.

Each record has one ``to_json``/``from_json`` pair (the smaller parts are in
``arena.rounds.round_records``), and ``Round.shown_json`` is the shape `round show
--json` prints (docs/cli.md), written in one place. A round's comparisons
and graded receipts are stored apart from it and read only by those who need
them (export), so showing a board never parses every comparison.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from arena import fit
from arena.errors import BadInput
from arena.records import Family, SystemId
from arena.rounds.round_records import (
    Anchor,
    FitRecord,
    PooledJudge,
    RaterFigures,
    RoundEvent,
    SettingsRecord,
    Settled,
    SplitHalves,
    Uncertainty,
    absent_keys,
)

Weighting = Literal["unit", "ledger"]
DEFAULT_CAP = 1000.0


def _fields(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``data`` that ``cls`` has (older rounds lack newer keys: defaults), and
    those it lacks (``absent``: written back without them)."""
    names = {f.name for f in dataclasses.fields(cls)} - {"absent"}
    return {k: v for k, v in data.items() if k in names} | {"absent": absent_keys(cls, data)}


def _stored(record: Any) -> dict[str, Any]:
    """``asdict`` of ``record``, but the keys it was stored without."""
    data = dataclasses.asdict(record)
    del data["absent"]
    for name in record.absent:
        data.pop(name, None)
    return data


@dataclass(frozen=True)
class RoundSettings:
    """What a round records so anyone can refit it."""

    weighting: Weighting = "unit"
    cap: float | None = None
    penalty: float = fit.DEFAULT_PENALTY
    base: float = 1000.0
    threshold: float = fit.DEFAULT_THRESHOLD
    # Graded families: the seed of the bootstrap intervals, recorded so they can be redone.
    seed: int = 0
    # Judges whose verdicts are fitted with the rater's votes (a pooled round), by name.
    with_judges: tuple[str, ...] = ()
    # The raters whose votes are fitted, by name (none named: every rater's).
    raters: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Sorted and once each: the same judges (raters) named in any order make the same round.
        object.__setattr__(self, "with_judges", tuple(sorted(set(self.with_judges))))
        object.__setattr__(self, "raters", tuple(sorted(set(self.raters))))
        if self.weighting not in ("unit", "ledger"):
            raise BadInput(
                f"weighting must be unit or ledger, not {self.weighting!r}", field="--weighting"
            )
        if self.weighting == "ledger" and self.cap is None:
            object.__setattr__(self, "cap", DEFAULT_CAP)
        if self.cap is not None and not self.cap > 0:
            raise BadInput("the cap must be a positive weight", field="--cap")
        if not (self.penalty >= 0 and math.isfinite(self.penalty)):
            raise BadInput("the penalty must be a finite number ≥ 0", field="--penalty")
        if not math.isfinite(self.base):
            raise BadInput("the base must be a finite number", field="--base")
        if not self.threshold >= 0:
            raise BadInput("the threshold must be ≥ 0", field="--threshold")

    def as_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "weighting": self.weighting,
            "cap": self.cap,
            "penalty": self.penalty,
            "base": self.base,
            "threshold": self.threshold,
            "seed": self.seed,
        }
        if self.with_judges:  # a round of the rater's alone records no such key
            shown["with_judges"] = list(self.with_judges)
        if self.raters:  # a round of every rater's votes records no such key
            shown["raters"] = list(self.raters)
        return shown


@dataclass(frozen=True)
class BoardRow:
    """One system's line of a board; a graded run has scores instead of points."""

    system: SystemId
    label: str
    rank: int | None
    points: float | None = None
    status: str = "ranked"
    preliminary: bool = False
    unranked: bool = False
    far_behind: bool = False
    votes: int = 0
    decisive_votes: int = 0
    both_bad_share: float | None = None
    gate_failure_share: float | None = None
    cost_per_output: float | None = None
    p50_latency_ms: float | None = None
    pass_rate: float | None = None
    failed_tests_share: float | None = None
    # A category's board only (None on the family's, and in rounds closed before they were
    # recorded): the category's own human votes in the fit and their both-bad share. There
    # ``votes`` and ``both_bad_share`` stay family-wide, while points, rank, preliminary
    # and ``decisive_votes`` are the category's own.
    category_votes: int | None = None
    category_both_bad_share: float | None = None
    # Tested families only (None elsewhere): the agent and its turn budget, trials
    # expected (tasks x samples) and passed, tasks not answered, outputs without any
    # result (counted as failed), the median test run time, and how many of its outputs
    # (solutions) report the agent's time and cost (``p50_latency_ms``, ``cost_per_output``).
    run: str | None = None
    trials: int | None = None
    trials_passed: int | None = None
    no_output: int | None = None
    untried: int | None = None
    p50_trial_ms: float | None = None
    solutions_timed: int | None = None
    solutions_costed: int | None = None
    # Graded runs only (None elsewhere), but ``ci95``: on a voted board, the 95% interval
    # of points where the board's regime was calibrated (arena.rounds.uncertainty).
    headline: float | None = None
    ci95: list[float] | None = None
    passed: int | None = None
    tasks: int | None = None
    coverage: float | None = None
    categories: dict[str, float] | None = None
    tier: str | None = None
    suite: str | None = None
    # Graded rounds closed before these were recorded lack them (None): their ``ci95``
    # is the plain percentile interval (``ci_method`` absent) and their rank the order.
    ci_method: str | None = None
    status_counts: dict[str, int] | None = None
    missing_reasons: dict[str, int] | None = None
    # The keys a stored row lacks: it is written back without them.
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @property
    def graded(self) -> bool:
        return self.headline is not None

    def to_json(self) -> dict[str, Any]:
        row = _stored(self)
        if not self.graded:
            for name in GRADED_FIELDS:
                # A voted row keeps its interval of points, where the board has them.
                if name != "ci95" or self.ci95 is None:
                    row.pop(name, None)
        if self.trials is None:
            for name in TESTED_FIELDS:
                row.pop(name, None)
        if self.category_votes is None:
            for name in CATEGORY_FIELDS:
                row.pop(name, None)
        for name in RECORDED_LATER:  # an older graded round shows as it was stored
            if row.get(name, 0) is None:
                del row[name]
        return row

    def shown_json(self, *, category: bool = False) -> dict[str, Any]:
        """The row as `round show --json` lists it (docs/cli.md); ``category``: in a
        category's refit, with the category's own votes."""
        keys = (
            SYSTEM_KEYS
            + ("status",)
            + (CATEGORY_FIELDS if category else ())
            + (GRADED_KEYS if self.graded else ("ci95",))
            + (TESTED_FIELDS if self.trials is not None else ())
        )
        return {k: getattr(self, k) for k in keys}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardRow:
        return cls(**_fields(cls, data))

    @classmethod
    def of(cls, data: dict[str, Any]) -> BoardRow:
        """A row of the columns a board works out (those missing take their defaults)."""
        return dataclasses.replace(cls.from_json(data), absent=frozenset())


GRADED_FIELDS = (
    "headline",
    "ci95",
    "passed",
    "tasks",
    "coverage",
    "categories",
    "tier",
    "suite",
    "ci_method",
    "status_counts",
    "missing_reasons",
)
TESTED_FIELDS = (
    "run", "trials", "trials_passed", "no_output", "untried", "p50_trial_ms",
    "solutions_timed", "solutions_costed",
)  # fmt: skip
CATEGORY_FIELDS = ("category_votes", "category_both_bad_share")
# Keys of a `round show --json` system entry, in the order docs/cli.md lists them.
SYSTEM_KEYS = (
    "system",
    "label",
    "points",
    "rank",
    "preliminary",
    "unranked",
    "far_behind",
    "votes",
    "decisive_votes",
    "both_bad_share",
    "gate_failure_share",
    "cost_per_output",
    "p50_latency_ms",
    "pass_rate",
    "failed_tests_share",
)
# And, for graded families only:
GRADED_KEYS = (
    "headline",
    "ci95",
    "ci_method",
    "passed",
    "tasks",
    "coverage",
    "categories",
    "status_counts",
    "missing_reasons",
    "tier",
)
RECORDED_LATER = ("ci_method", "status_counts", "missing_reasons")
# The parts of a round's settings record (Round.settings_record), beside RoundSettings' own.
RECORD_KEYS = ("method", "coverage", "seeds", "case_set", "agents")
# Keys that a round always writes but older rounds may lack: written back as stored.
RECORDED_LATER_IN_ROUNDS = ("kind", "categories", "summary", "fit", "marks")
SETTINGS_KEYS = ("weighting", "cap", "penalty", "base", "threshold", "seed", "software", "events")
SETTINGS_PREFIX = "settings."


@dataclass(frozen=True)
class Board:
    """A ranked board: the family's, or one category's refit."""

    anchor: Anchor | None
    systems: tuple[BoardRow, ...]
    # A voted board's check of its regime against the calibrated region, and how its
    # intervals were made (arena.rounds.uncertainty); None in rounds closed before.
    uncertainty: Uncertainty | None = None

    def to_json(self) -> dict[str, Any]:
        shown = {
            "anchor": self.anchor.to_json() if self.anchor else None,
            "systems": [r.to_json() for r in self.systems],
        }
        if self.uncertainty is not None:
            shown["uncertainty"] = self.uncertainty.to_json()
        return shown

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Board:
        anchor, sure = data.get("anchor"), data.get("uncertainty")
        return cls(
            Anchor.from_json(anchor) if anchor else None,
            tuple(BoardRow.from_json(r) for r in data["systems"]),
            Uncertainty.from_json(sure) if sure is not None else None,
        )


# The figures' uncertainty, recorded from the rounds that have ``decisive_votes`` on: a
# round closed before has none of them (RoundSummary.to_json leaves them out).
UNCERTAINTY_FIELDS = (
    "rater_agreement_ci95",
    "split_half_tau_ci95",
    "split_half_tau_null_p",
    "within_session_tau_ci95",
    "within_session_tau_null_p",
    "left_share",
    "left_share_ci95",
    "decisive_votes",
)


@dataclass(frozen=True)
class RoundSummary:
    rater_agreement: float | None = None
    repeats: int = 0
    split_half_tau: float | None = None
    split_half_points: SplitHalves = field(default_factory=SplitHalves)
    # Split-half τ of odd- against even-numbered votes by time within each session (None
    # in rounds closed before it was recorded, or where it cannot be told).
    within_session_tau: float | None = None
    # 95% intervals ([low, high]) and the share of random votes reaching each τ.
    rater_agreement_ci95: list[float] | None = None
    split_half_tau_ci95: list[float] | None = None
    split_half_tau_null_p: float | None = None
    within_session_tau_ci95: list[float] | None = None
    within_session_tau_null_p: float | None = None
    # The share of decisive votes (left or right) in the fit that chose the left side.
    left_share: float | None = None
    left_share_ci95: list[float] | None = None
    decisive_votes: int | None = None
    left_out: dict[str, int] = field(default_factory=dict)
    length_bias_points_per_sd: float | None = None
    diff_length_bias_points_per_sd: float | None = None
    # The standard error of whichever length bias is reported (points per SD).
    length_bias_standard_error: float | None = None
    # {figure: why the votes cannot tell it}: each such figure is None. None (absent) in
    # rounds closed before figures were withheld; their figures were printed regardless.
    unavailable: dict[str, str] | None = None
    # None in rounds closed before settled shares were recorded.
    settled: Settled | None = None
    # Each rater's votes, weight and own figures, in the order of their first vote, where
    # the fit holds the votes of two raters or more (None, and absent, elsewhere).
    raters: list[RaterFigures] | None = None
    # The keys a stored summary lacks (within_session_tau before it was recorded...).
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        data = _stored(self)
        if "split_half_points" in data:
            data["split_half_points"] = self.split_half_points.to_json()
        data["settled"] = self.settled.to_json() if self.settled is not None else None
        data["raters"] = None if self.raters is None else [r.to_json() for r in self.raters]
        for name in ("settled", "unavailable", "raters"):
            if data.get(name, 0) is None:
                del data[name]
        if self.unavailable is None:  # closed before standard errors were recorded
            data.pop("length_bias_standard_error", None)
        if self.decisive_votes is None:  # closed before uncertainty was recorded
            for name in UNCERTAINTY_FIELDS:
                data.pop(name, None)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundSummary:
        found = _fields(cls, data)
        if "split_half_points" in found:
            found["split_half_points"] = SplitHalves.from_json(found["split_half_points"])
        if found.get("settled") is not None:
            found["settled"] = Settled.from_json(found["settled"])
        if found.get("raters") is not None:
            found["raters"] = [RaterFigures.from_json(r) for r in found["raters"]]
        return cls(**found)


@dataclass(frozen=True)
class Round:
    round_id: str
    family: str
    kind: str | None
    closed_at: str
    settings: RoundSettings
    software: str
    # The rater's corrections in force at closing (docs/cli.md, `arena event list`).
    events: tuple[RoundEvent, ...]
    board: Board
    categories: dict[str, Board]
    summary: RoundSummary
    fit: FitRecord | None
    # Where the family's chains, outputs and gate results stood at closing: the export
    # shows the family as it was then.
    chain_heads: dict[str, dict[str, Any]]
    marks: dict[str, int] | None = None
    # The family's settings in force at closing (kind, language, bounds, aspect, reference):
    # they change by recorded changes (`arena family set`). None in rounds closed before.
    family_settings: Family | None = None
    # How the rating sessions chose the next system pair (the family's choice in force at
    # closing: adaptive or coverage); None for a family that asks for no votes, and in
    # rounds closed before it was recorded.
    pairs: str | None = None
    # Whether the rating sessions drew first the cases a run judge is unsure of (``on`` or
    # ``off``: arena.pairs.unsure); None for a family with no run judge, and in rounds
    # closed before it was recorded.
    unsure_first: str | None = None
    # A pooled round's judges (``settings.with_judges``): each judge's name, kind, verdicts,
    # how many were fitted, left out (by reason) or unmatched, their weight, and the sources
    # they came from. None in a round of the rater's alone.
    judges: tuple[PooledJudge, ...] | None = None
    # The settings record (arena.rounds.settings_record: method, coverage, seeds, case set,
    # agents), shown among the settings; None in rounds closed before it was kept.
    settings_record: SettingsRecord | None = None
    # The ids of the cases in force, for the next round to tell how its case set differs.
    case_ids: tuple[str, ...] | None = None
    # The keys a stored round lacks (``settings.`` before those of its settings): it is
    # written back without them.
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @property
    def pooled(self) -> tuple[str, ...]:
        """The judges pooled with the rater (none: the rater's own board)."""
        return self.settings.with_judges

    @property
    def anchor(self) -> Anchor | None:
        return self.board.anchor

    @property
    def systems(self) -> tuple[BoardRow, ...]:
        return self.board.systems

    def recorded_settings(self) -> dict[str, Any]:
        """The settings as the round records them: the choices, the software, the events."""
        recorded = {
            **self.settings.as_json(),
            "software": self.software,
            "events": [e.to_json() for e in self.events],
        }
        if self.family_settings is not None:
            recorded["family"] = dict(sorted(dataclasses.asdict(self.family_settings).items()))
        if self.pairs is not None:
            recorded["pairs"] = self.pairs
        if self.unsure_first is not None:
            recorded["unsure_first"] = self.unsure_first
        if self.judges is not None:
            recorded["with_judges"] = [j.to_json() for j in self.judges]
        for name in self.absent:
            if name.startswith(SETTINGS_PREFIX):
                recorded.pop(name.removeprefix(SETTINGS_PREFIX), None)
        if self.settings_record is not None:
            recorded.update(self.settings_record.to_json())
        return recorded

    def _heading(self) -> dict[str, Any]:
        """What every JSON view of the round starts with."""
        return {
            "round": self.round_id,
            "family": self.family,
            "kind": self.kind,
            "closed_at": self.closed_at,
            "settings": self.recorded_settings(),
        }

    def to_json(self) -> dict[str, Any]:
        """Everything but the comparisons and receipts, as `round show --json` builds on."""
        shown = {
            **self._heading(),
            **self.board.to_json(),
            "categories": {k: v.to_json() for k, v in self.categories.items()},
            "summary": self.summary.to_json(),
            "fit": self.fit.to_json() if self.fit is not None else None,
            "chain_heads": self.chain_heads,
            "marks": self.marks,
            **({"case_ids": list(self.case_ids)} if self.case_ids is not None else {}),
        }
        for name in self.absent:
            shown.pop(name, None)
        return shown

    def shown_json(self, category: str | None = None) -> dict[str, Any]:
        """The documented `round show --json` view of the round, or of its ``category``'s
        refit: the settings, one board and the summary."""
        board = self.categories[category] if category else self.board
        shown = {
            **self._heading(),
            "anchor": board.anchor.to_json() if board.anchor else None,
            "systems": [r.shown_json(category=bool(category)) for r in board.systems],
            "summary": self.summary.to_json(),
        }
        if board.uncertainty is not None:  # voted boards of rounds closed since it is recorded
            shown["uncertainty"] = board.uncertainty.to_json()
        if category:
            shown["category"] = category
        return shown

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Round:
        return cls(
            round_id=data["round"],
            family=data["family"],
            kind=data.get("kind"),
            closed_at=data["closed_at"],
            **Recorded.from_json(data["settings"])._asdict(),
            board=Board.from_json(data),
            categories={k: Board.from_json(v) for k, v in data.get("categories", {}).items()},
            summary=RoundSummary.from_json(data.get("summary") or {}),
            fit=FitRecord.from_json(data["fit"]) if data.get("fit") is not None else None,
            chain_heads=data["chain_heads"],
            marks=data.get("marks"),
            case_ids=tuple(data["case_ids"]) if "case_ids" in data else None,
            absent=frozenset(k for k in RECORDED_LATER_IN_ROUNDS if k not in data)
            | frozenset(SETTINGS_PREFIX + k for k in SETTINGS_KEYS if k not in data["settings"]),
        )


class Recorded(NamedTuple):
    """A round's ``settings`` as it records them (``Round.recorded_settings``; a bundle's
    manifest carries them too): the choices, the software, the corrections in force, the
    family's settings, the pair design, the pooled judges and the settings record."""

    settings: RoundSettings
    software: str
    events: tuple[RoundEvent, ...]
    family_settings: Family | None
    pairs: str | None
    judges: tuple[PooledJudge, ...] | None
    settings_record: SettingsRecord | None
    unsure_first: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Recorded:
        recorded = dict(data)
        software = recorded.pop("software", "")
        events = tuple(RoundEvent.from_json(e) for e in recorded.pop("events", ()))
        family = recorded.pop("family", None)
        pairs = recorded.pop("pairs", None)
        unsure_first = recorded.pop("unsure_first", None)
        pooled = recorded.pop("with_judges", None)
        record = {k: recorded.pop(k) for k in RECORD_KEYS if k in recorded}
        judges = None if pooled is None else tuple(PooledJudge.from_json(j) for j in pooled)
        if judges is not None:
            recorded["with_judges"] = tuple(j.judge for j in judges)
        return cls(
            RoundSettings(**recorded),
            software,
            events,
            Family(**family) if family is not None else None,
            pairs,
            judges,
            SettingsRecord.from_json(record) if record else None,
            unsure_first,
        )
