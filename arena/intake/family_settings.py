"""A family's settings at import: given on the command line, in the file, or stored."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from arena.errors import BadInput
from arena.intake.readers import ParsedOutput
from arena.ledger import Ledger, catalog
from arena.records import KINDS, Family


@dataclass(frozen=True)
class FamilySettings:
    """Settings a person gave on the command line; None = not given."""

    kind: str | None = None
    language: str | None = None
    min_chars: int | None = None
    max_chars: int | None = None
    aspect: str | None = None
    reference: str | None = None

    def given(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


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
    return merged


def check_unchanged(
    family: Family, settings: dict[str, Any], path: Path, line: int, ledger: Ledger
) -> None:
    """Refuse settings that differ from a stored family's: they are fixed at creation."""
    for key, value in settings.items():
        current = getattr(family, key)
        if key == "reference":
            system = catalog.find_system(ledger, value, family.name)
            if system is not None and system.system_id == current:
                continue
        if current != value:
            raise BadInput(
                f"family {family.name!r} already has {key} {current!r}; a family's "
                f"settings are fixed when it is created",
                path=str(path),
                line=line,
                field=f"family.{key}",
            )
