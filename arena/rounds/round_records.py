"""The small records a closed round holds beside its board: the anchor and how it was
chosen, the rater's corrections, the fit, the pooled judges, a board's uncertainty (with
its regime and the calibrated region), what was settled without a vote, the split halves
and the settings record.

Each has one ``to_json``/``from_json`` pair. Its keys come in the order the ledger writes
them (``sort_keys``; the anchor's in field order, as boards have always shown it), so
`round show --json` prints a stored round as it was stored, and `round close --json` as
`round show --json` will. A record some older rounds stored with fewer keys remembers which
were missing (``absent``) and is written back without them.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena import fit

if TYPE_CHECKING:
    from arena.rating.one_agent import Agents


def absent_keys(cls: type, data: Mapping[str, Any]) -> frozenset[str]:
    """The fields of ``cls`` that ``data`` (a stored record) lacks."""
    return frozenset(f.name for f in dataclasses.fields(cls) if f.name not in data) - {"absent"}


def _stored(record: Any, **shown: Any) -> dict[str, Any]:
    """``record``'s fields (``shown`` in place of their own values) in key order, but
    those it was stored without."""
    names = sorted(f.name for f in dataclasses.fields(record) if f.name != "absent")
    skipped: frozenset[str] = getattr(record, "absent", frozenset())
    return {n: shown.get(n, getattr(record, n)) for n in names if n not in skipped}


@dataclass(frozen=True)
class AnchorFallback:
    """How a board's anchor was chosen when the reference was not: its comparison weight,
    among how many systems that could be ranked, those that shared its weight (the anchor
    first) and what put it first (``label``, ``file_order``; None when none tied)."""

    weight: float
    among: int
    tied: tuple[str, ...]
    tie_broken_by: str | None

    def to_json(self) -> dict[str, Any]:
        return _stored(self, tied=list(self.tied))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnchorFallback:
        return cls(data["weight"], data["among"], tuple(data["tied"]), data["tie_broken_by"])


@dataclass(frozen=True)
class Anchor:
    system: str | None
    label: str | None
    reason: str
    # How it was chosen when the reference was not (``scoring.fallback``); None for the
    # reference. Rounds closed before it was recorded lack the key (``absent``).
    fallback: AnchorFallback | None = None
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        # In field order, as boards have always shown their anchor.
        names = [f.name for f in dataclasses.fields(self) if f.name != "absent"]
        shown = {n: getattr(self, n) for n in names if n not in self.absent}
        if "fallback" in shown:
            shown["fallback"] = self.fallback.to_json() if self.fallback else None
        return shown

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Anchor:
        fallback = data.get("fallback")
        return cls(
            data["system"],
            data["label"],
            data["reason"],
            AnchorFallback.from_json(fallback) if fallback else None,
            absent_keys(cls, data),
        )


# Each correction in force, as the round's settings line counts it.
_CORRECTED = {
    "retire_case": ("case retired", "cases retired"),
    "remove_output": ("output removed", "outputs removed"),
    "overrule": ("gate verdict overruled", "gate verdicts overruled"),
    "set_language": ("case language set", "case languages set"),
    "confirm_language": ("detected language confirmed", "detected languages confirmed"),
}
_EVENT_BASE = ("event_id", "kind", "actor", "at", "reason")


@dataclass(frozen=True)
class RoundEvent:
    """One of the rater's corrections in force at closing, as `arena event list --json`
    shows it: only the fields its kind uses (``reason``: the rater's note)."""

    event_id: str
    kind: str
    actor: str
    at: str
    reason: str | None
    case_id: str | None = None
    output_id: str | None = None
    presentation_id: str | None = None
    gate: str | None = None
    language: str | None = None
    target_event: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in _stored(self).items() if v is not None or k in _EVENT_BASE}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RoundEvent:
        return cls(**data)


def describe_events(events: Iterable[RoundEvent]) -> str:
    """``3 in force at closing: 2 gate verdicts overruled, 1 case retired`` (most first)."""
    counts = Counter(e.kind for e in events)
    if not counts:
        return "0 in force at closing"
    parts = [
        f"{n} {_CORRECTED.get(kind, (kind, kind))[n != 1]}"
        for kind, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return f"{counts.total()} in force at closing: " + ", ".join(parts)


@dataclass(frozen=True)
class FitRecord:
    """How the family board's fit went: its iterations, whether it converged and whether
    the plain maximum-likelihood points exist (without a penalty)."""

    iterations: int
    converged: bool
    mle_exists: bool

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FitRecord:
        return cls(**data)


@dataclass(frozen=True)
class JudgeSource:
    """A file a pooled judge's verdicts came from, with the format read and a bundle's
    signer (None where not recorded)."""

    sha256: str
    format: str | None = None
    signer: str | None = None
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JudgeSource:
        return cls(**data, absent=absent_keys(cls, data))


@dataclass(frozen=True)
class PooledJudge:
    """A judge named by a round (``round close --with-judges``): its kind, verdicts, how
    many became fitted comparisons, were left out (by reason) or matched no single output,
    the weight of each fitted one as a pooled rater's vote, and its sources; and how the
    round used it (``method``): ``prediction_powered`` (a model: its verdicts predict the
    rater's, ``lam`` the weight they got, ``effective_votes`` how many rater votes the board
    is worth with them, with its 95% interval) or ``pooled`` (a person: fitted as votes)."""

    judge: str
    verdicts: int
    fitted: int
    left_out: dict[str, int]
    weight: float | None
    unmatched: int
    kind: str
    sources: tuple[JudgeSource, ...]
    # Rounds closed before boards were prediction-powered lack these (``absent``).
    method: str = "pooled"
    lam: float | None = None
    effective_votes: float | None = None
    effective_votes_ci95: list[float] | None = None
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return _stored(self, sources=[s.to_json() for s in self.sources])

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PooledJudge:
        sources = tuple(JudgeSource.from_json(s) for s in data["sources"])
        return cls(**{**data, "sources": sources}, absent=absent_keys(cls, data))


@dataclass(frozen=True)
class Region:
    """The regimes whose coverage was checked: 93–97% at nominal 95% in each
    (docs/fitting.md, "Intervals of voted boards")."""

    min_systems: int = 3
    max_systems: int = 50
    max_votes: int = 10_000
    min_votes_per_system: int = 60
    min_cases: int = 40
    max_settled_share: float = 0.7
    penalty: float = fit.DEFAULT_PENALTY
    # Judges pooled with the rater (``round close --with-judges``): their verdicts on a case
    # are resampled with it (benchmarks/pooled_intervals.py; docs/judges.md).
    max_judges: int = 5
    # Rounds closed before judges could be pooled lack ``max_judges``.
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Region:
        return cls(**data, absent=absent_keys(cls, data))


@dataclass(frozen=True)
class Regime:
    """What the calibration depends on, as one board has it."""

    systems: int  # ranked
    votes: int  # human votes in the fit
    votes_per_system: int  # on the ranked system with the fewest
    cases: int  # with a comparison in the fit
    settled_share: float  # of the fit's weight
    penalty: float
    unit_weights: bool  # every comparison fitted at its own weight
    judges: int = 0  # pooled with the rater, with a verdict in the fit
    # Rounds closed before judges could be pooled lack ``judges``.
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Regime:
        return cls(**data, absent=absent_keys(cls, data))


@dataclass(frozen=True)
class Uncertainty:
    """A voted board's check of its regime against the region where intervals were
    calibrated, and how its intervals were made (``arena.rounds.uncertainty``)."""

    available: bool
    reason: str | None
    method: str
    confidence_level: float
    resamples: int
    seed: int
    stream: int
    regime: Regime
    region: Region

    def to_json(self) -> dict[str, Any]:
        return _stored(self, regime=self.regime.to_json(), region=self.region.to_json())

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Uncertainty:
        regime, region = Regime.from_json(data["regime"]), Region.from_json(data["region"])
        return cls(**{**data, "regime": regime, "region": region})


@dataclass(frozen=True)
class Settled:
    """How much of the fit was decided without a vote: the fitted settled comparisons by
    the kind of rule (gate, identical, tests; ``overruled`` when a verdict on one of its
    outputs was set aside) and their share of the fit's weight (None: nothing fitted)."""

    by_rule: dict[str, int]
    weight_share: float | None

    @property
    def total(self) -> int:
        return sum(self.by_rule.values())

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settled:
        return cls(**data)


@dataclass(frozen=True)
class RaterFigures:
    """One rater's part of a round shared by several: their votes in the fit and the
    weight these were fitted with, and the round summary's figures worked out on their
    own votes alone (each None where it cannot be told: ``unavailable`` says why)."""

    rater: str
    votes: int
    weight: float
    repeats: int
    rater_agreement: float | None
    rater_agreement_ci95: list[float] | None
    split_half_tau: float | None
    split_half_tau_ci95: list[float] | None
    left_share: float | None
    left_share_ci95: list[float] | None
    decisive_votes: int
    # Whichever length bias the family has (of outputs, or of diffs), and its error.
    length_bias_points_per_sd: float | None
    diff_length_bias_points_per_sd: float | None
    length_bias_standard_error: float | None
    unavailable: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RaterFigures:
        return cls(**data)


@dataclass(frozen=True)
class SplitHalves:
    """Each system's points fitted to the odd- and to the even-numbered sessions (None:
    not ranked in that half), by system id."""

    odd: dict[str, float | None] = field(default_factory=dict)
    even: dict[str, float | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return _stored(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SplitHalves:
        return cls(**data)


@dataclass(frozen=True)
class PointMethod:
    """How a round's scores were made: by name, with a voted round's penalty, base, scale
    and anchor, or a graded round's interval."""

    name: str
    penalty: float | None = None
    base: float | None = None
    scale: float | None = None
    anchor: Anchor | None = None
    interval: str | None = None

    @property
    def graded(self) -> bool:
        return self.interval is not None

    def to_json(self) -> dict[str, Any]:
        if self.graded:
            return {"interval": self.interval, "name": self.name}
        anchor = dict(sorted(self.anchor.to_json().items())) if self.anchor else None
        return {k: v for k, v in _stored(self, anchor=anchor).items() if k != "interval"}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PointMethod:
        anchor = data.get("anchor")
        return cls(**{**data, "anchor": Anchor.from_json(anchor) if anchor else None})


@dataclass(frozen=True)
class Seeds:
    """The seed of the intervals and, where the rater votes, each session's (by number)."""

    intervals: int
    sessions: dict[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in _stored(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seeds:
        return cls(**data)


@dataclass(frozen=True)
class CaseSet:
    """The cases in force, by hash and number, and how they differ from the family's last
    round (``since``; None for its first): ``added`` and ``retired`` are None when that
    round did not record its cases."""

    hash: str
    cases: int
    since: str | None
    added: tuple[str, ...] | None
    retired: tuple[str, ...] | None

    def to_json(self) -> dict[str, Any]:
        return _stored(
            self,
            added=None if self.added is None else list(self.added),
            retired=None if self.retired is None else list(self.retired),
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaseSet:
        added, retired = data["added"], data["retired"]
        return cls(
            data["hash"],
            data["cases"],
            data["since"],
            None if added is None else tuple(added),
            None if retired is None else tuple(retired),
        )


@dataclass(frozen=True)
class SettingsRecord:
    """A round's settings record (``arena.rounds.settings_record``): the point method, the
    coverage rules by name, the seeds, and a voted or tested round's case set and a tested
    round's agents."""

    method: PointMethod
    coverage: dict[str, Any]
    seeds: Seeds
    case_set: CaseSet | None = None
    agents: Agents | None = None

    def to_json(self) -> dict[str, Any]:
        # In the order a round's settings list them.
        shown: dict[str, Any] = {
            "method": self.method.to_json(),
            "coverage": self.coverage,
            "seeds": self.seeds.to_json(),
        }
        if self.case_set is not None:
            shown["case_set"] = self.case_set.to_json()
        if self.agents is not None:
            shown["agents"] = dict(sorted(self.agents.to_json().items()))
        return shown

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SettingsRecord:
        from arena.rating.one_agent import Agents  # only tested rounds record agents

        cases, agents = data.get("case_set"), data.get("agents")
        return cls(
            PointMethod.from_json(data["method"]),
            data["coverage"],
            Seeds.from_json(data["seeds"]),
            None if cases is None else CaseSet.from_json(cases),
            None if agents is None else Agents.from_json(agents),
        )
