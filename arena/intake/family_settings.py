"""A family's settings at import: given on the command line, in the file, or stored."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import BadInput
from arena.ledger import Ledger, catalog
from arena.records import KINDS, LANGUAGE_TAG, MIXED_HARNESS_CHOICES, PAIR_CHOICES, Family

if TYPE_CHECKING:  # the readers load JSON Schema: not on the way to the window's first pair
    from arena.intake.readers import ParsedOutput

# How often and how far apart repeats come back (arena.pairs.scheduling.RepeatPolicy), and
# how the next system pair is chosen (``pairs``, arena.pairs.adaptive): set by `arena family
# create/set` only, read by the rating session, never by gates or rounds.
REPEAT_FIELDS = ("repeat_share", "repeat_gap", "repeat_minutes")
SESSION_FIELDS = (*REPEAT_FIELDS, "pairs", "unsure_first")
# Whether the rater's pairs may favour items a run judge is unsure of (arena.pairs.unsure).
UNSURE_FIRST_CHOICES = ("on", "off")
# Whether a tests family's systems may differ in agent (arena.rating.one_agent): set by
# `arena family create/set` only, read by status and round close, never by the gates.
AGENT_FIELD = "mixed_harness"


@dataclass(frozen=True)
class FamilySettings:
    """Settings a person gave on the command line; None = not given."""

    kind: str | None = None
    language: str | None = None
    min_chars: int | None = None
    max_chars: int | None = None
    aspect: str | None = None
    reference: str | None = None
    repeat_share: float | None = None
    repeat_gap: int | None = None
    repeat_minutes: float | None = None
    pairs: str | None = None
    mixed_harness: str | None = None
    unsure_first: str | None = None

    @classmethod
    def from_options(cls, options: object) -> FamilySettings:
        """The settings among the attributes of ``options`` (a parsed command line); one
        it does not have is not given."""
        return cls(**{f.name: getattr(options, f.name, None) for f in fields(cls)})

    def given(self) -> dict[str, Any]:
        """The settings given that a ``Family`` record carries."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) is not None and f.name not in (*SESSION_FIELDS, AGENT_FIELD)
        }

    def session_given(self) -> dict[str, Any]:
        """The settings given that the rating session reads (``SESSION_FIELDS``), checked."""
        given = {k: getattr(self, k) for k in SESSION_FIELDS if getattr(self, k) is not None}
        check_repeats(given)
        if given.get("pairs", PAIR_CHOICES[0]) not in PAIR_CHOICES:
            raise BadInput(f"expected one of {', '.join(PAIR_CHOICES)}", field="--pairs")
        if given.get("unsure_first", "on") not in UNSURE_FIRST_CHOICES:
            raise BadInput("expected on or off", field="--unsure-first")
        return given

    def agents_given(self) -> dict[str, str]:
        """``{"mixed_harness": value}`` when given, checked; else nothing."""
        if self.mixed_harness is None:
            return {}
        if self.mixed_harness not in MIXED_HARNESS_CHOICES:
            raise BadInput(
                f"expected one of {', '.join(MIXED_HARNESS_CHOICES)}", field="--mixed-harness"
            )
        return {AGENT_FIELD: self.mixed_harness}


def check_repeats(values: dict[str, Any]) -> None:
    """Refuse a repeat share outside [0, 1], a negative spacing, or minutes that are no number."""
    share = values.get("repeat_share")
    if share is not None and not (math.isfinite(share) and 0 <= share <= 1):
        raise BadInput(
            "the share of votes shown again must be within 0 and 1", field="--repeat-share"
        )
    gap = values.get("repeat_gap")
    if gap is not None and gap < 0:
        raise BadInput(
            "the pairs between a vote and its repeat cannot be negative", field="--repeat-gap"
        )
    minutes = values.get("repeat_minutes")
    if minutes is not None and not (math.isfinite(minutes) and minutes >= 0):
        raise BadInput(
            "the minutes between a vote and its repeat must be a number ≥ 0",
            field="--repeat-minutes",
        )


def merged_settings(cli: FamilySettings, parsed: ParsedOutput, path: Path) -> dict[str, Any]:
    """The file's family settings with the command line's, which must not disagree."""
    from_file = {k: v for k, v in parsed.family.items() if k != "name"}
    merged = dict(from_file)
    for key, value in cli.given().items():
        if key in from_file and from_file[key] != value:
            raise BadInput(
                f"--{key.replace('_', '-')} {value!r} disagrees with the file's {from_file[key]!r}",
                path=str(path),
                line=parsed.line,
                field=f"family.{key}",
            )
        merged[key] = value
    if merged.get("kind", "votes") not in KINDS:
        raise BadInput(f"unknown kind {merged['kind']!r}", field="kind")
    check_settings(merged)
    return merged


def check_settings(values: dict[str, Any], *, prefix: str = "--") -> None:
    """Refuse a language that is not a BCP 47 tag and character bounds that make no sense
    (``values``: any of a family's settings; ``prefix`` names the field as the user gave it)."""

    def name(key: str) -> str:
        return prefix + (key.replace("_", "-") if prefix == "--" else key)

    language = values.get("language")
    if language is not None and not LANGUAGE_TAG.match(language):
        raise BadInput(
            f"not a BCP 47 language tag: {language!r} (e.g. en, ja, zh-Hans)",
            field=name("language"),
        )
    low, high = values.get("min_chars"), values.get("max_chars")
    if low is not None and low < 0:
        raise BadInput("the fewest characters allowed cannot be negative", field=name("min_chars"))
    if high is not None and high < 1:
        raise BadInput("the most characters allowed must be at least 1", field=name("max_chars"))
    if low is not None and high is not None and low > high:
        raise BadInput(f"min_chars {low} is above max_chars {high}", field=name("min_chars"))


def check_unchanged(
    family: Family, settings: dict[str, Any], path: Path, line: int, ledger: Ledger
) -> None:
    """Refuse settings that differ from a stored family's: an import never changes them
    (`arena family set` does, as a recorded change)."""
    for key, value in settings.items():
        current = getattr(family, key)
        if key == "reference":
            system = catalog.find_system(ledger, value, family.name)
            if system is not None and system.system_id == current:
                continue
        if current != value:
            raise BadInput(
                f"family {family.name!r} already has {key} {current!r}; an import never "
                "changes a family's settings"
                + (
                    ""
                    if key == "kind"
                    else f" (`arena family set {family.name} --{key.replace('_', '-')}` does)"
                ),
                path=str(path),
                line=line,
                field=f"family.{key}",
            )
