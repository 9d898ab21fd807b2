"""Families as the rater makes and changes them: create, set, rename, archive, describe.

A family's row keeps what it was created with; every later change is an append-only row
(``ledger.family_changes``) with actor, time and reason. A change of what the gates read
(language, character bounds) takes effect at the next gate run: ``set_family`` runs the
family's gates again at once unless asked not to, and a round closed afterwards records
the settings in force (``arena.rounds.closing``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import BadInput
from arena.intake.family_settings import FamilySettings, check_settings
from arena.ledger import Ledger, catalog, family_changes
from arena.pairs import adaptive
from arena.pairs.scheduling import RepeatPolicy
from arena.pairs.settling import TESTED_KINDS
from arena.records import VOTED_KINDS, Family, name_problem

if TYPE_CHECKING:
    from arena.gates.screening import GateSummary

# What the gates read of a family: changing one re-runs them (screening.Fingerprints).
GATED_SETTINGS = ("language", "min_chars", "max_chars")
# Kinds a rater can give a family here; graded families come from suites (`arena collect`).
MADE_KINDS = ("votes", "tests", "tests_then_votes")


def unknown_family(ledger: Ledger, name: str) -> BadInput:
    """An import into a family that does not exist: say which ones it may be a typo of,
    and how to create it."""
    refused = catalog.no_such_family(ledger, name)
    return BadInput(
        f"{refused.message}. Create it first with `arena family create {name} --kind votes "
        "--language en` (or another kind and language), or import with --create (and "
        "--kind, --language, --min-chars, --max-chars as needed)",
        field="--family",
    )


def require(ledger: Ledger, name: str) -> Family:
    """The family ``name``, or a refusal naming the families it may be a typo of."""
    found = catalog.get_family(ledger, name)
    if found is None:
        raise catalog.no_such_family(ledger, name, field="FAMILY")
    return found


def create_family(ledger: Ledger, name: str, settings: FamilySettings) -> Family:
    """A new, empty family with ``settings`` (the rest default, as a first import's do).

    A ``reference`` names a system the family does not have yet: it is kept as given
    and names the system with that label once an import brings it.
    """
    problem = name_problem(name)
    if problem is not None:
        raise BadInput(f"a family's name {problem}", field="NAME")
    name = name.strip()
    if catalog.get_family(ledger, name) is not None:
        raise BadInput(
            f"family {name!r} already exists; change its settings with `arena family set`",
            field="NAME",
        )
    given = settings.given()
    if given.get("kind", "votes") not in MADE_KINDS:
        raise BadInput(
            f"a family made here is one of {', '.join(MADE_KINDS)}; graded families come "
            "from suites (`arena collect`, `arena import --kind graded`)",
            field="--kind",
        )
    check_settings(given)
    session = settings.session_given()
    _check_pairs(session, given.get("kind", "votes"))
    agents = settings.agents_given()
    _check_agents(agents, given.get("kind", "votes"))
    reference = given.pop("reference", None)
    family = Family(name=name, **given)
    with ledger.atomic():
        catalog.add_family(ledger, family)
        if reference is not None:
            family_changes.add_change(
                ledger, name, "reference", reference, reason="given at creation"
            )
        for key, value in {**session, **agents}.items():
            family_changes.add_change(ledger, name, key, value, reason="given at creation")
    return family


def _check_pairs(session: dict[str, Any], kind: str) -> None:
    for key, flag in (("pairs", "--pairs"), ("unsure_first", "--unsure-first")):
        if key in session and kind not in VOTED_KINDS:
            raise BadInput(
                f"a {kind} family asks for no votes: a pair choice is for "
                f"{' and '.join(VOTED_KINDS)} families",
                field=flag,
            )


def _check_agents(agents: dict[str, str], kind: str) -> None:
    if agents and kind not in TESTED_KINDS:
        raise BadInput(
            f"a {kind} family runs no agent on tasks: --mixed-harness is for "
            f"{' and '.join(sorted(TESTED_KINDS))} families",
            field="--mixed-harness",
        )


def session_settings(ledger: Ledger, name: str) -> dict[str, Any]:
    """The family's settings in force that the rating session reads: how often and how far
    apart repeats come, and how the next system pair is chosen."""
    policy = RepeatPolicy.of(family_changes.repeat_settings(ledger, name))
    return {
        "repeat_share": policy.share,
        "repeat_gap": policy.gap,
        "repeat_minutes": policy.minutes,
        "pairs": adaptive.choice_of(ledger, name),
        "unsure_first": family_changes.unsure_first(ledger, name),
    }


@dataclass(frozen=True)
class SetResult:
    """What ``set_family`` recorded, and the gates' summary when they ran again."""

    family: Family
    changes: dict[str, str]
    regated: GateSummary | None = None
    # The settings the rating session reads, in force after the change (``session_settings``).
    session: dict[str, Any] | None = None


def set_family(
    ledger: Ledger,
    name: str,
    settings: FamilySettings,
    *,
    reason: str = "",
    regate: bool = True,
    progress: Callable[[int], None] | None = None,
) -> SetResult:
    """Record a change of each setting given that differs from the one in force.

    The kind changes only while the family holds no outputs (what was settled and
    voted under one kind means something else under another), and never to or from
    ``graded``. A reference must name a system of the family. When a setting the gates
    read changed and ``regate``, the family's gates run again now.
    """
    family = require(ledger, name)
    given = settings.given()
    session = settings.session_given()
    agents = settings.agents_given()
    if not given and not session and not agents:
        raise BadInput(
            "nothing to change: give --language, --min-chars, --max-chars, --aspect, "
            "--reference, --kind, --repeat-share, --repeat-gap, --repeat-minutes, --pairs, "
            "--unsure-first or --mixed-harness",
            field="FAMILY",
        )
    _check_pairs(session, given.get("kind", family.kind))
    _check_agents(agents, given.get("kind", family.kind))
    check_settings({**asdict(family), **given})
    if "kind" in given and given["kind"] != family.kind:
        if family.kind == "graded" or given["kind"] not in MADE_KINDS:
            raise BadInput(
                "graded families and other kinds do not change into each other", field="--kind"
            )
        if catalog.count_outputs(ledger, name):
            raise BadInput(
                f"family {name!r} holds outputs: its kind stays {family.kind} (create another "
                "family of the kind you want and import into it)",
                field="--kind",
            )
    if "reference" in given:
        system = catalog.find_system(ledger, given["reference"], name)
        if system is None:
            raise BadInput(
                f"no system {given['reference']!r} among the systems of family {name!r}",
                field="--reference",
            )
        given["reference"] = system.system_id
    changed = {k: v for k, v in given.items() if getattr(family, k) != v}
    in_force = session_settings(ledger, name)
    changed.update({k: v for k, v in session.items() if in_force[k] != v})
    changed.update(
        {k: v for k, v in agents.items() if family_changes.mixed_harness(ledger, name) != v}
    )
    ids: dict[str, str] = {}
    with ledger.atomic():
        for key, value in changed.items():
            ids[key] = family_changes.add_change(ledger, name, key, value, reason=reason)
    after = require(ledger, name)
    regated = None
    if regate and any(k in GATED_SETTINGS for k in changed):
        from arena import family_state
        from arena.gates.screening import rerun

        regated = rerun(ledger, family_state.load(ledger, name), progress)
    return SetResult(after, ids, regated, session_settings(ledger, name))


def rename_family(ledger: Ledger, name: str, label: str, *, reason: str = "") -> str:
    """Give the family a display label; its name (what commands and rounds use) stays."""
    require(ledger, name)
    problem = name_problem(label)
    if problem is not None:
        raise BadInput(f"a family's label {problem}", field="LABEL")
    label = label.strip()
    with ledger.atomic():
        return family_changes.add_change(ledger, name, "label", label, reason=reason)


def archive_family(ledger: Ledger, name: str, archived: bool = True, *, reason: str = "") -> str:
    """Hide the family from lists (``archived``), or show it again; nothing else changes."""
    require(ledger, name)
    listing = listing_of(ledger, name)
    if listing.archived == archived:
        state = "archived" if archived else "not archived"
        raise BadInput(f"family {name!r} is already {state}", field="FAMILY")
    with ledger.atomic():
        return family_changes.add_change(ledger, name, "archived", archived, reason=reason)


def listing_of(ledger: Ledger, name: str) -> family_changes.Listing:
    return next(
        (listing for family, listing in catalog.family_listings(ledger) if family.name == name),
        family_changes.Listing(name),
    )


def describe(ledger: Ledger, name: str) -> dict[str, Any]:
    """The family as `arena family show --json` prints it: its settings in force, its
    label and archived state, what it was created with, and every change since."""
    family = require(ledger, name)
    created = catalog.family_as_created(ledger, name)
    assert created is not None  # require() found it
    listing = listing_of(ledger, name)
    history = family_changes.changes(ledger, name)
    given = [c.value for c in history if c.setting == "reference"]
    system = catalog.find_system(ledger, family.reference) if family.reference else None
    return {
        **family_row(family, listing),
        # The reference's label; one given at creation and not imported yet, as given.
        "reference_label": system.label if system else (given[-1] if given else None),
        **session_settings(ledger, name),
        "mixed_harness": family_changes.mixed_harness(ledger, name),
        "outputs": catalog.count_outputs(ledger, name),
        "created": {**asdict(created[0]), "at": created[1]},
        "changes": [c.as_json() for c in history],
    }


def families_by_name(ledger: Ledger) -> dict[str, Family]:
    """Every family, archived or not, with its settings in force: those an import may
    go to."""
    return {family.name: family for family in catalog.families(ledger)}


def family_row(family: Family, listing: family_changes.Listing) -> dict[str, Any]:
    return {
        **asdict(family),
        "label": listing.label,
        "archived": listing.archived,
    }


def listed(ledger: Ledger, *, archived: bool = False) -> list[dict[str, Any]]:
    """Every family (the archived ones only with ``archived``), grouped by aspect."""
    rows = [
        family_row(family, listing)
        for family, listing in catalog.family_listings(ledger)
        if archived or not listing.archived
    ]
    return sorted(rows, key=lambda r: (r["aspect"] == "", r["aspect"], r["name"]))
