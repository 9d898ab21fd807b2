"""A round's settings record (``settings_record``) as named lines, the same under `arena
round show`'s "Round settings" heading and in the window's Round settings view."""

from __future__ import annotations

from typing import Any

from arena.pairs.unsure import BOOST
from arena.rating.one_agent import Agents
from arena.rounds import case_set
from arena.rounds.anchor_words import anchor_why
from arena.rounds.model import Round, RoundSettings
from arena.rounds.round_records import PointMethod, Seeds, describe_events

_PAIRS = {
    "adaptive": "adaptive: once every system pair has a vote, the pair whose next vote tells "
    "most about the order",
    "coverage": "coverage: once every system pair has a vote, the least-voted pair",
}

_UNSURE = {
    True: "unsure first: within a system pair, the cases a run judge is unsure of drawn "
    f"{BOOST:g} times as often, with recorded probabilities the fit weighs back",
    False: "unsure first off: the case within a system pair drawn uniformly",
}


def _method(method: PointMethod) -> str:
    if method.graded:
        return "macro-average of the category scores, 95% intervals by a stratified bootstrap"
    return (
        f"penalized Bradley–Terry, penalty λ {method.penalty:g}, base {method.base:g}, "
        f"{method.scale:.1f} points per unit of strength (400 apart ≈ 10 : 1 odds)"
    )


def _weighting(settings: RoundSettings) -> str:
    if settings.weighting == "ledger":
        return f"ledger: each actor's whole-family weight capped at {settings.cap:g}"
    return "unit: every comparison its own weight"


def _coverage(rules: dict[str, Any]) -> str:
    told = [
        "unranked: not connected to the anchor by comparisons",
        f"far behind: more than {rules['far_behind_below_top']:g} points below the top",
        "settled comparisons weigh at most "
        f"{rules['settled_weight_per_case_and_system_pair']:g} per case and system pair",
        "repeats: consistency only, not fitted",
    ]
    if "unanswered_task" in rules:
        told.append("a task not answered, or an output never tested, is a failed trial")
    return "; ".join(told)


def _seeds(seeds: Seeds) -> str:
    text = f"intervals {seeds.intervals}"
    if seeds.sessions:
        text += "; rating sessions " + ", ".join(f"{n}: {s}" for n, s in seeds.sessions.items())
    return text


def _agents(found: Agents) -> str:
    if not found.differ:
        return found.describe() + " (every system)"
    how = "allowed by the family, --mixed-harness allow" if found.allowed else "reported"
    return f"the systems differ in {found.describe()} ({how})"


def settings_lines(kind: str | None, found: Round) -> list[tuple[str, str]]:
    """``(name, text)`` for each part of the recorded settings of ``found``, a round of a
    ``kind`` family: rounds closed before the settings record keep to what they recorded."""
    record = found.settings_record
    lines: list[tuple[str, str]] = []
    if record is not None:
        lines.append(("point method", _method(record.method)))
        anchor = record.method.anchor
        if anchor:
            why = anchor_why(anchor.reason, anchor.fallback)
            lines.append(("anchor", f"{anchor.label or '—'} ({why})"))
    if kind != "graded":
        lines.append(("weighting", _weighting(found.settings)))
        threshold = found.settings.threshold
        lines.append(
            (
                "decisive-vote threshold",
                "none: no votes are asked for"
                if kind == "tests"
                else f"{threshold:g}: fewer decisive (left or right) votes mark a system "
                "preliminary",
            )
        )
    if found.settings.raters:  # a round of every rater's votes names none
        named = ", ".join(found.settings.raters)
        lines.append(("raters", f"{named}: the others' votes are left out (other_rater)"))
    if record is not None and kind != "graded":
        lines.append(("coverage", _coverage(record.coverage)))
    if found.pairs:
        design = _PAIRS.get(found.pairs, found.pairs)
        if found.unsure_first is not None:
            design += "; " + _UNSURE[found.unsure_first == "on"]
        lines.append(("pair design", design))
    lines.append(("seeds", _seeds(record.seeds if record else Seeds(found.settings.seed))))
    if record is not None and record.case_set is not None:
        lines.append(("case set", case_set.describe(record.case_set)))
    if record is not None and record.agents is not None:
        lines.append(("agents", _agents(record.agents)))
    family = found.family_settings
    if family:  # recorded since family settings can change (`arena family set`)
        lines.append(
            (
                "family",
                f"language {family.language}, characters {family.min_chars}–{family.max_chars}"
                + (f", aspect {family.aspect}" if family.aspect else ""),
            )
        )
    lines.append(("corrections", describe_events(found.events)))
    lines.append(("software", f"arena {found.software}"))
    if record is None:
        lines.append(
            (
                "not recorded",
                "this round was closed before Arena recorded its point method, coverage "
                "rules, session seeds and case set",
            )
        )
    return lines
