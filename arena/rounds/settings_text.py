"""A round's settings record (``settings_record``) as named lines, the same under `arena
round show`'s "Round settings" heading and in the window's Round settings view."""

from __future__ import annotations

from typing import Any

from arena.rating.one_agent import Agents
from arena.rounds import case_set
from arena.rounds.anchor_words import anchor_why

_PAIRS = {
    "adaptive": "adaptive: once every system pair has a vote, the pair whose next vote tells "
    "most about the order",
    "coverage": "coverage: once every system pair has a vote, the least-voted pair",
}


def _method(settings: dict[str, Any]) -> str:
    method = settings["method"]
    if method["name"] != "penalized_bradley_terry":
        return "macro-average of the category scores, 95% intervals by a stratified bootstrap"
    return (
        f"penalized Bradley–Terry, penalty λ {method['penalty']:g}, base {method['base']:g}, "
        f"{method['scale']:.1f} points per unit of strength (400 apart ≈ 10 : 1 odds)"
    )


def _weighting(settings: dict[str, Any]) -> str:
    if settings["weighting"] == "ledger":
        return f"ledger: each actor's whole-family weight capped at {settings['cap']:g}"
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


def _seeds(seeds: dict[str, Any]) -> str:
    sessions = seeds.get("sessions")
    text = f"intervals {seeds['intervals']}"
    if sessions:
        text += "; rating sessions " + ", ".join(f"{n}: {s}" for n, s in sessions.items())
    return text


def _agents(agents: dict[str, Any]) -> str:
    found = Agents.from_json(agents)
    if not found.differ:
        return found.describe() + " (every system)"
    how = "allowed by the family, --mixed-harness allow" if found.allowed else "reported"
    return f"the systems differ in {found.describe()} ({how})"


def settings_lines(kind: str | None, settings: dict[str, Any]) -> list[tuple[str, str]]:
    """``(name, text)`` for each part of a round's recorded ``settings`` (as `round show
    --json` prints them): rounds closed before the record keep to what they recorded."""
    lines: list[tuple[str, str]] = []
    method = settings.get("method")
    if method is not None:
        lines.append(("point method", _method(settings)))
        anchor = method.get("anchor")
        if anchor:
            why = anchor_why(anchor["reason"], anchor.get("fallback"))
            lines.append(("anchor", f"{anchor['label'] or '—'} ({why})"))
    if kind != "graded":
        lines.append(("weighting", _weighting(settings)))
        threshold = settings["threshold"]
        lines.append(
            (
                "decisive-vote threshold",
                "none: no votes are asked for"
                if kind == "tests"
                else f"{threshold:g}: fewer decisive (left or right) votes mark a system "
                "preliminary",
            )
        )
    if "coverage" in settings and kind != "graded":
        lines.append(("coverage", _coverage(settings["coverage"])))
    if settings.get("pairs"):
        lines.append(("pair design", _PAIRS.get(settings["pairs"], settings["pairs"])))
    lines.append(("seeds", _seeds(settings.get("seeds") or {"intervals": settings["seed"]})))
    if "case_set" in settings:
        lines.append(("case set", case_set.describe(settings["case_set"])))
    if "agents" in settings:
        lines.append(("agents", _agents(settings["agents"])))
    family = settings.get("family")
    if family:  # recorded since family settings can change (`arena family set`)
        lines.append(
            (
                "family",
                f"language {family['language']}, characters "
                f"{family['min_chars']}–{family['max_chars']}"
                + (f", aspect {family['aspect']}" if family["aspect"] else ""),
            )
        )
    lines.append(("corrections", f"{len(settings.get('events', []))} in force at closing"))
    lines.append(("software", f"arena {settings['software']}"))
    if method is None:
        lines.append(
            (
                "not recorded",
                "this round was closed before Arena recorded its point method, coverage "
                "rules, session seeds and case set",
            )
        )
    return lines
